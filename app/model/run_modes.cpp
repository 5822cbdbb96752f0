#include "model/run_modes.h"

namespace kl {

namespace {
struct ModeName {
    RunMode mode;
    const char* name;
    const char* what;
};
const ModeName kModes[] = {
    {RunMode::NoWarmup, "no_warmup", "the first launch in this process, timed alone: no warm-up"},
    {RunMode::HostClockNoSync, "host_clock_no_sync",
     "a host clock around the launch calls without synchronising: the time to queue the work"},
    {RunMode::WarmL2, "warm_l2", "repetitions without flushing L2: inputs may come from the cache"},
    {RunMode::ShortBurst, "short_burst",
     "20 repetitions after an idle second: the clock before the power cap pulls it down"},
};
}  // namespace

std::optional<RunMode> parse_run_mode(const std::string& name) {
    if (name.empty()) return RunMode::Normal;
    for (const auto& m : kModes)
        if (name == m.name) return m.mode;
    return std::nullopt;
}

std::string to_string(RunMode m) {
    for (const auto& x : kModes)
        if (x.mode == m) return x.name;
    return "";
}

std::string run_mode_names() { return "no_warmup, host_clock_no_sync, warm_l2 or short_burst"; }

std::string describe_run_mode(RunMode m) {
    for (const auto& x : kModes)
        if (x.mode == m) return x.what;
    return "the runner's protocol: warm-up, CUDA events, L2 flushed before each repetition";
}

}  // namespace kl
