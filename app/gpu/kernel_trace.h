// The GPU side of model/timeline.h: one repetition of a rung traced with CUPTI's activity API
// (each kernel's start and end on the profiler's clock), and the SM clock measured by a probe
// kernel. CUPTI is loaded with dlopen (counters_cupti.cpp's loader), so programs start without
// it; where it cannot be used, the reason goes into the record's timeline_note.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "model/timeline.h"

namespace kl {

class GpuContext;
class L2Flush;

// Traces `launch` with CUPTI's kernel activity records: one repetition to absorb CUPTI's
// set-up (dropped), then kTracedRepetitions more, each after an L2 flush when `flush` is given
// and between CUDA events; the one with the median kernel sum is returned. nullopt with *why
// when CUPTI cannot trace here. `detach`: call cuptiFinalize afterwards, so that later launches
// in this process run without CUPTI attached (on the H100, 256 graph-replayed kernels took 0.38
// ms after a trace without it, 0.29 ms in a process never traced); the runner passes false
// once its counters pass holds CUPTI's profiler.
// The activity kind: CUPTI_ACTIVITY_KIND_KERNEL by default. CONCURRENT_KERNEL instruments every
// thread block to stamp it, which made kernels of a million small blocks 4-7% slower than
// untraced (docs/tuning/timing.md); KERNEL serializes kernels instead, which a rung on one stream
// does anyway. KL_TIMELINE_KIND=concurrent selects the concurrent kind, for that comparison.
// A rung launched as a CUDA graph (`graph_launch`) is traced with the concurrent kind: the
// KERNEL kind gave 255 of its 256 kernels no timestamps (H200, driver 580, CUDA 13.0).
// The SM clock is probed before and after the traced repetitions (Timeline::clock_*_mhz).
std::string trace_mode(bool graph_launch);  // "kernel" or "concurrent"
constexpr int kTracedRepetitions = 5;
std::optional<Timeline> trace_kernels(GpuContext& gpu, L2Flush* flush, const std::function<void()>& launch,
                                      std::string* why, bool detach, bool graph_launch);

// The SM clock in MHz now (a ~1 ms probe kernel on one SM), and the device's rated clock.
double measure_sm_clock_mhz(GpuContext& gpu);
double rated_sm_clock_mhz(GpuContext& gpu);

}  // namespace kl
