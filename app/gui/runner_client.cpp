// [SECTION] index: requests / process control / reading / worker loop / public API / locating kladder
#include "gui/runner_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace kl::gui {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

// [SECTION] Requests

json encode_run_request(const RunRequest& r) {
    json options = json::object();
    if (r.warmup) options["warmup"] = *r.warmup;
    if (r.reps) options["reps"] = *r.reps;
    if (r.cold_l2) options["cold_l2"] = *r.cold_l2;
    // Only sent when asked for: a runner that predates the field then sees the same request.
    if (r.counters) options["counters"] = true;
    return {{"type", "run"},      {"ladder", r.ladder}, {"rung", r.rung},    {"sizes", r.sizes},
            {"params", r.params}, {"dtype", r.dtype},   {"options", options}};
}

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
    pid_t pid = fork();
    if (pid < 0) {
        *why = std::string("fork: ") + std::strerror(errno);
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
        return false;
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls until exec.
        dup2(in_pipe[0], STDIN_FILENO);
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        setpgid(0, 0);  // its own process group: a kill reaches helpers it may have started
        execv(argv[0], argv.data());
        const char msg[] = "kernel-ladder: could not start the runner\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
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
        if (!err_buffer_.empty()) emit({RunnerEvent::Kind::Log, 0, err_buffer_, nullptr});
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
    emit({RunnerEvent::Kind::Exited, 0, how, {{"pid", pid}}});
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

bool RunnerClient::pump(int wait_ms, std::vector<json>& lines) {
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
            if (!text.empty()) emit({RunnerEvent::Kind::Log, 0, text, nullptr});
        }
    }
    size_t nl;
    while ((nl = out_buffer_.find('\n')) != std::string::npos) {
        std::string text = out_buffer_.substr(0, nl);
        out_buffer_.erase(0, nl + 1);
        if (text.empty()) continue;
        try {
            json j = json::parse(text);
            if (j.is_object())
                lines.push_back(std::move(j));
            else
                emit({RunnerEvent::Kind::Log, 0, "runner wrote a non-object line: " + text.substr(0, 200), nullptr});
        } catch (const json::parse_error&) {
            emit({RunnerEvent::Kind::Log, 0, "runner wrote a line that is not JSON: " + text.substr(0, 200), nullptr});
        }
    }
    return open;
}

void RunnerClient::emit(RunnerEvent e) {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(e));
}

// [SECTION] Worker loop

void RunnerClient::worker_loop() {
    for (;;) {
        Pending job{0, nullptr};
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || !queue_.empty() || want_start_ || kill_requested_; });
            if (stop_) break;
            if (!queue_.empty()) {
                job = std::move(queue_.front());
                queue_.pop_front();
                in_flight_ = job.id;
                cancel_in_flight_ = false;
            }
            want_start_ = false;
        }
        if (kill_requested_.exchange(false) && pid_ > 0) reap("killed on request");

        // Make sure a runner is up and has said hello. One that died while idle is reaped first.
        if (pid_ > 0 && !child_alive()) reap("");
        if (pid_ <= 0) {
            if (failures_in_a_row_ >= options_.max_restarts_in_a_row) {
                if (job.id)
                    emit({RunnerEvent::Kind::Failed, job.id,
                          "the runner failed to start " + std::to_string(failures_in_a_row_) +
                              " times in a row; not retrying until the next request",
                          nullptr});
                std::lock_guard<std::mutex> lock(mutex_);
                in_flight_ = 0;
                failures_in_a_row_ = 0;  // the next submit tries again
                continue;
            }
            std::string why;
            if (!spawn(&why)) {
                ++failures_in_a_row_;
                if (job.id) emit({RunnerEvent::Kind::Failed, job.id, "could not start the runner: " + why, nullptr});
                std::lock_guard<std::mutex> lock(mutex_);
                in_flight_ = 0;
                continue;
            }
        }
        if (!hello_seen_) {
            auto deadline = Clock::now() + std::chrono::duration<double>(options_.hello_timeout_s);
            bool open = true;
            while (!hello_seen_ && open && Clock::now() < deadline && !cancel_in_flight_ && !kill_requested_) {
                std::vector<json> lines;
                open = pump(50, lines);
                for (auto& l : lines) {
                    if (l.value("type", "") == "hello") {
                        hello_seen_ = true;
                        emit({RunnerEvent::Kind::Hello, 0, "", l});
                    }
                }
            }
            if (!hello_seen_) {
                std::string why = !open               ? "the runner ended before saying hello"
                                  : cancel_in_flight_ ? "cancelled"
                                  : kill_requested_   ? "killed on request"
                                                      : "the runner did not say hello within " +
                                                          std::to_string(int(options_.hello_timeout_s)) + " s";
                reap(open ? why : "");
                if (why != "cancelled") ++failures_in_a_row_;
                if (job.id) emit({RunnerEvent::Kind::Failed, job.id, why, nullptr});
                std::lock_guard<std::mutex> lock(mutex_);
                in_flight_ = 0;
                continue;
            }
            failures_in_a_row_ = 0;
        }
        if (!job.id) continue;

        // Send the request and wait for its terminal reply, a crash, a time-out or a cancel.
        job.request["id"] = job.id;
        std::string failure;
        bool finished = false, fault_reported = false;
        if (!write_line(job.request.dump())) {
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
                    failure = "no reply within " + std::to_string(int(options_.request_timeout_s)) +
                              " s: the rung was stopped";
                    reap("killed after a time-out");
                    break;
                }
                std::vector<json> lines;
                bool open = pump(50, lines);
                for (auto& l : lines) {
                    std::string type = l.value("type", "");
                    bool ours = l.contains("id") && l["id"].is_number_unsigned() && l["id"].get<uint64_t>() == job.id;
                    if (type == "hello") {
                        emit({RunnerEvent::Kind::Hello, 0, "", l});
                    } else if (type == "progress" && ours) {
                        emit({RunnerEvent::Kind::Progress, job.id, l.value("label", ""), l});
                    } else if (type == "result" && ours) {
                        const json& rec = l.contains("record") ? l["record"] : json();
                        fault_reported = rec.is_object() && rec.contains("error") && rec["error"].is_object() &&
                                         rec["error"].value("kind", "") == "fault";
                        emit({RunnerEvent::Kind::Result, job.id, "", l});
                        finished = true;
                    } else if ((type == "error" && (ours || l["id"].is_null())) || (type == "pong" && ours)) {
                        if (type == "error")
                            failure = l.value("message", "error");
                        else
                            emit({RunnerEvent::Kind::Result, job.id, "", l});
                        finished = true;
                    }
                }
                if (!finished && !open) {
                    std::string how = reap("");
                    failure = "the runner died while running this request (" + how + ")";
                    break;
                }
            }
        }
        if (!finished && pid_ > 0) reap("killed after a failed write");
        if (!failure.empty()) emit({RunnerEvent::Kind::Failed, job.id, failure, nullptr});
        // After a fault that lost its CUDA context the runner replies, then exits: reap it now,
        // so that the exit is reported with the request and the next one starts fresh.
        if (finished && pid_ > 0 && fault_reported) {
            for (int i = 0; i < 80 && child_alive(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
            reap(child_alive() ? "killed: it kept running after losing its CUDA context" : "");
        }
        std::lock_guard<std::mutex> lock(mutex_);
        in_flight_ = 0;
    }
    reap("");
}

// [SECTION] Public API (any thread)

uint64_t RunnerClient::submit(json request) {
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
    for (const auto& p : queue_) events_.push_back({RunnerEvent::Kind::Failed, p.id, "cancelled", nullptr});
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
        if (fs::is_regular_file(c, ec) && access(c.c_str(), X_OK) == 0) return {c.string(), "serve"};
    *why = "kladder was not found next to the workbook, in its build tree or on PATH";
    return {};
}

}  // namespace kl::gui
