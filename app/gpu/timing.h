// How the workbook times GPU work: warm-up calls, then repetitions bracketed by CUDA events on
// the context's stream, each optionally after an L2 flush, until enough repetitions and enough
// timed GPU time. The runner times rungs with it; the calibration times its ceilings (copy
// bandwidth, cuBLAS rates) with it too, so that ceilings and rungs sit on one scale.
#pragma once
#include <functional>

#include "base/stats.h"
#include "gpu/device_buffer.h"

namespace kl {

class GpuContext;

struct RepetitionPlan {
    int warmup = 2;  // untimed calls first
    int min_reps = 10, max_reps = 300;
    double budget_ms = 400;  // stop after this much timed GPU time (past min_reps)
};

// A buffer twice the size of L2 (at least 64 MiB), written before each cold repetition, a
// different byte each time so that no layer can skip it.
// A write, not a read: on the H100 a 100 MiB streaming read left a 12 MiB working set mostly in
// L2 (vector add at 2^20: 7.4 us after a read flush, 7.1 us warm, 9.0 us after this write).
// The cost: the timed work pays for writing back some of the flush's dirty lines, which puts
// our times ~1.5-3% above Nsight Compute's (its cache control flushes outside the kernel); see
// docs/tuning/elementwise.md.
class L2Flush {
  public:
    explicit L2Flush(GpuContext& gpu);
    void write(int rep);

  private:
    GpuContext& gpu_;
    DeviceBuffer buffer_;
};

// Times `launch` (which enqueues its work on gpu.stream()) by `plan`; `flush` may be null (warm
// L2). Every CUDA call is checked; events are released on every way out.
TimingStats time_repetitions(GpuContext& gpu, const RepetitionPlan& plan, L2Flush* flush,
                             const std::function<void()>& launch);

}  // namespace kl
