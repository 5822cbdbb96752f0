// How the workbook times GPU work: warm-up calls, then repetitions bracketed by CUDA events on
// the context's stream, each optionally after an L2 flush, until enough repetitions and enough
// timed GPU time. The runner times rungs with it; the calibration times its ceilings (copy
// bandwidth, cuBLAS rates) with it too, so that ceilings and rungs sit on one scale.
#pragma once
#include <cuda_runtime_api.h>

#include <functional>

#include "base/stats.h"
#include "gpu/device_buffer.h"

namespace kl {

class GpuContext;

struct RepetitionPlan {
    int warmup = 2;  // untimed calls first
    int min_reps = 10, max_reps = 300;
    double budget_ms = 400;  // stop after this much timed GPU time (past min_reps)
    // [judge] enqueued before every call, warm-up and timed, ahead of the L2 flush and outside the
    // events: the judge poisons the outputs here, so that each call must write them again.
    std::function<void()> before_each;
};

// Before each cold repetition a buffer twice the size of L2 (at least 64 MiB) is written, a
// different byte each time so that no layer can skip it.
// - A write, not a read: on the H100 a 100 MiB streaming read left a 12 MiB working set mostly
//   in L2 (vector add at 2^20: 7.4 us after a read flush, 7.1 us warm, 9.0 us after a write).
// - The cost: the last L2-full of the write is dirty, and the timed kernel pays for writing it
//   back. KL_L2_FLUSH=write_discard (sm_80 and later) then drops those lines without writing
//   them back (kernels/common/l2_discard.cu): on the H200 that brings large rungs to within
//   0-4% of Nsight Compute (from +1-16%), but a 24 MiB vector add then times within 4% of warm
//   L2, so the write alone does not evict a working set, and the discard is not the default
//   until a flush that does is found. docs/tuning/timing.md, "The cold-L2 flush against ncu".
class L2Flush {
  public:
    explicit L2Flush(GpuContext& gpu);
    void write(int rep);
    bool discards() const { return discard_; }

  private:
    GpuContext& gpu_;
    DeviceBuffer buffer_;
    bool discard_ = false;
};

// Two CUDA events on the context's stream, created checked and released on every way out
// (an error may be propagating): the one stopwatch that the runner, the measuring mistakes
// (launch_modes.cpp) and the traced repetition (kernel_trace.cpp) time stream work with.
class EventTimer {
  public:
    explicit EventTimer(GpuContext& gpu);
    ~EventTimer();
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    // The stream time of what `work` enqueues, in ms: start event, work, stop event, then a
    // wait for the stop event (every call checked).
    float time(const std::function<void()>& work);

  private:
    GpuContext& gpu_;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Times `launch` (which enqueues its work on gpu.stream()) by `plan`; `flush` may be null (warm
// L2). Every CUDA call is checked; events are released on every way out.
TimingStats time_repetitions(GpuContext& gpu, const RepetitionPlan& plan, L2Flush* flush,
                             const std::function<void()>& launch);

}  // namespace kl
