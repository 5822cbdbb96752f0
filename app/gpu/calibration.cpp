#include "gpu/calibration.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <vector>

#include "base/atomic_file.h"
#include "base/json_input.h"
#include "base/paths.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_context.h"
#include "gpu/timing.h"
#include "model/results_json.h"
#include "gpu/span_stopwatch.h"

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

// The copy line lessons quote: cudaMemcpy device to device of 1 GiB each way, back to back (L2
// holds none of it), the median of at least 20 repetitions.
double copy_line_gbps(GpuContext& gpu) {
    const int64_t bytes = int64_t(1) << 30;
    DeviceBuffer src("calib_src", DType::F32, bytes / 4), dst("calib_dst", DType::F32, bytes / 4);
    gpu.fill_uniform(src, 3);
    RepetitionPlan plan;
    plan.min_reps = 20;
    const double ms =
        time_repetitions(gpu, plan, nullptr, [&] {
            KL_CUDA_CALL(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, gpu.stream()));
        }).median_ms;
    return 2.0 * double(bytes) / (ms * 1e-3) / 1e9;  // bytes read + bytes written
}

// The streaming kernels of the memory roof (roof.h, kernels/common/bandwidth.cu) and cudaMemcpy,
// each over 1 GiB buffers, timed with the runner's protocol. Returns the points.
std::vector<BandwidthPoint> measure_bandwidth(GpuContext& gpu) {
    const int64_t bytes = int64_t(1) << 30;
    const int64_t floats = bytes / 4;
    const long long vectors = static_cast<long long>(bytes / 16);
    DeviceBuffer a("calib_a", DType::F32, floats), b("calib_b", DType::F32, floats), c("calib_c", DType::F32, floats),
        sink("calib_sink", DType::F32, 1024);
    gpu.fill_uniform(a, 3);
    gpu.fill_uniform(b, 4);
    // Enough 256-thread blocks to fill every SM, looping over the buffer.
    const DeviceInfo& d = gpu.device();
    const dim3 grid(static_cast<unsigned>(std::max(1, d.sm_count * d.limits.max_threads_per_sm / 256)));
    // Timed as the runner times a rung (timing.h: warm-ups, L2 flushed before each repetition,
    // 0.4 s): a roof measured on another stopwatch than the rungs it bounds is no bound. Back to
    // back without the flush, the 2:1 kernel read 1% below the vector_add rung on the H200.
    L2Flush flush(gpu);
    auto gbps = [&](double moved, const std::function<void()>& launch) {
        return moved / (time_repetitions(gpu, RepetitionPlan{}, &flush, launch).median_ms * 1e-3) / 1e9;
    };
    // Each kernel is looked up once, before timing: the cache lookup reads files, and time spent
    // on the host between the start event and the launch would count as the kernel's.
    const std::string file = "common/bandwidth.cu";
    // Each mix in several shapes: the grid-stride loop over a full GPU (256-thread blocks), and one
    // pass of 4 or 1 vectors (or 4 floats) a thread in blocks of 64 to 256; the best is the point. A roof
    // that a correct rung beats teaches the wrong lesson (issue 36): on the H200 a tuned GeLU of one
    // vector a thread in 128-thread blocks moved its 1:1 mix 0.8% faster than the 4-vector,
    // 256-thread pass, so the search covers the shapes the elementwise rungs tune to.
    struct Shape {
        const char* suffix;
        long long per_thread;  // 0: the grid-stride loop
        unsigned threads;
    };
    // "_scalar": 4 single floats a thread, one vector's worth of work (the vector_add rung's shape).
    static const Shape kShapes[] = {{"", 0, 256},       {"_pass", 4, 64},   {"_pass", 4, 128},
                                    {"_pass", 4, 256},  {"_pass1", 1, 64},  {"_pass1", 1, 128},
                                    {"_pass1", 1, 256}, {"_scalar", 1, 64}, {"_scalar", 1, 128}};
    auto streamed = [&](const std::string& entry, double moved, std::vector<KernelArg> args) {
        double best = 0;
        for (const Shape& s : kShapes) {
            const std::string name = entry + s.suffix;
            const dim3 shape = s.per_thread == 0 ? grid
                                                 : dim3(static_cast<unsigned>((vectors + s.per_thread * s.threads - 1) /
                                                                              (s.per_thread * s.threads)));
            const cudaKernel_t k = gpu.helper_kernel(file, name);
            best = std::max(best, gbps(moved, [&] { gpu.launch_kernel(k, name, shape, dim3(s.threads), args); }));
        }
        return best;
    };
    const KernelArg va = KernelArg::pointer(a.data()), vb = KernelArg::pointer(b.data()),
                    vc = KernelArg::pointer(c.data()), n = KernelArg::i64v(vectors);
    std::vector<BandwidthPoint> points;
    points.push_back({"memcpy", 0.5, gbps(2.0 * bytes, [&] {
                          KL_CUDA_CALL(
                              cudaMemcpyAsync(c.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, gpu.stream()));
                      })});
    points.push_back({"copy", 0.5, streamed("kl_bw_copy", 2.0 * bytes, {va, vc, n})});
    points.push_back({"add", 2.0 / 3.0, streamed("kl_bw_add", 3.0 * bytes, {va, vb, vc, n})});
    points.push_back(
        {"read", 1.0,
         streamed("kl_bw_read", double(bytes),
                  {va, n, KernelArg::f32v(std::numeric_limits<float>::quiet_NaN()), KernelArg::pointer(sink.data())})});
    points.push_back({"write", 0.0, streamed("kl_bw_write", double(bytes), {vc, n, KernelArg::f32v(1.0f)})});
    return points;
}

}  // namespace

Calibration measure_calibration(GpuContext& gpu) {
    ScopedContext ctx("calibration");
    Calibration c;
    c.device_uuid = gpu.device().uuid;
    c.measured_at = iso_now_utc();
    c.bandwidth = measure_bandwidth(gpu);
    c.copy_gbps = copy_line_gbps(gpu);
    c.sgemm_tflops = gemm_tflops(gpu, "cublas_sgemm", DType::F32, 4096);
    c.bf16_tflops = gemm_tflops(gpu, "cublas_bf16", DType::BF16, 4096);
    c.fp32_peak_tflops = gpu.device().fp32_peak_flops() / 1e12;
    return c;
}

Calibration load_or_measure_calibration(GpuContext& gpu, bool force) {
    // ".v5": the roof's kernels in nine shapes each (measure_bandwidth); ".v4" caches (two
    // shapes) and older are measured again.
    // [stopwatch] Ceilings are cached per stopwatch: a span run is drawn against span ceilings.
    const std::string stopwatch =
        requested_stopwatch() == Stopwatch::GpuSpan ? std::string(".") + stopwatch_name(Stopwatch::GpuSpan) : "";
    const std::string path = cache_dir("calibration") + "/" + gpu.device().uuid + stopwatch + ".v5.json";
    if (!force && std::filesystem::exists(path)) {
        try {
            Calibration c = calibration_from_json(parse_json_limited(read_file(path), path), path);
            if (c.valid() && c.device_uuid == gpu.device().uuid) return c;
        } catch (const std::exception&) {
            // A damaged cache is measured again and overwritten.
        }
    }
    Calibration c = measure_calibration(gpu);
    // A disturbed measurement serves this process only. Under compute-sanitizer every kernel ran
    // 15 times slower while cudaMemcpy (the copy engines) did not: cached, those figures gave every
    // later run of a device call a roof of 260-375 GB/s on an H200 (2026-11-30). No GPU's simple
    // streaming copy falls below half its cudaMemcpy undisturbed. Nsight Compute injects through
    // CUDA_INJECTION64_PATH.
    if (!roof_points_plausible(c.bandwidth) || std::getenv("CUDA_INJECTION64_PATH") != nullptr) return c;
    try {
        write_file_atomically(path, to_json(c).dump(1) + "\n");
    } catch (const Error&) {
        // An unwritable cache only costs a new measurement next time.
    }
    return c;
}

}  // namespace kl
