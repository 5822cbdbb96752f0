// One line each for what a run measured beside its median, for the CLI's output: the measuring
// mistake's figure (run_modes.h), the traced kernels against the event time (timeline.h), the
// SM clock around the timing. No CUDA.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/results.h"

namespace kl {

std::vector<std::string> timing_notes(const RunRecord& r);
// The clock through the repetitions, and the sustained and burst figures, in one line (for a
// report whose sampled_reps > 0): "during timing 1740-1980 MHz (median 1830); 212 of 300
// repetitions below 98% of rated: sustained 0.5290 ms (all), burst 0.5120 ms (88 at full clock, -3.2%)".
std::string clock_during_note(const ClockReport& c, const std::optional<TimingStats>& sustained);

}  // namespace kl
