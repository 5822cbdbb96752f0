#include "gui/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kl::gui {

namespace {
// Reads both pipes until the child closes them (reading only one could deadlock on the other),
// or until `cancel` is set (false then).
bool drain(int out_fd, int err_fd, ChildResult& r, const std::atomic<bool>* cancel) {
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open = 2;
    char buf[65536];
    while (open > 0) {
        if (cancel && cancel->load()) {
            for (auto& f : fds)
                if (f.fd >= 0) close(f.fd);
            return false;
        }
        if (poll(fds, 2, cancel ? 50 : -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[i]->append(buf, static_cast<size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            }
        }
    }
    return true;
}
}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, const std::atomic<bool>* cancel) {
    ChildResult r;
    if (argv.empty()) return r.failure = "no command", r;
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0) return r.failure = std::string("pipe: ") + std::strerror(errno), r;
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        return r.failure = std::string("pipe: ") + std::strerror(errno), r;
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {     // the child: only async-signal-safe calls until exec
        setpgid(0, 0);  // its own process group, so that a cancel ends whatever it started too
        dup2(out_pipe[1], STDOUT_FILENO);
        dup2(err_pipe[1], STDERR_FILENO);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, STDIN_FILENO);
        execv(args[0], args.data());
        const char msg[] = "exec failed\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (pid < 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        return r.failure = std::string("fork: ") + std::strerror(errno), r;
    }
    setpgid(pid, pid);  // also here: the group exists before a cancel could need it
    r.started = true;
    bool whole = drain(out_pipe[0], err_pipe[0], r, cancel);
    int status = 0;
    // A child may close its output and go on: with a cancel flag, wait without blocking.
    while (whole && cancel) {
        const pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid || (got < 0 && errno != EINTR)) break;
        if (cancel->load()) whole = false;
        if (whole) poll(nullptr, 0, 50);
    }
    if (!whole) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
        r.cancelled = true;
        r.failure = "cancelled";
        return r;
    }
    if (!cancel)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

bool spawn_detached(const std::vector<std::string>& argv, std::string* why) {
    if (argv.empty() || argv[0].empty()) return *why = "no program to start", false;
    // The grandchild reports a failed exec through a close-on-exec pipe: EOF means it started.
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return *why = std::string("pipe: ") + std::strerror(errno), false;
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {  // the child: only async-signal-safe calls until exec
        close(report[0]);
        if (fork() != 0) _exit(0);  // the intermediate child leaves at once; the grandchild is adopted
        setsid();
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            dup2(devnull, STDOUT_FILENO);
        }
        execvp(args[0], args.data());
        int e = errno;
        ssize_t ignored = write(report[1], &e, sizeof e);
        (void)ignored;
        _exit(127);
    }
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        return *why = std::string("fork: ") + std::strerror(errno), false;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    int e = 0;
    ssize_t n;
    while ((n = read(report[0], &e, sizeof e)) < 0 && errno == EINTR) {}
    close(report[0]);
    if (n == ssize_t(sizeof e)) return *why = "cannot start '" + argv[0] + "': " + std::strerror(e), false;
    return true;
}

}  // namespace kl::gui
