#include "gpu/launch_modes.h"

#include <chrono>
#include <thread>
#include <vector>

#include "base/errors.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_context.h"

namespace kl {

int64_t launch_repeat(const LaunchSpec& spec, const Scope& scope, const std::string& label) {
    if (spec.repeat.empty()) return 1;
    const int64_t n = spec.repeat.eval(scope);
    if (n < 0 || n > kMaxRepeat)
        throw InputError(label + ": launch '" + spec.entry + "' repeat '" + spec.repeat.text() +
                         "' = " + std::to_string(n) + " is outside 0.." + std::to_string(kMaxRepeat));
    return n;
}

GraphReplay::GraphReplay(GpuContext& gpu, const std::function<void()>& enqueue, const std::string& label)
    : gpu_(gpu), label_(label) {
    // Thread-local capture: other threads' CUDA calls (a cuBLAS handle elsewhere) are not
    // forbidden while this stream records.
    KL_CUDA_CALL(cudaStreamBeginCapture(gpu_.stream(), cudaStreamCaptureModeThreadLocal));
    try {
        enqueue();
    } catch (...) {
        cudaGraph_t broken = nullptr;  // end the capture whatever happened, then rethrow
        cudaStreamEndCapture(gpu_.stream(), &broken);
        if (broken) cudaGraphDestroy(broken);
        throw;
    }
    KL_CUDA_CALL(cudaStreamEndCapture(gpu_.stream(), &graph_));
    KL_CUDA_CALL(cudaGraphGetNodes(graph_, nullptr, &nodes_));
    KL_CUDA_CALL(cudaGraphInstantiate(&exec_, graph_, 0));
}

GraphReplay::~GraphReplay() {  // unchecked: may run while an error propagates
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
}

void GraphReplay::launch() { KL_CUDA_CALL(cudaGraphLaunch(exec_, gpu_.stream())); }

namespace {

TimingStats first_launch(GpuContext& gpu, const std::function<void()>& launch) {
    return summarize({double(EventTimer(gpu).time(launch))});
}

TimingStats host_clock_no_sync(GpuContext& gpu, const RepetitionPlan& plan, const std::function<void()>& launch) {
    for (int i = 0; i < plan.warmup; ++i) launch();
    gpu.synchronize();
    std::vector<double> samples;
    for (int i = 0; i < plan.min_reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        launch();  // the mistake: the clock is read while the GPU may not have started
        const auto t1 = std::chrono::steady_clock::now();
        samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        gpu.synchronize();  // outside the clock: the next sample starts from an idle stream
    }
    return summarize(samples);
}

// What a quick benchmark script does: a couple of warm-up calls and 20 timed ones. Idle first,
// so a run that follows other work starts from the clock a fresh script would see.
TimingStats short_burst(GpuContext& gpu, L2Flush* flush, const std::function<void()>& launch) {
    gpu.synchronize();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    RepetitionPlan burst;
    burst.warmup = 2;
    burst.min_reps = burst.max_reps = kShortBurstReps;
    burst.budget_ms = 0;
    return time_repetitions(gpu, burst, flush, launch);
}

}  // namespace

std::optional<TimingStats> time_wrong_way(RunMode mode, GpuContext& gpu, const RepetitionPlan& plan,
                                          const std::function<void()>& launch, L2Flush* flush) {
    switch (mode) {
        case RunMode::NoWarmup: return first_launch(gpu, launch);
        case RunMode::HostClockNoSync: return host_clock_no_sync(gpu, plan, launch);
        case RunMode::WarmL2: return time_repetitions(gpu, plan, nullptr, launch);
        case RunMode::ShortBurst: return short_burst(gpu, flush, launch);
        case RunMode::Normal: break;
    }
    return std::nullopt;
}

}  // namespace kl
