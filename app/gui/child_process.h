// Run a short-lived child program to completion and keep what it printed: the window asks
// `kladder ptx` for a rung's PTX this way, so that NVRTC runs in another process and the window
// links no CUDA library. POSIX (fork/exec, pipes, poll). Blocking: call it off the UI thread.
// A child can be cancelled from another thread (NVRTC cannot be stopped inside a process, and a
// source that #includes a FIFO could block it for ever): the window must always be able to exit.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace kl::gui {

struct ChildResult {
    bool started = false;  // false: `failure` says why (fork, pipe or exec failed)
    int exit_code = -1;    // the child's exit status, or -1 if it died by a signal
    bool cancelled = false;
    std::string out, err, failure;
};

// When `cancel` becomes true the child and its process group are killed (SIGKILL) and reaped at
// once, within about 50 ms; the result is `cancelled`.
ChildResult run_child(const std::vector<std::string>& argv, const std::atomic<bool>* cancel = nullptr);

// A cancel flag shared with the thread of one child run. Each start() cancels the run before it;
// destroying the flag cancels the last one, so a window that closes never waits on a child.
class ChildCancel {
  public:
    ChildCancel() = default;
    ~ChildCancel() { cancel(); }
    ChildCancel(const ChildCancel&) = delete;
    ChildCancel& operator=(const ChildCancel&) = delete;
    // A new flag for a new run (the previous run is cancelled); hand it to run_child's thread.
    std::shared_ptr<std::atomic<bool>> start() {
        cancel();
        flag_ = std::make_shared<std::atomic<bool>>(false);
        return flag_;
    }
    void cancel() {
        if (flag_) flag_->store(true);
    }

  private:
    std::shared_ptr<std::atomic<bool>> flag_;
};

// Starts `argv` (argv[0] looked up on PATH; no shell) detached from the window: its own session,
// stdin and stdout on /dev/null, never waited for (a double fork, so it leaves no zombie). Used by
// "Open in my editor". Returns false with *why ("cannot start 'code': No such file or directory")
// when it could not be started; what it does afterwards is its own business.
bool spawn_detached(const std::vector<std::string>& argv, std::string* why);

}  // namespace kl::gui
