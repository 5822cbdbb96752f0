#include "base/child_exec.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

enum class Pumped { Done, TimedOut, Overflowed };

// Writes the input and reads both outputs until the child closes them, the time runs out or the
// output passes max_output (reading one pipe only could deadlock on the other; so could writing
// all the input first).
using Clock = std::chrono::steady_clock;

Pumped pump(Pipes& p, const std::string& input, ExecResult& r, Clock::time_point deadline, size_t max_output) {
    size_t written = 0;
    if (input.empty()) Pipes::shut(p.in[1]);
    std::string* sinks[2] = {&r.out, &r.err};
    char buf[65536];
    while (p.out[0] >= 0 || p.err[0] >= 0) {
        pollfd fds[3] = {{p.out[0], POLLIN, 0}, {p.err[0], POLLIN, 0}, {p.in[1], POLLOUT, 0}};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) return Pumped::TimedOut;
        if (poll(fds, 3, static_cast<int>(left.count())) < 0) {
            if (errno == EINTR) continue;
            return Pumped::Done;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0)
                sinks[i]->append(buf, static_cast<size_t>(n));
            else if (n == 0 || errno != EINTR)
                Pipes::shut(i == 0 ? p.out[0] : p.err[0]);
            if (max_output && r.out.size() + r.err.size() > max_output) return Pumped::Overflowed;
        }
        if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n =
                (fds[2].revents & POLLOUT) ? write(p.in[1], input.data() + written, input.size() - written) : -1;
            if (n > 0) written += static_cast<size_t>(n);
            if (n < 0 && errno != EINTR && errno != EAGAIN) written = input.size();  // the child closed its stdin
            if (written >= input.size()) Pipes::shut(p.in[1]);
        }
    }
    return Pumped::Done;
}

// In the child, between fork and exec: async-signal-safe calls only.
void confine_child(const ExecOptions& o, const char* folder, long max_fd) {
    if (folder && chdir(folder) != 0) {
        const char msg[] = "cannot enter the working folder\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    if (!o.own_files_only) return;
    const rlimit no_core{0, 0}, file_size{rlim_t(1) << 30, rlim_t(1) << 30};
    setrlimit(RLIMIT_CORE, &no_core);
    setrlimit(RLIMIT_FSIZE, &file_size);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0) return;
#endif
    for (long fd = 3; fd < max_fd; ++fd) close(static_cast<int>(fd));
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

ExecResult run_program(const std::vector<std::string>& argv, const std::string& input, double timeout_s,
                       const ExecOptions& options) {
    ExecResult r;
    if (argv.empty() || argv[0].empty()) return r.failure = "no program", r;
    if (access(argv[0].c_str(), X_OK) != 0) return r.failure = argv[0] + ": " + std::strerror(errno), r;
    Pipes p;
    for (int* fds : {p.in, p.out, p.err})
        if (pipe2(fds, O_CLOEXEC) != 0) return r.failure = std::string("pipe: ") + std::strerror(errno), r;
    // Everything the child needs is made before fork: it may only make async-signal-safe calls.
    std::vector<char*> args, env;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : options.environment) env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
    const char* folder = options.working_folder.empty() ? nullptr : options.working_folder.c_str();
    const long max_fd = std::min(sysconf(_SC_OPEN_MAX) > 0 ? sysconf(_SC_OPEN_MAX) : 1024, 65536L);
    pid_t pid = fork();
    if (pid == 0) {  // the child: only async-signal-safe calls until exec
        dup2(p.in[0], STDIN_FILENO);
        dup2(p.out[1], STDOUT_FILENO);
        dup2(p.err[1], STDERR_FILENO);
        setpgid(0, 0);  // its own process group: a time-out ends the helper and anything it started
        confine_child(options, folder, max_fd);
        if (options.replace_environment)
            execve(args[0], args.data(), env.data());
        else
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
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    Pumped how = pump(p, input, r, deadline, options.max_output);
    int status = 0;
    // A child that closed its outputs may still run: the time limit holds until it has exited.
    bool reaped = false;
    while (how == Pumped::Done && !reaped) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        reaped = done == pid || (done < 0 && errno != EINTR);
        if (!reaped && Clock::now() >= deadline) how = Pumped::TimedOut;
        if (!reaped && how == Pumped::Done) usleep(5000);
    }
    if (how != Pumped::Done) {
        r.timed_out = how == Pumped::TimedOut;
        r.overflowed = how == Pumped::Overflowed;
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    }
    signal(SIGPIPE, before == SIG_ERR ? SIG_DFL : before);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace kl
