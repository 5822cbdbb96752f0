// One line each for what a run measured beside its median, for the CLI's output: the measuring
// mistake's figure (run_modes.h), the traced kernels against the event time (timeline.h), the
// SM clock around the timing. No CUDA.
#pragma once
#include <string>
#include <vector>

#include "model/results.h"

namespace kl {

std::vector<std::string> timing_notes(const RunRecord& r);

}  // namespace kl
