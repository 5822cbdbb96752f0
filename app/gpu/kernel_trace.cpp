#include "gpu/kernel_trace.h"

#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "base/errors.h"
#include "gpu/cuda_check.h"
#include "gpu/cupti_activity.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_context.h"
#include "gpu/span_stopwatch.h"
#include "gpu/timing.h"

namespace kl {

namespace {

// The traced repetition's kernels, the stopwatch's own left out (is_stopwatch_kernel).
struct TraceSink {
    std::vector<KernelSpan> spans;
    int incomplete = 0;  // records of the repetition that had no timestamps
    void take(const ActivityRecord& r) {
        if (r.kind != ActivityRecord::Kind::Kernel || is_stopwatch_kernel(r.name)) return;
        // A record without both timestamps (seen for graph-launched kernels on the H200, CUDA 13)
        // says a kernel ran, not when: counted as dropped, never drawn at time zero.
        if (!r.timed())
            ++incomplete;
        else
            spans.push_back({r.name, double(r.start_ns) / 1e3, double(r.end_ns) / 1e3});
    }
};

}  // namespace

std::string trace_mode(bool graph_launch) {
    const char* v = std::getenv("KL_TIMELINE_KIND");
    return graph_launch || (v && std::strcmp(v, "concurrent") == 0) ? "concurrent" : "kernel";
}

namespace {

// One repetition between CUDA events, its kernels collected from CUPTI's buffers.
struct HoldPlan {
    long long hold_ns = 0;
    void* clock_slot = nullptr;
};

struct TracedRepetition {
    float event_ms = 0;
    std::vector<KernelSpan> spans;
    int incomplete = 0;
};

// As a timed repetition (timing.cpp): the flush, the hold, then the launches between events. The
// flush's and the hold's kernels are the stopwatch's, not the rung's: their records are left out
// (is_stopwatch_kernel), so the timeline's kernels, sum, span and gaps are the rung's alone.
std::optional<TracedRepetition> traced_repetition(GpuContext& gpu, L2Flush* flush, const std::function<void()>& launch,
                                                  const HoldPlan& hold, std::string* why) {
    TraceSink sink;
    float ms = 0;
    {
        ActivitySink route([&sink](const ActivityRecord& r) { sink.take(r); });
        if (flush) flush->write(7);
        launch_stopwatch_hold(gpu, hold.hold_ns, hold.clock_slot);
        ms = EventTimer(gpu).time(launch);
        if (!flush_activity(why)) {
            *why = "no timeline: " + *why;
            return std::nullopt;
        }
    }
    return TracedRepetition{ms, std::move(sink.spans), sink.incomplete};
}

}  // namespace

std::optional<Timeline> trace_kernels(GpuContext& gpu, L2Flush* flush, const std::function<void()>& launch,
                                      std::string* why, bool detach, bool graph_launch) {
    if (std::string not_ready = activity_ready(); !not_ready.empty()) {
        *why = "no timeline: " + not_ready;
        return std::nullopt;
    }
    const bool concurrent = trace_mode(graph_launch) == "concurrent";
    const CUpti_ActivityKind kind = concurrent ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL : CUPTI_ACTIVITY_KIND_KERNEL;
    struct Off {  // tracing off on every way out; CUPTI detached when asked (see the header)
        CUpti_ActivityKind kind;
        bool detach;
        ~Off() {
            disable_activity(kind);
            if (detach) detach_activity();
        }
    } off{kind, detach};
    gpu.synchronize();
    const double clock_before = measure_sm_clock_mhz(gpu);  // before CUPTI attaches: not traced
    if (!enable_activity(kind, why)) {
        *why = "no timeline: " + *why;
        return std::nullopt;
    }
    // The first traced repetition pays CUPTI's set-up (on the H100 a 4.5 us kernel's repetition
    // took 1.7 ms of events): it is run and dropped. Of the next ones, the median by kernel sum.
    // The hold is the stopwatch's, from the host time of the dropped first repetition's launches.
    DeviceBuffer hold_clock("kl_trace_hold_clock", DType::F32, 4);
    std::vector<double> enqueue_seconds;
    const auto timed_launch = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        launch();
        if (enqueue_seconds.empty())
            enqueue_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    };
    std::vector<TracedRepetition> reps;
    for (int i = 0; i < 1 + kTracedRepetitions; ++i) {
        const HoldPlan hold{i == 0 ? 0 : stopwatch_hold_ns(enqueue_seconds), hold_clock.data()};
        auto rep = traced_repetition(gpu, flush, timed_launch, hold, why);
        if (!rep) return std::nullopt;
        if (i > 0) reps.push_back(std::move(*rep));
    }
    const double clock_after = measure_sm_clock_mhz(gpu);  // its record, if any, goes to no sink
    std::vector<Timeline> lines;
    for (auto& rep : reps) {
        if (rep.spans.empty()) {
            *why = rep.incomplete > 0 ? "no timeline: CUPTI gave " + std::to_string(rep.incomplete) +
                                            " kernel records without timestamps for a traced repetition"
                                      : "no timeline: CUPTI recorded no kernel for a traced repetition";
            return std::nullopt;
        }
        lines.push_back(make_timeline(std::move(rep.spans), rep.event_ms));
        lines.back().dropped = rep.incomplete;
    }
    std::sort(lines.begin(), lines.end(),
              [](const Timeline& a, const Timeline& b) { return a.kernel_sum_ms < b.kernel_sum_ms; });
    Timeline median = lines[lines.size() / 2];
    median.repetitions = static_cast<int>(lines.size());
    median.mode = concurrent ? "concurrent" : "kernel";
    median.clock_before_mhz = clock_before;
    median.clock_after_mhz = clock_after;
    return median;
}

double measure_sm_clock_mhz(GpuContext& gpu) {
    const std::string name = "kl_clock_probe";
    DeviceBuffer& out = gpu.add_buffer(name, DType::F32, 4);  // two 64-bit counters
    struct Remove {
        GpuContext& g;
        const std::string& n;
        ~Remove() { g.remove_buffer(n); }
    } remove{gpu, name};
    const int64_t cycles = 2000000;  // about 1 ms at 2 GHz: globaltimer's steps are far finer
    gpu.launch_helper("common/clock_probe.cu", "kl_clock_probe", dim3(1), dim3(32),
                      {KernelArg::pointer(out.data()), KernelArg::i64v(cycles)});
    std::vector<unsigned char> bytes = gpu.download_bytes(out, 0, 16);
    unsigned long long v[2];
    std::memcpy(v, bytes.data(), sizeof v);
    return v[1] > 0 ? double(v[0]) / double(v[1]) * 1e3 : 0.0;
}

double rated_sm_clock_mhz(GpuContext& gpu) {
    int dev = 0, khz = 0;
    KL_CUDA_CALL(cudaGetDevice(&dev));
    KL_CUDA_CALL(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    (void)gpu;
    return khz / 1e3;
}

}  // namespace kl
