// The GPU's own stopwatch (issue 36, "One clock"): a timed repetition's time from the start of its
// first kernel, memset or memcpy to the end of its last, on the GPU's timestamps, from CUPTI
// activity records (KIND_KERNEL: kernels serialized, not instrumented; docs/tuning/timing.md). For
// one kernel that is what Nsight Compute's gpu__time_duration measures. CUDA events add the
// launch's front end inside their bracket (about 1-1.5 us a repetition on the H200), which is 3-4%
// of a 35 us kernel and nothing on a millisecond one.
//
// KL_STOPWATCH picks the stopwatch for the whole process, so that the calibration's ceilings, the
// rungs and the PyTorch peers (they run in this process: their kernels are recorded alike) share
// it: "events" (the default) or "span". Where the span cannot be taken (no CUPTI, a graph-launched
// rung, a record without timestamps) the events' time is kept and the record says why.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gpu/cupti_activity.h"

namespace kl {

// The runner's own kernels (kernels/common/: the flushes, the hold, the page touch, the clock
// probe), which neither a rung's span nor its timeline counts.
bool is_stopwatch_kernel(const std::string& name);

enum class Stopwatch { Events, GpuSpan };
// KL_STOPWATCH; InputError naming the value when it names no stopwatch.
Stopwatch requested_stopwatch();
const char* stopwatch_name(Stopwatch s);  // "events" or "span"

// Records kernels, memsets and memcpys while it lives. Each timed repetition is bracketed by two
// of the stopwatch's own kernels (timing.cpp): the hold queued before it, and a hold of zero
// queued after its stop event. What ran between them is the repetition's.
class SpanRecorder {
  public:
    // Enables the records; nullptr with *why when CUPTI cannot record here. `detach`: detach CUPTI
    // when done (kernel_trace.h: later launches run without it), unless a counters pass holds it.
    static std::unique_ptr<SpanRecorder> start(std::string* why, bool detach);
    ~SpanRecorder();
    SpanRecorder(const SpanRecorder&) = delete;
    SpanRecorder& operator=(const SpanRecorder&) = delete;
    // Each repetition's span in ms, in order; empty with *why when they cannot be told apart.
    // *most_items: the most kernels, memsets and memcpys one repetition held.
    std::vector<double> spans_ms(size_t repetitions, std::string* why, int* most_items);

  private:
    explicit SpanRecorder(bool detach);
    bool detach_ = true;
    int enabled_ = 0;  // how many of the kinds were enabled (disabled again in that order)
    std::vector<ActivityRecord> records_;
    std::unique_ptr<ActivitySink> sink_;
};

// The pairing alone (tests): the records sorted by start; each hold opens a repetition and the next
// closes it; other stopwatch kernels are left out. Empty with *why when any record has no
// timestamps, a bracket holds nothing, or there are not `repetitions` brackets.
std::vector<double> bracketed_spans_ms(std::vector<ActivityRecord> records, size_t repetitions, std::string* why,
                                       int* most_items = nullptr);
// The note a span record carries when its repetitions held several items: CUPTI's serialized
// records lengthen every launch on the GPU (the launch ladder's 256 short kernels, docs/tuning/timing.md).
std::string several_items_note(int most_items);

}  // namespace kl
