// Runs a short-lived helper program to completion: argv (never a shell string), a text on its
// stdin, its stdout and stderr kept, killed with its whole process group after a time limit. The
// engine compiles Triton rungs this way (triton_child.h): the learner's python3 runs the helper
// the program carries, confined by ExecOptions. POSIX (fork/exec, pipes, poll). Needs no GPU and
// no CUDA library.
#pragma once
#include <string>
#include <vector>

namespace kl {

struct ExecResult {
    bool started = false;     // false: `failure` says why (no such program, fork or pipe failed)
    bool timed_out = false;   // killed after the time limit
    bool overflowed = false;  // killed for writing more than ExecOptions::max_output bytes
    int exit_code = -1;       // the child's exit status, or -1 if it died by a signal
    std::string out, err, failure;
};

struct ExecOptions {
    bool replace_environment = false;      // true: the child gets exactly `environment`, nothing inherited
    std::vector<std::string> environment;  // "NAME=value"
    std::string working_folder;            // "" = ours
    size_t max_output = 0;                 // stdout + stderr bytes; 0 = no limit
    bool own_files_only = false;  // true: close every descriptor above stderr, no core files, files up to 1 GiB
};

// argv[0] is a path (or a name looked up on PATH by the caller: see find_on_path).
ExecResult run_program(const std::vector<std::string>& argv, const std::string& input, double timeout_s,
                       const ExecOptions& options = {});

// The first executable `name` on $PATH, or "" (a name with a '/' is returned as it is).
std::string find_on_path(const std::string& name);

}  // namespace kl
