// [SECTION] index: construction / process control / reading / worker loop / public API / locating kladder
#include "gui/runner_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "gui/wake.h"

namespace kl::gui {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// [SECTION] Construction

RunnerClient::RunnerClient(RunnerOptions options) : options_(std::move(options)) {
    // A write to a dead child's pipe must return EPIPE, not kill the GUI.
    signal(SIGPIPE, SIG_IGN);
    worker_ = std::thread([this] { worker_loop(); });
}

RunnerClient::~RunnerClient() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    cancel_in_flight_ = true;
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
}

// [SECTION] Process control (worker thread only)

std::vector<std::string> child_environment(const char* const* base,
                                           const std::map<std::string, std::string>& overrides) {
    std::vector<std::string> out;
    for (const char* const* e = base; e && *e; ++e) {
        const std::string entry = *e;
        if (!overrides.count(entry.substr(0, entry.find('=')))) out.push_back(entry);
    }
    for (const auto& [name, value] : overrides) out.push_back(name + "=" + value);
    return out;
}

bool RunnerClient::spawn(std::string* why) {
    if (options_.command.empty()) {
        *why = "no runner command";
        return false;
    }
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (pipe2(in_pipe, O_CLOEXEC) != 0) {
        *why = std::string("pipe: ") + std::strerror(errno);
        return false;
    }
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        *why = std::string("pipe: ") + std::strerror(errno);
        close(in_pipe[0]);
        close(in_pipe[1]);
        return false;
    }
    std::vector<char*> argv;
    for (const auto& a : options_.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // posix_spawn, not fork: glibc starts the child without copying the parent's page tables
    // (CLONE_VFORK), and a fork of this large process (GL driver and sanitizer mappings) holds the
    // address space's lock long enough to stall the UI thread's frame (gui.runner_recovery saw
    // 17-18 ms frames under ASan at the restart). The pipes are O_CLOEXEC; dup2 onto 0-2 clears it.
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own process group: a kill reaches its helpers
    posix_spawnattr_setpgroup(&attr, 0);
    const std::vector<std::string> env_strings = child_environment(environ, options_.environment);
    std::vector<char*> env;
    for (const auto& e : env_strings) env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
    pid_t pid = -1;
    const int err = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (err != 0) {
        *why = options_.command[0] + ": " + std::strerror(err);
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
        return false;
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    to_child_ = in_pipe[1];
    from_child_ = out_pipe[0];
    err_child_ = err_pipe[0];
    fcntl(from_child_, F_SETFL, O_NONBLOCK);
    fcntl(err_child_, F_SETFL, O_NONBLOCK);
    out_buffer_.clear();
    err_buffer_.clear();
    hello_seen_ = false;
    if (pid_ever_started_) ++restarts_;
    pid_ever_started_ = true;
    pid_ = pid;
    return true;
}

bool RunnerClient::child_alive() const {
    pid_t pid = pid_.load();
    if (pid <= 0) return false;
    siginfo_t info{};
    // WNOWAIT: look without reaping, so that reap() still gets the exit status.
    if (waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return false;
    return info.si_pid == 0;
}

// Ends the child (if still alive), collects its status and reports how it ended.
std::string RunnerClient::reap(const std::string& reason_if_killed) {
    pid_t pid = pid_.load();
    if (pid <= 0) return "";
    int status = 0;
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == 0 && !reason_if_killed.empty()) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    } else if (done == 0) {
        // Closing stdin asks a healthy runner to leave; give it a moment, then insist.
        if (to_child_ >= 0) close(to_child_), to_child_ = -1;
        for (int i = 0; i < 20 && done == 0; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
            done = waitpid(pid, &status, WNOHANG);
        }
        if (done == 0) kill(-pid, SIGKILL), kill(pid, SIGKILL);
    }
    if (done == 0) done = waitpid(pid, &status, 0);
    // Whatever it said on stderr before dying is the best clue of why.
    if (err_child_ >= 0) {
        char buf[4096];
        ssize_t n;
        while ((n = read(err_child_, buf, sizeof buf)) > 0) err_buffer_.append(buf, size_t(n));
        if (!err_buffer_.empty()) emit({RunnerEvent::Kind::Log, 0, err_buffer_, {}, {}});
        err_buffer_.clear();
    }
    for (int* fd : {&to_child_, &from_child_, &err_child_})
        if (*fd >= 0) close(*fd), *fd = -1;
    pid_ = -1;
    std::string how;
    if (!reason_if_killed.empty())
        how = reason_if_killed;
    else if (done == pid && WIFSIGNALED(status))
        how = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
              ")";
    else if (done == pid && WIFEXITED(status))
        how = "exit code " + std::to_string(WEXITSTATUS(status));
    else
        how = "ended";
    emit({RunnerEvent::Kind::Exited, 0, how, {}, {}});
    return how;
}

bool RunnerClient::write_line(const std::string& line) {
    std::string data = line + "\n";
    size_t off = 0;
    while (off < data.size()) {
        ssize_t n = write(to_child_, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += size_t(n);
    }
    return true;
}

// [SECTION] Reading

bool RunnerClient::pump(int wait_ms, std::vector<RunnerLine>& lines) {
    if (from_child_ < 0) return false;
    pollfd fds[2] = {{from_child_, POLLIN, 0}, {err_child_, POLLIN, 0}};
    int n = ::poll(fds, err_child_ >= 0 ? 2 : 1, wait_ms);
    if (n < 0) return errno == EINTR;
    bool open = true;
    char buf[65536];
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t got;
        while ((got = read(from_child_, buf, sizeof buf)) > 0) out_buffer_.append(buf, size_t(got));
        if (got == 0) open = false;
    }
    if (err_child_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t got;
        while ((got = read(err_child_, buf, sizeof buf)) > 0) err_buffer_.append(buf, size_t(got));
        size_t nl;
        while ((nl = err_buffer_.find('\n')) != std::string::npos) {
            std::string text = err_buffer_.substr(0, nl);
            err_buffer_.erase(0, nl + 1);
            if (!text.empty()) emit({RunnerEvent::Kind::Log, 0, text, {}, {}});
        }
    }
    size_t nl;
    while ((nl = out_buffer_.find('\n')) != std::string::npos) {
        std::string text = out_buffer_.substr(0, nl);
        out_buffer_.erase(0, nl + 1);
        if (text.empty()) continue;
        // Lines nobody can place are logged; a reply to a request is the worker's to judge.
        RunnerLine l = decode_runner_line(text);
        if (!l.problem.empty() && !l.id && !l.version_mismatch && !l.bad_hello)
            emit({RunnerEvent::Kind::Log,
                  0,
                  "runner wrote a line that is not understood (" + l.problem + "): " + text.substr(0, 200),
                  {},
                  {}});
        else
            lines.push_back(std::move(l));
    }
    return open;
}

void RunnerClient::emit(RunnerEvent e) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        events_.push_back(std::move(e));
    }
    wake_ui();  // an idle window waits for events: this is one
}

// [SECTION] Worker loop

void RunnerClient::worker_loop() {
    for (;;) {
        Pending job;
        if (!wait_for_work(job)) break;
        if (kill_requested_.exchange(false) && pid_ > 0) reap("killed on request");
        if (ensure_runner(job) && job.id) run_request(job);
        std::lock_guard<std::mutex> lock(mutex_);
        in_flight_ = 0;
    }
    reap("");
}

bool RunnerClient::wait_for_work(Pending& job) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stop_ || !queue_.empty() || want_start_ || kill_requested_; });
    if (stop_) return false;
    if (!queue_.empty()) {
        job = std::move(queue_.front());
        queue_.pop_front();
        in_flight_ = job.id;
        cancel_in_flight_ = false;
    }
    want_start_ = false;
    return true;
}

bool RunnerClient::ensure_runner(const Pending& job) {
    auto fail = [&](const std::string& why) {
        if (job.id) emit({RunnerEvent::Kind::Failed, job.id, why, {}, {}});
        return false;
    };
    // A runner of another protocol version never becomes usable: say so for every request.
    if (!incompatible_.empty()) return fail(incompatible_);
    // One that died while idle is reaped first.
    if (pid_ > 0 && !child_alive()) reap("");
    if (pid_ <= 0) {
        if (failures_in_a_row_ >= options_.max_restarts_in_a_row) {
            const int failures = failures_in_a_row_;
            failures_in_a_row_ = 0;  // the next submit tries again
            return fail("the runner failed to start " + std::to_string(failures) +
                        " times in a row; not retrying until the next request");
        }
        std::string why;
        if (!spawn(&why)) {
            ++failures_in_a_row_;
            return fail("could not start the runner: " + why);
        }
    }
    return hello_seen_ || await_hello(job);
}

bool RunnerClient::await_hello(const Pending& job) {
    auto deadline = Clock::now() + std::chrono::duration<double>(options_.hello_timeout_s);
    bool open = true;
    while (!hello_seen_ && open && incompatible_.empty() && Clock::now() < deadline && !cancel_in_flight_ &&
           !kill_requested_) {
        std::vector<RunnerLine> lines;
        open = pump(50, lines);
        for (auto& l : lines) {
            if ((l.version_mismatch || l.bad_hello) && incompatible_.empty()) {
                incompatible_ = l.problem;
                emit({RunnerEvent::Kind::Incompatible, 0, incompatible_, {}, {}});
            } else if (l.hello && !hello_seen_) {
                hello_seen_ = true;
                emit({RunnerEvent::Kind::Hello, 0, "", std::move(l.hello), {}});
            }
        }
    }
    if (hello_seen_) {
        failures_in_a_row_ = 0;
        return true;
    }
    std::string why = !incompatible_.empty() ? incompatible_
                      : !open                ? "the runner ended before saying hello"
                      : cancel_in_flight_    ? "cancelled"
                      : kill_requested_      ? "killed on request"
                                             : "the runner did not say hello within " +
                                              std::to_string(int(options_.hello_timeout_s)) + " s";
    reap(open ? why : "");
    if (why != "cancelled" && incompatible_.empty()) ++failures_in_a_row_;
    if (job.id) emit({RunnerEvent::Kind::Failed, job.id, why, {}, {}});
    return false;
}

bool RunnerClient::read_replies(const Pending& job, bool* fault_reported, std::string* failure, bool* progressed) {
    std::vector<RunnerLine> lines;
    bool open = pump(50, lines);
    bool finished = false;
    for (auto& l : lines) {
        const bool ours = l.id && *l.id == job.id;
        if (l.hello) {
            emit({RunnerEvent::Kind::Hello, 0, "", std::move(l.hello), {}});
        } else if (!l.event) {
            // A reply to this request that cannot be read ends it; any other one is only logged.
            if (ours) {
                *failure = "runner reply not understood: " + l.problem;
                finished = true;
            } else {
                emit({RunnerEvent::Kind::Log, 0, "runner reply not understood: " + l.problem, {}, {}});
            }
        } else if (l.event->type == RunEvent::Type::Progress && ours) {
            emit({RunnerEvent::Kind::Progress, job.id, l.event->label, {}, {}});
            *progressed = true;
        } else if (l.event->type == RunEvent::Type::Result && ours) {
            *fault_reported = l.event->record.error_kind == "fault";
            RunnerEvent e{RunnerEvent::Kind::Result, job.id, "", {}, std::move(l.event->record)};
            e.diagnostics = std::move(l.event->diagnostics);
            e.hold = l.event->hold;  // [hold]
            emit(std::move(e));
            finished = true;
        } else if (l.event->type == RunEvent::Type::Error && (ours || !l.id)) {
            *failure = l.event->message;
            finished = true;
        }
    }
    if (!finished && !open) {
        std::string how = reap("");
        *failure = "the runner died while running this request (" + how + ")";
        return true;
    }
    return finished;
}

void RunnerClient::run_request(const Pending& job) {
    RunRequest request = job.request;
    request.id = job.id;
    std::string failure;
    bool finished = false, fault_reported = false;
    if (!write_line(encode_line(request))) {
        failure = "could not send the request: the runner is gone";
    } else {
        auto deadline = Clock::now() + std::chrono::duration<double>(options_.request_timeout_s);
        while (!finished) {
            if (cancel_in_flight_) {
                failure = "cancelled";
                reap("killed to cancel the running request");
                break;
            }
            if (kill_requested_.exchange(false)) {
                failure = "the runner was killed while running this request";
                reap("killed on request");
                break;
            }
            if (Clock::now() > deadline) {
                failure =
                    "no reply within " + std::to_string(int(options_.request_timeout_s)) + " s: the rung was stopped";
                reap("killed after a time-out");
                break;
            }
            bool progressed = false;
            finished = read_replies(job, &fault_reported, &failure, &progressed);
            // A long run announces its steps (the shared hold's probes, then the run): each has the limit.
            if (progressed) deadline = Clock::now() + std::chrono::duration<double>(options_.request_timeout_s);
        }
    }
    if (!finished && pid_ > 0) reap("killed after a failed write");
    if (!failure.empty()) emit({RunnerEvent::Kind::Failed, job.id, failure, {}, {}});
    // After a fault that lost its CUDA context the runner replies, then exits: reap it now,
    // so that the exit is reported with the request and the next one starts fresh.
    if (finished && pid_ > 0 && fault_reported) {
        for (int i = 0; i < 80 && child_alive(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
        reap(child_alive() ? "killed: it kept running after losing its CUDA context" : "");
    }
}

// [SECTION] Public API (any thread)

uint64_t RunnerClient::submit(RunRequest request) {
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t id = next_id_++;
    queue_.push_back({id, std::move(request)});
    wake_.notify_all();
    return id;
}

void RunnerClient::start() {
    std::lock_guard<std::mutex> lock(mutex_);
    want_start_ = true;
    wake_.notify_all();
}

void RunnerClient::cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& p : queue_) events_.push_back({RunnerEvent::Kind::Failed, p.id, "cancelled", {}, {}});
    queue_.clear();
    if (in_flight_) cancel_in_flight_ = true;
}

void RunnerClient::kill_runner() {
    std::lock_guard<std::mutex> lock(mutex_);
    kill_requested_ = true;
    wake_.notify_all();
}

std::vector<RunnerEvent> RunnerClient::poll() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<RunnerEvent> out;
    out.swap(events_);
    return out;
}

bool RunnerClient::has_events() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !events_.empty();
}

bool RunnerClient::busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return in_flight_ != 0 || !queue_.empty();
}

size_t RunnerClient::queued() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size() + (in_flight_ ? 1 : 0);
}

// [SECTION] Locating kladder

std::vector<std::string> find_runner_command(std::string* why) {
    if (const char* env = std::getenv("KLADDER_SERVE"); env && *env) {
        std::vector<std::string> cmd;
        std::istringstream ss(env);
        std::string part;
        while (ss >> part) cmd.push_back(part);
        return cmd;
    }
    std::string kladder = find_kladder(why);
    if (kladder.empty()) return {};
    return {kladder, "serve"};
}

std::string find_kladder(std::string* why) {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    std::vector<fs::path> candidates;
    if (!ec) {
        candidates.push_back(self.parent_path() / "kladder");
        candidates.push_back(self.parent_path().parent_path() / "cli" / "kladder");
    }
#ifdef KL_BUILD_DIR
    candidates.push_back(fs::path(KL_BUILD_DIR) / "app" / "cli" / "kladder");
#endif
    if (const char* path = std::getenv("PATH")) {
        std::istringstream ss(path);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (!dir.empty()) candidates.push_back(fs::path(dir) / "kladder");
    }
    for (const auto& c : candidates)
        if (fs::is_regular_file(c, ec) && access(c.c_str(), X_OK) == 0) return c.string();
    *why = "kladder was not found next to the workbook, in its build tree or on PATH";
    return "";
}

}  // namespace kl::gui
