// Launch resources as run metrics: course/bound_resources.h.
#include "course/bound_resources.h"

namespace kl {

bool is_resource_metric(const std::string& metric) {
    return metric == "regs" || metric == "regs_per_block" || metric == "occupancy" || metric == "resident_blocks";
}

std::optional<double> resource_metric(const RunRecord& run, const std::string& metric) {
    if (!is_resource_metric(metric)) return std::nullopt;
    const LaunchResources* launch = run.main_launch();
    // A launch the recording could not read (a library kernel) has no registers: not a figure.
    if (!launch || launch->kernel.regs_per_thread <= 0) return std::nullopt;
    const Occupancy& o = launch->occupancy;
    if (metric == "regs") return launch->kernel.regs_per_thread;
    if (metric == "regs_per_block")
        return o.regs_per_block > 0 ? std::optional<double>(double(o.regs_per_block)) : std::nullopt;
    if (o.max_warps <= 0) return std::nullopt;  // occupancy not computed for this launch
    if (metric == "occupancy") return o.fraction() * 100;
    return o.blocks_per_sm;  // resident_blocks
}

}  // namespace kl
