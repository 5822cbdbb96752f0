// Architecture names and the facts of an architecture the runtime does not report: "sm_90a" ->
// 90 (specific), 90 -> "Hopper", allocation units for occupancy. Manifests (a rung's `arch` and
// `min_arch`), device profiles and the runner all read them.
#pragma once
#include <string>

#include "model/device_info.h"

namespace kl {

// "sm_86" -> 86, "sm_90a" -> 90 (specific = true), "sm_120" -> 120; -1 when malformed.
struct ArchName {
    int cc = -1;
    bool specific = false;  // the "a" targets: code that runs only on this exact architecture
};
ArchName parse_arch(const std::string& text);
std::string arch_name(int cc);    // 90 -> "sm_90"
std::string arch_family(int cc);  // 90 -> "Hopper", 86 -> "Ampere", 75 -> "Turing"
// "needs sm_90 (Hopper)": the short label the window and `run all` show.
std::string arch_need_label(int cc);

// The per-architecture facts the runtime does not report (allocation units, sub-partitions,
// reserved shared memory), as the CUDA occupancy calculator (cuda_occupancy.h) has them.
void fill_arch_constants(DeviceLimits& limits, int cc);

}  // namespace kl
