// A time limit for work that cannot be interrupted from inside the process: a kernel that never
// ends, an NVRTC compile that runs on (NVRTC has no way to cancel a compile). When `seconds` pass
// before the Watchdog is destroyed, it prints `message` as one line on stderr and ends the process
// with `exit_code` (std::_Exit: no destructors run, so nothing the stuck thread holds can block the
// exit). The window's runner and PTX view run such work in child processes for this reason.
#pragma once
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace kl {

class Watchdog {
  public:
    // seconds <= 0: no limit (nothing is started).
    Watchdog(int seconds, std::string message, int exit_code);
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

  private:
    std::string message_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

// Seconds every compile may take: $KL_COMPILE_TIMEOUT_S when set (0: no limit), else 300.
// Throws InputError when the variable is not a whole number of seconds up to 86400.
int compile_time_limit_s();

}  // namespace kl
