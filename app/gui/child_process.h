// Run a short-lived child program to completion and keep what it printed: the window asks
// `kladder ptx` for a rung's PTX this way, so that NVRTC runs in another process and the window
// links no CUDA library. POSIX (fork/exec, pipes, poll). Blocking: call it off the UI thread.
#pragma once
#include <string>
#include <vector>

namespace kl::gui {

struct ChildResult {
    bool started = false;  // false: `failure` says why (fork, pipe or exec failed)
    int exit_code = -1;    // the child's exit status, or -1 if it died by a signal
    std::string out, err, failure;
};

ChildResult run_child(const std::vector<std::string>& argv);

// Starts `argv` (argv[0] looked up on PATH; no shell) detached from the window: its own session,
// stdin and stdout on /dev/null, never waited for (a double fork, so it leaves no zombie). Used by
// "Open in my editor". Returns false with *why ("cannot start 'code': No such file or directory")
// when it could not be started; what it does afterwards is its own business.
bool spawn_detached(const std::vector<std::string>& argv, std::string* why);

}  // namespace kl::gui
