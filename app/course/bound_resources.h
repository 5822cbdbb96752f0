// What a lesson can bind of a run's recorded launch resources (results schema v2: `resources`,
// one entry per kernel launch, docs/formats.md section 3): the registers per thread ptxas gave
// the kernel, the registers a block is allocated, and the theoretical occupancy on the run's GPU.
// They are read from the run's main launch (RunRecord::main_launch: the lowest occupancy, then
// the most registers: the kernel the summaries show), so that a rung whose first launch is a
// small preparing kernel still answers with the kernel that does the work.
#pragma once
#include <optional>
#include <string>

#include "model/results.h"

namespace kl {

// "regs", "regs_per_block", "occupancy" and "resident_blocks".
bool is_resource_metric(const std::string& metric);

// The figure of the run's main launch; nullopt when the metric is not one of the above or the
// run carries no resources (a recording of schema v1, a library launch): unresolved, never 0.
std::optional<double> resource_metric(const RunRecord& run, const std::string& metric);

}  // namespace kl
