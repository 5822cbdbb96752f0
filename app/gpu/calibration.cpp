#include "gpu/calibration.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "base/atomic_file.h"
#include "base/json_input.h"
#include "base/paths.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_context.h"
#include "gpu/timing.h"
#include "model/results_json.h"

namespace kl {

namespace {

double gemm_tflops(GpuContext& gpu, const char* builtin, DType in_type, int n) {
    DeviceBuffer A("calib_a", in_type, int64_t(n) * n), B("calib_b", in_type, int64_t(n) * n),
        C("calib_c", DType::F32, int64_t(n) * n);
    gpu.fill_uniform(A, 1);  // random, never zeros: zeros run faster than real data
    gpu.fill_uniform(B, 2);
    std::vector<KernelArg> args = {KernelArg::pointer(C.data()), KernelArg::pointer(A.data()),
                                   KernelArg::pointer(B.data()), KernelArg::i32v(n),
                                   KernelArg::i32v(n),           KernelArg::i32v(n)};
    // Timed as the runner times a rung (timing.h: two warm-ups, L2 flushed before each call,
    // 0.4 s), so that the ceiling and the rungs drawn against it sit on one scale. How much the
    // protocol matters, cuBLAS bf16 at 4096^3 on an H100 (2026-11-22, one session): 634-639
    // TFLOP/s back to back for 0.3 s (the clocks drop under sustained tensor-core load), 692 with
    // one warm-up and ten calls, 741-758 like this, against 756-761 for the `cublas_bf16` rung.
    L2Flush flush(gpu);
    double ms = time_repetitions(gpu, RepetitionPlan{}, &flush, [&] { gpu.run_builtin(builtin, args); }).median_ms;
    return 2.0 * n * n * double(n) / (ms * 1e-3) / 1e12;
}

}  // namespace

Calibration measure_calibration(GpuContext& gpu) {
    ScopedContext ctx("calibration");
    Calibration c;
    c.device_uuid = gpu.device().uuid;
    c.measured_at = iso_now_utc();
    {
        // 1 GiB each way: far larger than L2, so the copy streams from and to DRAM.
        const int64_t bytes = int64_t(1) << 30;
        DeviceBuffer src("calib_src", DType::F32, bytes / 4), dst("calib_dst", DType::F32, bytes / 4);
        gpu.fill_uniform(src, 3);
        RepetitionPlan plan;
        plan.min_reps = 20;
        // 1 GiB each way: L2 holds none of it anyway, so no flush.
        double ms =
            time_repetitions(gpu, plan, nullptr, [&] {
                KL_CUDA_CALL(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, gpu.stream()));
            }).median_ms;
        c.copy_gbps = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;  // bytes read + bytes written
    }
    c.sgemm_tflops = gemm_tflops(gpu, "cublas_sgemm", DType::F32, 4096);
    c.bf16_tflops = gemm_tflops(gpu, "cublas_bf16", DType::BF16, 4096);
    c.fp32_peak_tflops = gpu.device().fp32_peak_flops() / 1e12;
    return c;
}

Calibration load_or_measure_calibration(GpuContext& gpu, bool force) {
    // ".v2": measured with the runner's protocol; caches of the earlier back-to-back one are not reused.
    const std::string path = cache_dir("calibration") + "/" + gpu.device().uuid + ".v2.json";
    if (!force && std::filesystem::exists(path)) {
        try {
            Calibration c = calibration_from_json(parse_json_limited(read_file(path), path), path);
            if (c.valid() && c.device_uuid == gpu.device().uuid) return c;
        } catch (const std::exception&) {
            // A damaged cache is measured again and overwritten.
        }
    }
    Calibration c = measure_calibration(gpu);
    try {
        write_file_atomically(path, to_json(c).dump(1) + "\n");
    } catch (const Error&) {
        // An unwritable cache only costs a new measurement next time.
    }
    return c;
}

}  // namespace kl
