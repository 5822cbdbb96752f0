// The memory roof of a read:write mix. HBM and GDDR turn the bus around between reads and writes,
// so a kernel that reads two bytes for each one it writes (c = a + b) streams faster than a copy,
// and a line drawn at the copy's bandwidth is beaten by correct rungs (vector_add at 104% of it on
// an H200). The calibration therefore measures several streaming kernels, each at its own mix
// (read-only, write-only, 1:1 copy and cudaMemcpy, 2:1), and the roof of a mix is the best of them
// there, linearly interpolated between the mixes measured (the nearest one outside them). A rung's
// mix is its operation's: the bytes of its input buffers over those of all its buffers.
#pragma once
#include <string>
#include <vector>

#include "model/operation.h"

namespace kl {

// One calibration kernel's streaming bandwidth (bytes read + written per second / 1e9).
struct BandwidthPoint {
    std::string kernel;        // "read", "write", "copy", "memcpy", "add"
    double read_fraction = 0;  // bytes read / bytes moved: 1 read-only, 0 write-only, 0.5 copy
    double gbps = 0;
};

// The roof at `read_fraction` (clamped to 0..1), or 0 when no point was measured.
double memory_roof_gbps(const std::vector<BandwidthPoint>& points, double read_fraction);

// The share of an operation's traffic that is reads: input bytes over input + output bytes
// (0.5 when it declares no buffer).
double read_fraction_of(const std::vector<BufferDecl>& buffers);

// A correct run at `gbps` is above its roof when it beats it by more than its own spread
// (rel_spread, (p90 - p10) / median): no honest timing of a kernel that does that work
// can, so it is a measuring error (warm caches, a missing write, a clock read wrong).
bool above_roof(double gbps, double roof_gbps, double rel_spread);

// False when the streaming kernels' best 1:1 point is below half of cudaMemcpy's: the kernels were
// slowed by something the copy engines were not (an instrumenting tool such as compute-sanitizer,
// or another process), so the points are no roof and must not be kept. True without a memcpy point.
bool roof_points_plausible(const std::vector<BandwidthPoint>& points);

}  // namespace kl
