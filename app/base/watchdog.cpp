#include "base/watchdog.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "base/errors.h"

namespace kl {

Watchdog::Watchdog(int seconds, std::string message, int exit_code) : message_(std::move(message)) {
    if (seconds <= 0) return;
    thread_ = std::thread([this, seconds, exit_code] {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!cv_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) {
            std::fprintf(stderr, "%s\n", message_.c_str());
            std::fflush(stderr);
            std::_Exit(exit_code);
        }
    });
}

Watchdog::~Watchdog() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

int compile_time_limit_s() {
    const char* v = std::getenv("KL_COMPILE_TIMEOUT_S");
    if (!v || !*v) return 300;
    const std::string s(v);
    if (s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos || std::stoi(s) > 86400)
        throw InputError("KL_COMPILE_TIMEOUT_S: '" + s.substr(0, 40) + "' is not a number of seconds (0 to 86400)");
    return std::stoi(s);
}

}  // namespace kl
