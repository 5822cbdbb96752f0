// A rung's kernels as the GPU ran them during one timed repetition: each kernel's start and end
// from CUPTI's activity records (CUPTI_ACTIVITY_KIND_KERNEL, the profiler's own clock), the gaps
// between them, their summed time beside the CUDA-event time of the same repetition; and the SM
// clock measured around the timing, flagged when it dropped (throttling), as nvbench does. No
// CUDA: the results file carries both (docs/formats.md, "Timeline and clock");
// gpu/kernel_trace.cpp records the spans and probes the clock.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/stats.h"

namespace kl {

struct KernelSpan {
    std::string name;
    double start_us = 0, end_us = 0;  // from the repetition's first kernel start
    double duration_us() const { return end_us - start_us; }
};

struct Timeline {
    std::vector<KernelSpan> kernels;  // in start order
    double event_ms = 0;              // CUDA events around the same repetition
    double kernel_sum_ms = 0;         // sum of the kernels' own durations
    double span_ms = 0;               // first start to last end
    double gap_ms = 0;                // span - the time covered by at least one kernel
    int launches = 0;                 // kernels the records show (may exceed kernels.size())
    int dropped = 0;                  // activity records CUPTI dropped (0 when complete)
    int repetitions = 1;              // traced repetitions this one is the median of (by kernel sum)
    // CUPTI's activity kind: "kernel" (CUPTI_ACTIVITY_KIND_KERNEL, the default) or "concurrent"
    // (CONCURRENT_KERNEL, which instruments every block: docs/tuning/timing.md).
    std::string mode = "kernel";
    double clock_before_mhz = 0, clock_after_mhz = 0;  // SM clock probed around the traced repetitions (0: not)
};

// Sorts the spans, rebases them on the first start and fills sum, span and gaps (overlapping
// kernels count once in the covered time).
Timeline make_timeline(std::vector<KernelSpan> spans, double event_ms, int keep_at_most = 4096);

// The SM clock measured by a probe kernel (clock64 cycles over %globaltimer nanoseconds)
// before and after the timed repetitions, against the device's rated clock; and through them,
// by the stopwatch's hold right before each repetition (gpu/timing.h).
struct ClockReport {
    double rated_mhz = 0;  // cudaDevAttrClockRate: the highest the SMs run at
    double before_mhz = 0, after_mhz = 0;
    bool throttled = false;  // after < kThrottleFraction x rated, or > 10% below before
    // [clock] Through the repetitions (absent from files written before 2026-11-29 evening).
    int sampled_reps = 0;  // repetitions with a clock sample
    double during_min_mhz = 0, during_median_mhz = 0, during_max_mhz = 0;
    int slow_reps = 0;  // repetitions below kFullClockFraction x rated
    // The burst figure: the repetitions at full clock only (the rule above), when there are at
    // least kBurstMinReps of them. The run's own timing, all repetitions, is the sustained figure.
    std::optional<TimingStats> burst;
    // [hold] The stopwatch's hold before each repetition, in us (0: not recorded, files before
    // 2026-11-30 noon). A run of several rungs with a peer among them gives every rung one hold.
    double hold_us = 0;
};
constexpr double kThrottleFraction = 0.75;  // nvbench's default threshold
constexpr double kFullClockFraction = 0.98;
constexpr int kBurstMinReps = 5;
ClockReport make_clock_report(double rated_mhz, double before_mhz, double after_mhz);
// Adds the clock through the repetitions: `ms[i]` timed at `mhz[i]` (same length; a sample of 0
// is missing and counts nowhere).
void add_repetition_clocks(ClockReport& c, const std::vector<double>& ms, const std::vector<double>& mhz);

nlohmann::json to_json(const Timeline& t);
nlohmann::json to_json(const ClockReport& c);
// Throws InputError "<origin>: <field>: <problem>".
Timeline timeline_from_json(const nlohmann::json& j, const std::string& origin, const std::string& field);
ClockReport clock_from_json(const nlohmann::json& j, const std::string& origin, const std::string& field);

}  // namespace kl
