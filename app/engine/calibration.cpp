#include "calibration.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "atomic_file.h"
#include "builtins.h"
#include "cuda_check.h"
#include "gpu_context.h"
#include "paths.h"

namespace kl {

namespace {

// Median time of `fn` measured the way the runner measures a rung (runner.cpp): two warm-up
// calls, then timed calls, each after `before_each` (untimed), until there are `min_reps` of
// them and 0.4 s of timed work (at most 300). Ceilings measured like this sit on the same scale
// as the rungs drawn against them. How much the protocol matters, cuBLAS bf16 at 4096^3 on an
// H100 (2026-11-22, one session): 634-639 TFLOP/s back to back for 0.3 s (the clocks drop under
// sustained tensor-core load), 692 with one warm-up and ten calls, 751-756 with the L2 flushed
// before each call as the runner does.
template <class F, class G> double median_ms(GpuContext& gpu, int min_reps, F fn, G before_each) {
    for (int i = 0; i < 2; ++i) fn();
    gpu.synchronize();
    cudaEvent_t a, b;
    KL_CUDA_CALL(cudaEventCreate(&a));
    KL_CUDA_CALL(cudaEventCreate(&b));
    std::vector<double> t;
    double total_ms = 0;
    while ((int(t.size()) < min_reps || total_ms < 400.0) && t.size() < 300) {
        before_each(int(t.size()));
        KL_CUDA_CALL(cudaEventRecord(a, gpu.stream()));
        fn();
        KL_CUDA_CALL(cudaEventRecord(b, gpu.stream()));
        KL_CUDA_CALL(cudaEventSynchronize(b));
        float ms = 0;
        KL_CUDA_CALL(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
        total_ms += ms;
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

double gemm_tflops(GpuContext& gpu, const char* builtin, DType in_type, int n) {
    DeviceBuffer A("calib_a", in_type, int64_t(n) * n), B("calib_b", in_type, int64_t(n) * n), C("calib_c", DType::F32, int64_t(n) * n);
    gpu.fill_uniform(A, 1);  // random, never zeros: zeros run faster than real data
    gpu.fill_uniform(B, 2);
    std::vector<KernelArg> args = {KernelArg::pointer(C.data()), KernelArg::pointer(A.data()), KernelArg::pointer(B.data()),
                                   KernelArg::i32v(n), KernelArg::i32v(n), KernelArg::i32v(n)};
    // The runner's cold-L2 protocol: a buffer twice the L2 size written before each call.
    DeviceBuffer flush("calib_l2_flush", DType::F32, std::max<int64_t>(2 * int64_t(gpu.device().l2_bytes) / 4, 1));
    double ms = median_ms(gpu, 10, [&] { run_builtin(builtin, args, gpu); }, [&](int rep) {
        KL_CUDA_CALL(cudaMemsetAsync(flush.data(), rep & 0xff, flush.bytes(), gpu.stream()));
    });
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
        double ms = median_ms(gpu, 20, [&] {
            KL_CUDA_CALL(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, gpu.stream()));
        }, [](int) {});  // 1 GiB each way: L2 holds none of it anyway
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
            Calibration c = calibration_from_json(nlohmann::json::parse(read_file(path)), path);
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
