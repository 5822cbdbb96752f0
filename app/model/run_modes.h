// Measuring mistakes on purpose (lesson 0): a run may ask, besides its correct timing, for the
// figure a common mistake would have produced, so the learner sees both side by side. No CUDA:
// the names are read by lessons, the CLI, the runner protocol and the results reader; the
// GPU side is gpu/launch_modes.h.
//   no_warmup           the rung's very first launch in this process, timed alone (events)
//   host_clock_no_sync  a host clock read around the launch calls, no synchronisation
//   warm_l2             the usual protocol without the L2 flush between repetitions
//   short_burst         20 repetitions after an idle second, as a quick script times: a heavy
//                       kernel has not yet pulled the GPU down to its power-capped clock
#pragma once
#include <optional>
#include <string>

namespace kl {

enum class RunMode { Normal, NoWarmup, HostClockNoSync, WarmL2, ShortBurst };

// "no_warmup" -> NoWarmup; "" -> Normal; anything else -> nullopt.
std::optional<RunMode> parse_run_mode(const std::string& name);
std::string to_string(RunMode m);  // "" for Normal
// "no_warmup, host_clock_no_sync, warm_l2 or short_burst": for messages naming what is accepted.
std::string run_mode_names();
// One line on what the mode's figure measured, for the window and handouts.
std::string describe_run_mode(RunMode m);

}  // namespace kl
