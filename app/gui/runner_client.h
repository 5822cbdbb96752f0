// The GUI's side of `kladder serve` (protocol: model/serve_protocol.h): a child runner process
// that does all GPU work, fed from a queue by a worker thread. The UI thread only submits
// requests and polls events; it never blocks on the child.
//
// - The child is started with fork/exec and two pipes (plus stderr, kept for diagnostics).
// - A child that dies (a trap, a segfault, a kill) or stays silent past a request's time limit
//   is reaped and a fresh one started; the request it was running ends with a RunnerEvent of
//   kind Failed saying what happened, and the queue goes on.
// - cancel() drops the queue and kills the child if it is busy (a kernel cannot be stopped
//   half-way any other way); the next request starts a fresh one.
// - A runner of another protocol version is refused once (Kind::Incompatible, one line naming
//   both versions) and not restarted: every request then fails with that line.
// No ImGui here: tests drive this class directly.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "model/results.h"
#include "model/serve_protocol.h"

namespace kl::gui {

struct RunnerEvent {
    enum class Kind {
        Hello,         // a runner started: hello = what it said
        Progress,      // message = the run's label
        Result,        // record = the run's record (record.error set when the rung failed)
        Failed,        // the request ended without a result: message says why (error reply, crash, time-out, cancel)
        Exited,        // the runner process ended: message says how ("killed by signal 9", "exit code 3")
        Log,           // a line the runner wrote on stderr, or a reply that could not be read
        Incompatible,  // the runner speaks another protocol version (or an unreadable hello): message
                       // says which, in one line; no request runs
    } kind;
    uint64_t request_id = 0;  // 0 for events not tied to a request
    std::string message;
    std::optional<Hello> hello;                       // Kind::Hello
    std::optional<RunRecord> record;                  // Kind::Result
    std::vector<CompileDiagnostic> diagnostics = {};  // Kind::Result of a rung that did not compile (protocol 3)
    std::optional<BatchHold> hold = {};               // Kind::Result of a run held with its batch [hold]
};

struct RunnerOptions {
    std::vector<std::string> command;  // argv of the runner, e.g. {"/path/kladder", "serve"}
    double hello_timeout_s = 180;      // first start may calibrate the device
    double request_timeout_s = 120;    // a rung that runs longer is considered hung
    int max_restarts_in_a_row = 3;     // then give up until the next submit()
    // Set in the runner's environment over the window's own ([stopwatch] KL_STOPWATCH).
    std::map<std::string, std::string> environment;
};

// The runner's environment: `base` (NAME=value strings, as `environ`) with every name of
// `overrides` replaced by its value there, in order, the overrides last.
std::vector<std::string> child_environment(const char* const* base,
                                           const std::map<std::string, std::string>& overrides);

class RunnerClient {
  public:
    explicit RunnerClient(RunnerOptions options);
    ~RunnerClient();  // stops the worker, ends the child
    RunnerClient(const RunnerClient&) = delete;
    RunnerClient& operator=(const RunnerClient&) = delete;

    // Queues a request (its id is set here) and returns the id. Starts the runner if needed.
    uint64_t submit(RunRequest request);
    // Drops queued requests; kills the child if it is running one. Each dropped or killed
    // request gets a Failed event with message "cancelled".
    void cancel();
    // Starts the runner now (to get its hello early) without submitting anything.
    void start();
    // Kills the child with SIGKILL, as a crash would (tests, and the "Restart runner" button).
    void kill_runner();

    std::vector<RunnerEvent> poll();  // events since the last poll, in order
    bool has_events() const;          // poll() would return some (an idle window's question)
    bool busy() const;                // a request in flight or queued
    size_t queued() const;
    pid_t pid() const { return pid_.load(); }
    int restarts() const { return restarts_.load(); }  // runners started after the first
    const RunnerOptions& options() const { return options_; }

  private:
    struct Pending {
        uint64_t id = 0;  // 0: no request (a start or a kill woke the worker)
        RunRequest request;
    };
    void worker_loop();
    bool wait_for_work(Pending& job);  // false when the client is stopping
    // A runner up and greeted; false (the job, if any, failed with the reason) otherwise.
    bool ensure_runner(const Pending& job);
    bool await_hello(const Pending& job);
    // Sends the request and waits for its terminal reply, a crash, a time-out or a cancel.
    void run_request(const Pending& job);
    // One pass of reading while a request runs: true when the request ended (*failure says how
    // when it ended without a result).
    // *progressed: a progress reply came (the request's time limit starts again).
    bool read_replies(const Pending& job, bool* fault_reported, std::string* failure, bool* progressed);
    bool spawn(std::string* why);
    // Returns how the child ended ("killed by signal 9 (Killed)", "exit code 3", ...).
    std::string reap(const std::string& reason_if_killed);
    bool child_alive() const;
    bool write_line(const std::string& line);
    // Reads whatever the child wrote (stdout lines and stderr lines) for up to `wait_ms`.
    // Returns false when the child's stdout closed.
    bool pump(int wait_ms, std::vector<RunnerLine>& lines);
    void emit(RunnerEvent e);

    RunnerOptions options_;
    std::thread worker_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Pending> queue_;
    std::vector<RunnerEvent> events_;
    uint64_t next_id_ = 1;
    uint64_t in_flight_ = 0;   // guarded by mutex_
    bool stop_ = false;        // guarded by mutex_
    bool want_start_ = false;  // guarded by mutex_
    std::atomic<bool> cancel_in_flight_{false};
    std::atomic<bool> kill_requested_{false};
    std::atomic<pid_t> pid_{-1};
    std::atomic<int> restarts_{0};
    // Owned by the worker thread only:
    int to_child_ = -1, from_child_ = -1, err_child_ = -1;
    std::string out_buffer_, err_buffer_;
    bool hello_seen_ = false;
    bool pid_ever_started_ = false;
    int failures_in_a_row_ = 0;
    std::string incompatible_;  // set once a runner of another protocol version said hello
};

// Where the runner is: $KLADDER_SERVE (a whole command line, split on spaces; for tests), else
// `kladder` next to this executable, in ../cli/ of a build tree, in the build tree this GUI was
// configured in, then on $PATH. Returns an empty command with `why` set when none is found.
std::vector<std::string> find_runner_command(std::string* why);
// The `kladder` program itself (as above, without $KLADDER_SERVE), or "" and why not.
std::string find_kladder(std::string* why);

}  // namespace kl::gui
