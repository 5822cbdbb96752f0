// Runs a short-lived helper program to completion: argv (never a shell string), a text on its
// stdin, its stdout and stderr kept, killed after a time limit. The engine compiles Triton rungs
// this way (triton_rung.h): the learner's python3 runs kernels/common/kl_triton_compile.py.
// POSIX (fork/exec, pipes, poll). Needs no GPU and no CUDA library.
#pragma once
#include <string>
#include <vector>

namespace kl {

struct ExecResult {
    bool started = false;    // false: `failure` says why (no such program, fork or pipe failed)
    bool timed_out = false;  // killed after the time limit
    int exit_code = -1;      // the child's exit status, or -1 if it died by a signal
    std::string out, err, failure;
};

// argv[0] is a path (or a name looked up on PATH by the caller: see find_on_path).
ExecResult run_program(const std::vector<std::string>& argv, const std::string& input, double timeout_s);

// The first executable `name` on $PATH, or "" (a name with a '/' is returned as it is).
std::string find_on_path(const std::string& name);

}  // namespace kl
