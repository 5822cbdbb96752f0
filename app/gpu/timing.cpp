#include "gpu/timing.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/errors.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_context.h"

namespace kl {

namespace {
// The discard is the lab's choice (KL_L2_FLUSH=write_discard, sm_80 and later), not yet the
// default (timing.h says why); any other value than write or write_discard is refused.
bool flush_discards(const DeviceInfo& device) {
    const char* choice = std::getenv("KL_L2_FLUSH");
    if (!choice || !*choice || std::string(choice) == "write") return false;
    if (std::string(choice) != "write_discard")
        throw InputError(std::string("KL_L2_FLUSH: '") + choice + "' is not a flush (write or write_discard)");
    if (device.cc() < 80) throw InputError("KL_L2_FLUSH=write_discard needs sm_80 or later (discard.global.L2)");
    return true;
}
}  // namespace

L2Flush::L2Flush(GpuContext& gpu)
    : gpu_(gpu),
      buffer_("l2_flush", DType::F32, std::max<int64_t>(2 * gpu.device().l2_bytes, 64 << 20) / 4),
      discard_(flush_discards(gpu.device())) {}

void L2Flush::write(int rep) {
    KL_CUDA_CALL(cudaMemsetAsync(buffer_.data(), rep & 0xff, buffer_.bytes(), gpu_.stream()));
    if (!discard_) return;
    const long long lines = static_cast<long long>(buffer_.bytes() / 128);
    const unsigned blocks = static_cast<unsigned>(std::min<long long>((lines + 255) / 256, 4096));
    gpu_.launch_helper("common/l2_discard.cu", "kl_l2_discard", dim3(blocks), dim3(256),
                       {KernelArg::pointer(buffer_.data()), KernelArg::i64v(lines)});
}

EventTimer::EventTimer(GpuContext& gpu) : gpu_(gpu) {
    KL_CUDA_CALL(cudaEventCreate(&start_));
    const cudaError_t err = cudaEventCreate(&stop_);
    if (err != cudaSuccess) {  // the destructor does not run for a constructor that throws
        cudaEventDestroy(start_);
        throw_cuda_error(err, "cudaEventCreate", __FILE__, __LINE__);
    }
}

EventTimer::~EventTimer() {  // unchecked: may run while an error propagates
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
}

float EventTimer::time(const std::function<void()>& work) {
    KL_CUDA_CALL(cudaEventRecord(start_, gpu_.stream()));
    work();
    KL_CUDA_CALL(cudaEventRecord(stop_, gpu_.stream()));
    KL_CUDA_CALL(cudaEventSynchronize(stop_));
    float ms = 0;
    KL_CUDA_CALL(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
}

TimingStats time_repetitions(GpuContext& gpu, const RepetitionPlan& plan, L2Flush* flush,
                             const std::function<void()>& launch) {
    for (int i = 0; i < plan.warmup; ++i) {
        if (plan.before_each) plan.before_each();
        launch();
    }
    gpu.synchronize();
    EventTimer timer(gpu);
    std::vector<double> samples;
    double total_ms = 0;
    while (static_cast<int>(samples.size()) < plan.max_reps &&
           (static_cast<int>(samples.size()) < plan.min_reps || total_ms < plan.budget_ms)) {
        if (plan.before_each) plan.before_each();
        if (flush) flush->write(static_cast<int>(samples.size()));
        const float ms = timer.time(launch);
        samples.push_back(ms);
        total_ms += ms;
    }
    return summarize(samples);
}

}  // namespace kl
