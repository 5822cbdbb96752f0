// Device descriptions without the device: a profile file (assets/devices/*.json) holds what the
// runtime would report for one GPU (SM count, registers and shared memory per SM and per block,
// compute capability, limits), so the gating, launch-check and occupancy logic can be tested
// and taught for a T4, an RTX 3090 or an L4 on a machine with no GPU. Format: docs/formats.md.
// Also: what a rung needs from the device (architecture names: arch.h).
#pragma once
#include <string>
#include <vector>

#include "model/arch.h"
#include "model/device_info.h"

namespace kl {

struct Rung;

// Why this rung cannot run on a device of compute capability `device_cc`, or "" when it can:
// "needs sm_90 (Hopper): wgmma and TMA are Hopper instructions". A rung built for an "a"
// target (sm_90a) runs only on that exact architecture.
std::string rung_arch_refusal(const Rung& rung, int device_cc);

// What `run all` does on a device of compute capability `device_cc`: every rung in ladder
// order, with the reason it is skipped ("" for the rungs that run).
struct RungPlan {
    const Rung* rung = nullptr;
    std::string skip;
};
struct Ladder;
std::vector<RungPlan> plan_run_all(const Ladder& ladder, int device_cc);

// Reads a profile; throws InputError "<path>: <field>: <problem>" on anything malformed.
DeviceInfo load_device_profile(const std::string& path);
DeviceInfo device_profile_from_json_text(const std::string& text, const std::string& origin);

}  // namespace kl
