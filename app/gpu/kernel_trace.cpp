#include "gpu/kernel_trace.h"

#include <cupti_activity.h>
#include <cupti_result.h>
#include <dlfcn.h>

#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "base/errors.h"
#include "gpu/cuda_check.h"
#include "gpu/cupti_library.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_context.h"
#include "gpu/timing.h"

namespace kl {

namespace {

struct ActivityApi {
    decltype(&::cuptiActivityEnable) enable = nullptr;
    decltype(&::cuptiActivityDisable) disable = nullptr;
    decltype(&::cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
    decltype(&::cuptiActivityFlushAll) flush_all = nullptr;
    decltype(&::cuptiActivityGetNextRecord) next_record = nullptr;
    decltype(&::cuptiGetResultString) result_string = nullptr;
    decltype(&::cuptiFinalize) finalize = nullptr;
    std::string failure;
    bool registered = false;
};

ActivityApi& activity_api() {
    static ActivityApi api = [] {
        ActivityApi a;
        void* h = cupti_library_handle(&a.failure);
        if (!h) return a;
        auto sym = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
            if (!fn && a.failure.empty()) a.failure = std::string("CUPTI has no ") + name;
        };
        sym(a.enable, "cuptiActivityEnable");
        sym(a.disable, "cuptiActivityDisable");
        sym(a.register_callbacks, "cuptiActivityRegisterCallbacks");
        sym(a.flush_all, "cuptiActivityFlushAll");
        sym(a.next_record, "cuptiActivityGetNextRecord");
        sym(a.result_string, "cuptiGetResultString");
        a.finalize = reinterpret_cast<decltype(a.finalize)>(dlsym(h, "cuptiFinalize"));  // optional
        return a;
    }();
    return api;
}

// CUPTI hands completed buffers to a plain C callback: the spans go to the one sink in use.
std::mutex g_sink_mutex;
std::vector<KernelSpan>* g_sink = nullptr;
int g_incomplete = 0;  // records of the sink's repetition that had no timestamps

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = size_t(8) << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* rec = nullptr;
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    while (activity_api().next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        if (!g_sink || (k->name && is_stopwatch_kernel(k->name))) continue;
        // A record without both timestamps (seen for graph-launched kernels on the H200, CUDA 13)
        // says a kernel ran, not when: counted as dropped, never drawn at time zero.
        if (k->start == 0 || k->end < k->start)
            ++g_incomplete;
        else
            g_sink->push_back({k->name ? k->name : "?", double(k->start) / 1e3, double(k->end) / 1e3});
    }
    std::free(buffer);
}

// A CUPTI failure leaves the run without a timeline (the reason in its note), never fails it.
bool cupti_ok(CUptiResult r, const char* call, std::string* why) {
    if (r == CUPTI_SUCCESS) return true;
    const char* text = nullptr;
    if (activity_api().result_string) activity_api().result_string(r, &text);
    *why = std::string("no timeline: CUPTI ") + call + ": " + (text ? text : "error " + std::to_string(int(r)));
    return false;
}

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
    std::vector<KernelSpan> spans;
    {
        std::lock_guard<std::mutex> lock(g_sink_mutex);
        g_sink = &spans;
        g_incomplete = 0;
    }
    struct Detach {
        ~Detach() {
            std::lock_guard<std::mutex> lock(g_sink_mutex);
            g_sink = nullptr;
        }
    } detach;
    if (flush) flush->write(7);
    launch_stopwatch_hold(gpu, hold.hold_ns, hold.clock_slot);
    const float ms = EventTimer(gpu).time(launch);
    if (!cupti_ok(activity_api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll", why))
        return std::nullopt;
    std::lock_guard<std::mutex> lock(g_sink_mutex);
    return TracedRepetition{ms, std::move(spans), g_incomplete};
}

}  // namespace

std::optional<Timeline> trace_kernels(GpuContext& gpu, L2Flush* flush, const std::function<void()>& launch,
                                      std::string* why, bool detach, bool graph_launch) {
    ActivityApi& api = activity_api();
    if (!api.failure.empty()) {
        *why = "no timeline: " + api.failure;
        return std::nullopt;
    }
    if (!api.registered) {
        if (!cupti_ok(api.register_callbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks",
                      why))
            return std::nullopt;
        api.registered = true;
    }
    const bool concurrent = trace_mode(graph_launch) == "concurrent";
    const CUpti_ActivityKind kind = concurrent ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL : CUPTI_ACTIVITY_KIND_KERNEL;
    struct Off {  // tracing off on every way out; CUPTI detached when asked (see the header)
        ActivityApi& api;
        CUpti_ActivityKind kind;
        bool detach;
        ~Off() {
            api.disable(kind);
            if (detach && api.finalize && api.finalize() == CUPTI_SUCCESS) api.registered = false;
        }
    } off{api, kind, detach && api.finalize};
    gpu.synchronize();
    const double clock_before = measure_sm_clock_mhz(gpu);  // before CUPTI attaches: not traced
    if (!cupti_ok(api.enable(kind),
                  concurrent ? "cuptiActivityEnable(CONCURRENT_KERNEL)" : "cuptiActivityEnable(KERNEL)", why))
        return std::nullopt;
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
