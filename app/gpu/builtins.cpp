// cuBLAS routines for manifests. cuBLAS is column-major; our matrices are row-major, so
// C = A B (row-major) is computed as C^T = B^T A^T (column-major): swap A and B, and M and N.
#include "gpu/builtins.h"

#include <cublas_v2.h>

#include <algorithm>
#include <functional>
#include <map>

#include "base/errors.h"
#include "gpu/builtins_mlp.h"
#include "gpu/cublas_library.h"
#include "gpu/cuda_check.h"
#include "gpu/torch_bridge.h"

namespace kl {

namespace {

struct GemmArgs {
    void* c;
    const void* a;
    const void* b;
    int m, n, k;
};

GemmArgs gemm_args(const std::string& name, const std::vector<KernelArg>& args) {
    if (args.size() != 6 || args[0].kind != KernelArg::Kind::Pointer || args[1].kind != KernelArg::Kind::Pointer ||
        args[2].kind != KernelArg::Kind::Pointer)
        throw InputError("builtin " + name + " takes args [C, A, B, M, N, K] (three buffers, three sizes)");
    auto as_int = [&](const KernelArg& a) { return a.kind == KernelArg::Kind::I64 ? static_cast<int>(a.i64) : a.i32; };
    return {args[0].ptr, args[1].ptr, args[2].ptr, as_int(args[3]), as_int(args[4]), as_int(args[5])};
}

// Arguments of the batched routines: [C, A, B, M, N, K, batch, esize], esize 4 (fp32) or 2 (bf16).
struct BatchedGemmArgs {
    void* c;
    const void* a;
    const void* b;
    int64_t m, n, k, batch;
    cudaDataType_t type;  // of A and B (and of C where the routine says so)
};

BatchedGemmArgs batched_gemm_args(const std::string& name, const std::vector<KernelArg>& args) {
    auto as_i64 = [](const KernelArg& a) { return a.kind == KernelArg::Kind::I64 ? a.i64 : int64_t(a.i32); };
    if (args.size() != 8 || args[0].kind != KernelArg::Kind::Pointer || args[1].kind != KernelArg::Kind::Pointer ||
        args[2].kind != KernelArg::Kind::Pointer || (as_i64(args[7]) != 2 && as_i64(args[7]) != 4))
        throw InputError("builtin " + name +
                         " takes args [C, A, B, M, N, K, batch, esize] with esize 4 (fp32) or 2 (bf16)");
    return {args[0].ptr,     args[1].ptr,     args[2].ptr,     as_i64(args[3]),
            as_i64(args[4]), as_i64(args[5]), as_i64(args[6]), as_i64(args[7]) == 4 ? CUDA_R_32F : CUDA_R_16BF};
}

// fp32 in, fp32 out; `tf32` lets cuBLAS round inputs to TF32 on the tensor cores.
void sgemm(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& gpu, bool tf32) {
    GemmArgs g = gemm_args(name, args);
    cublasHandle_t h = gpu.cublas();
    KL_CUBLAS_CALL(cublas_library().cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH));
    const float one = 1.f, zero = 0.f;
    KL_CUBLAS_CALL(cublas_library().cublasGemmEx(
        h, CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k, &one, g.b, CUDA_R_32F, g.n, g.a, CUDA_R_32F, g.k, &zero, g.c,
        CUDA_R_32F, g.n, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// bf16 A and B, fp32 C, fp32 accumulation.
void bf16_gemm(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& gpu) {
    GemmArgs g = gemm_args(name, args);
    cublasHandle_t h = gpu.cublas();
    KL_CUBLAS_CALL(cublas_library().cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    const float one = 1.f, zero = 0.f;
    KL_CUBLAS_CALL(cublas_library().cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, g.n, g.m, g.k, &one, g.b, CUDA_R_16BF,
                                                 g.n, g.a, CUDA_R_16BF, g.k, &zero, g.c, CUDA_R_32F, g.n,
                                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

using Routine = std::function<void(const std::string&, const std::vector<KernelArg>&, const RoutineTarget&)>;

const std::map<std::string, Routine>& routines() {
    static const std::map<std::string, Routine> r = {
        {"cublas_sgemm", [](auto& n, auto& a, auto& g) { sgemm(n, a, g, false); }},
        {"cublas_tf32", [](auto& n, auto& a, auto& g) { sgemm(n, a, g, true); }},
        {"cublas_bf16", [](auto& n, auto& a, auto& g) { bf16_gemm(n, a, g); }},
        // Naive attention, scores: C[i] = A[i] B[i]^T for i < batch, A M x K, B N x K, C M x N
        // fp32, all row-major and packed back to back. args [C, A, B, M, N, K, batch, esize]:
        // esize 4 reads fp32 A and B (fp32 math, no TF32), esize 2 reads bf16 (fp32 sums).
        {"cublas_gemm_nt_batched",
         [](auto& name, auto& args, auto& gpu) {
             const BatchedGemmArgs g = batched_gemm_args(name, args);
             const int64_t m = g.m, n = g.n, k = g.k, batch = g.batch;
             const cudaDataType_t ab = g.type;
             cublasHandle_t h = gpu.cublas();
             KL_CUBLAS_CALL(cublas_library().cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
             const float one = 1.f, zero = 0.f;
             // Column-major view: C^T (N x M) = B (N x K, stored as K x N: transpose) * A^T (K x M).
             KL_CUBLAS_CALL(cublas_library().cublasGemmStridedBatchedEx(
                 h, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k), &one, g.b, ab, int(k), n * k, g.a, ab, int(k),
                 m * k, &zero, g.c, CUDA_R_32F, int(n), m * n, int(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
         }},
        // Naive attention, output: C[i] = A[i] B[i] for i < batch, A M x K, B K x N, C M x N, all
        // of one type, row-major, packed. args [C, A, B, M, N, K, batch, esize]: esize 4 = fp32
        // (no TF32), 2 = bf16 in and out with fp32 sums (one rounding to bf16 at the end).
        {"cublas_gemm_nn_batched",
         [](auto& name, auto& args, auto& gpu) {
             const BatchedGemmArgs g = batched_gemm_args(name, args);
             const int64_t m = g.m, n = g.n, k = g.k, batch = g.batch;
             const cudaDataType_t t = g.type;
             cublasHandle_t h = gpu.cublas();
             // With a bf16 C, cuBLAS may otherwise add split-K partial sums in bf16.
             KL_CUBLAS_CALL(cublas_library().cublasSetMathMode(
                 h, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
             const float one = 1.f, zero = 0.f;
             // Column-major view: C^T (N x M) = B^T (N x K) * A^T (K x M), no transposes.
             KL_CUBLAS_CALL(cublas_library().cublasGemmStridedBatchedEx(
                 h, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one, g.b, t, int(n), k * n, g.a, t, int(k),
                 m * k, &zero, g.c, t, int(n), m * n, int(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
         }},
    };
    return r;
}

}  // namespace

bool is_builtin(const std::string& name) {
    const auto& peers = torch_peer_names();
    return routines().count(name) != 0 || mlp_builtins().count(name) != 0 ||
           std::find(peers.begin(), peers.end(), name) != peers.end();
}

std::vector<std::string> builtin_names() {
    std::vector<std::string> out;
    for (const auto& [k, v] : routines()) out.push_back(k);
    for (const auto& [k, v] : mlp_builtins()) out.push_back(k);
    for (const auto& k : torch_peer_names()) out.push_back(k);
    return out;
}

void run_builtin(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& gpu) {
    if (is_torch_peer_name(name)) return run_torch_peer(name, args, gpu);
    if (auto m = mlp_builtins().find(name); m != mlp_builtins().end()) return m->second(name, args, gpu);
    auto it = routines().find(name);
    if (it == routines().end()) throw InputError("unknown builtin '" + name + "'");
    it->second(name, args, gpu);
}

}  // namespace kl
