#include "child_exec.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace kl {

namespace {

struct Pipes {
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    ~Pipes() {
        for (int* p : {in, out, err})
            for (int i = 0; i < 2; ++i)
                if (p[i] >= 0) close(p[i]);
    }
    static void shut(int& fd) {
        if (fd >= 0) close(fd);
        fd = -1;
    }
};

// Writes the input and reads both outputs until the child closes them or the time runs out
// (reading one pipe only could deadlock on the other; so could writing all the input first).
bool pump(Pipes& p, const std::string& input, ExecResult& r, double timeout_s) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    size_t written = 0;
    if (input.empty()) Pipes::shut(p.in[1]);
    std::string* sinks[2] = {&r.out, &r.err};
    char buf[65536];
    while (p.out[0] >= 0 || p.err[0] >= 0) {
        pollfd fds[3] = {{p.out[0], POLLIN, 0}, {p.err[0], POLLIN, 0}, {p.in[1], POLLOUT, 0}};
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        if (poll(fds, 3, static_cast<int>(left.count())) < 0) {
            if (errno == EINTR) continue;
            return true;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0)
                sinks[i]->append(buf, static_cast<size_t>(n));
            else if (n == 0 || errno != EINTR)
                Pipes::shut(i == 0 ? p.out[0] : p.err[0]);
        }
        if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n =
                (fds[2].revents & POLLOUT) ? write(p.in[1], input.data() + written, input.size() - written) : -1;
            if (n > 0) written += static_cast<size_t>(n);
            if (n < 0 && errno != EINTR && errno != EAGAIN) written = input.size();  // the child closed its stdin
            if (written >= input.size()) Pipes::shut(p.in[1]);
        }
    }
    return true;
}

}  // namespace

std::string find_on_path(const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos) return name;
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        std::string dir = dirs.substr(start, end - start);
        std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        struct stat st {};
        if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = end + 1;
    }
    return "";
}

ExecResult run_program(const std::vector<std::string>& argv, const std::string& input, double timeout_s) {
    ExecResult r;
    if (argv.empty() || argv[0].empty()) return r.failure = "no program", r;
    if (access(argv[0].c_str(), X_OK) != 0) return r.failure = argv[0] + ": " + std::strerror(errno), r;
    Pipes p;
    for (int* fds : {p.in, p.out, p.err})
        if (pipe2(fds, O_CLOEXEC) != 0) return r.failure = std::string("pipe: ") + std::strerror(errno), r;
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {  // the child: only async-signal-safe calls until exec
        dup2(p.in[0], STDIN_FILENO);
        dup2(p.out[1], STDOUT_FILENO);
        dup2(p.err[1], STDERR_FILENO);
        setpgid(0, 0);  // its own process group: a time-out ends the helper and anything it started
        execv(args[0], args.data());
        const char msg[] = "exec failed\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    if (pid < 0) return r.failure = std::string("fork: ") + std::strerror(errno), r;
    Pipes::shut(p.in[0]);
    Pipes::shut(p.out[1]);
    Pipes::shut(p.err[1]);
    // A child that exits before reading all its input must not end us with SIGPIPE.
    void (*before)(int) = signal(SIGPIPE, SIG_IGN);
    r.started = true;
    if (!pump(p, input, r, timeout_s)) {
        r.timed_out = true;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
    }
    signal(SIGPIPE, before == SIG_ERR ? SIG_DFL : before);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace kl
