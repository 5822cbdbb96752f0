// How the workbook times GPU work: warm-up calls, then repetitions bracketed by CUDA events on
// the context's stream, each optionally after an L2 flush and always after a hold (a kernel that
// keeps the GPU busy until the host has queued the repetition, so that the events time the GPU's
// work and not the host's launch call), until enough repetitions and enough timed GPU time. The runner times rungs with
// it; the calibration times its ceilings (copy bandwidth, cuBLAS rates) with it too, so that ceilings and rungs sit on
// one scale.
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/stats.h"
#include "gpu/device_buffer.h"
#include "model/results.h"

namespace kl {

class GpuContext;

struct RepetitionPlan {
    int warmup = 2;  // untimed calls first
    int min_reps = 10, max_reps = 300;
    double budget_ms = 400;       // stop after this much timed GPU time (past min_reps)
    long long hold_floor_ns = 0;  // [hold] the hold is at least this (a run's shared hold)
    // [stopwatch] Under KL_STOPWATCH=span each repetition is timed by its span on the GPU's
    // timestamps (span_stopwatch.h), the events' times kept beside, unless `span_refusal` says why
    // not (a graph-launched rung). `span_detach`: detach CUPTI afterwards (no counters pass holds it).
    std::string span_refusal;
    bool span_detach = true;
    // [judge] enqueued before every call, warm-up and timed, ahead of the L2 flush and outside the
    // events: the judge poisons the outputs here, so that each call must write them again.
    std::function<void()> before_each;
};

// Before each cold repetition L2 is left holding nothing of the previous repetition's and
// nothing dirty, the state Nsight Compute's cache control gives a kernel before it times it:
// - The default from sm_80 (store_last_discard): a buffer twice the size of L2 (at least 64 MiB)
//   is written with stores that ask L2 to keep them (evict_last), so they displace every line
//   the rung used, then those lines are dropped without being written back (discard.global.L2;
//   kernels/common/l2_flush.cu, l2_discard.cu).
// - Why: the memset that flushed until 2026-11-29 (`write`) left its last L2-full dirty, and
//   the timed kernel paid for writing it back: on the H200, +7.4% over ncu for GeLU, +12% for a
//   softmax, where this flush reads +2.5% and +3.7% (the rest is the launch inside the events
//   and the clock). docs/tuning/timing.md, "The cold-L2 flush against ncu".
// - Below sm_80 there are no L2 hints or discards: the memset, dirt and all (`write`).
// - The lab's other variants (KL_L2_FLUSH): write_discard, store_discard, read_last.
// - KL_L2_FLUSH_AFTER (lab), a step after the flush: `touch` reads one byte of every 64 KiB of the
//   rung's buffers and discards its line (kernels/common/tlb_touch.cu), so that the rung's address
//   translations are warm, as after Nsight Compute's flush, while L2 holds none of its lines;
//   `reset` calls cudaCtxResetPersistingL2Cache (every persisting line made normal).
class L2Flush {
  public:
    enum class Mode { Memset, MemsetDiscard, StoreDiscard, StoreLastDiscard, ReadLast };
    explicit L2Flush(GpuContext& gpu);
    void write(int rep);
    Mode mode() const { return mode_; }
    std::string name() const;  // KL_L2_FLUSH's name of the mode ("+touch" or "+reset" with KL_L2_FLUSH_AFTER)
    bool discards() const {
        return mode_ == Mode::MemsetDiscard || mode_ == Mode::StoreDiscard || mode_ == Mode::StoreLastDiscard;
    }

  private:
    GpuContext& gpu_;
    DeviceBuffer buffer_;
    Mode mode_ = Mode::Memset;
    std::string after_;                   // KL_L2_FLUSH_AFTER: "", "touch" or "reset"
    std::unique_ptr<DeviceBuffer> sink_;  // read_last's never-written result
    void flush_only(int rep);
    void touch_pages();
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

// Each timed repetition's event time, and the SM clock the hold measured right before it (MHz;
// the clock moves on a scale of milliseconds, so it is the repetition's clock too).
struct TimedRepetitions {
    std::vector<double> ms, clock_mhz;
    long long hold_ns = 0;  // the hold before each repetition
    // [stopwatch] "events" or "span": what `ms` holds. Under "span", event_ms holds the same
    // repetitions' event times; span asked for and not taken: "events" and the reason.
    std::string stopwatch = "events";
    std::string stopwatch_note;
    std::vector<double> event_ms;
};
// Times `launch` (which enqueues its work on gpu.stream()) by `plan`; `flush` may be null (warm
// L2). Every CUDA call is checked; events are released on every way out.
TimedRepetitions time_each_repetition(GpuContext& gpu, const RepetitionPlan& plan, L2Flush* flush,
                                      const std::function<void()>& launch);
// The stopwatch's hold (see timing.cpp) for launches whose host side took `enqueue_seconds`, and
// its kernel enqueued on gpu.stream(): the GPU waits that long, then writes the SM clock's two
// counters (16 bytes) to `clock_slot`. The kernel trace holds its traced repetition the same way.
long long stopwatch_hold_ns(const std::vector<double>& enqueue_seconds);
void launch_stopwatch_hold(GpuContext& gpu, long long hold_ns, void* clock_slot);
// [stopwatch] The record's stopwatch fields from `reps` (results.h).
void record_stopwatch(const TimedRepetitions& reps, RunRecord& rec);
// The same, summarized.
TimingStats time_repetitions(GpuContext& gpu, const RepetitionPlan& plan, L2Flush* flush,
                             const std::function<void()>& launch);

}  // namespace kl
