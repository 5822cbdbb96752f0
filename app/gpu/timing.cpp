#include "gpu/timing.h"

#include <algorithm>
#include <vector>

#include "gpu/cuda_check.h"
#include "gpu/gpu_context.h"

namespace kl {

L2Flush::L2Flush(GpuContext& gpu)
    : gpu_(gpu), buffer_("l2_flush", DType::F32, std::max<int64_t>(2 * gpu.device().l2_bytes, 64 << 20) / 4) {}

void L2Flush::write(int rep) {
    KL_CUDA_CALL(cudaMemsetAsync(buffer_.data(), rep & 0xff, buffer_.bytes(), gpu_.stream()));
}

TimingStats time_repetitions(GpuContext& gpu, const RepetitionPlan& plan, L2Flush* flush,
                             const std::function<void()>& launch) {
    for (int i = 0; i < plan.warmup; ++i) launch();
    gpu.synchronize();
    struct Events {
        cudaEvent_t start = nullptr, stop = nullptr;
        Events() {
            KL_CUDA_CALL(cudaEventCreate(&start));
            KL_CUDA_CALL(cudaEventCreate(&stop));
        }
        ~Events() {  // unchecked: may run while an error propagates
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
        }
    } ev;
    std::vector<double> samples;
    double total_ms = 0;
    while (static_cast<int>(samples.size()) < plan.max_reps &&
           (static_cast<int>(samples.size()) < plan.min_reps || total_ms < plan.budget_ms)) {
        if (flush) flush->write(static_cast<int>(samples.size()));
        KL_CUDA_CALL(cudaEventRecord(ev.start, gpu.stream()));
        launch();
        KL_CUDA_CALL(cudaEventRecord(ev.stop, gpu.stream()));
        KL_CUDA_CALL(cudaEventSynchronize(ev.stop));
        float ms = 0;
        KL_CUDA_CALL(cudaEventElapsedTime(&ms, ev.start, ev.stop));
        samples.push_back(ms);
        total_ms += ms;
    }
    return summarize(samples);
}

}  // namespace kl
