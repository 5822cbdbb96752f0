// cuBLAS and cuBLASLt routines of the mlp ladder. Matrices are row-major; cuBLAS is column-major,
// so C = A B (row-major) is computed as C^T = B^T A^T: B first, M and N swapped (builtins.cpp).
#include "gpu/builtins_mlp.h"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <mutex>
#include <tuple>

#include "base/errors.h"
#include "gpu/cublas_library.h"
#include "gpu/cuda_check.h"

namespace kl {

namespace {

int64_t as_i64(const KernelArg& a) { return a.kind == KernelArg::Kind::I64 ? a.i64 : int64_t(a.i32); }

// [C, A, B, M, N, K] plus `extra` integers; every pointer checked, sizes positive and 32-bit.
std::vector<int64_t> gemm_ints(const std::string& name, const std::vector<KernelArg>& args, size_t extra,
                               const char* usage) {
    bool ok = args.size() == 6 + extra;
    for (size_t i = 0; ok && i < 3; ++i) ok = args[i].kind == KernelArg::Kind::Pointer;
    std::vector<int64_t> v;
    for (size_t i = 3; ok && i < args.size(); ++i) {
        ok = args[i].kind == KernelArg::Kind::I32 || args[i].kind == KernelArg::Kind::I64;
        if (ok) v.push_back(as_i64(args[i]));
        ok = ok && v.back() >= 0 && v.back() < (int64_t(1) << 31);
    }
    if (!ok) throw InputError("builtin " + name + " takes args " + usage);
    return v;
}

// bf16 A (M x K) and B (K x N), bf16 C, fp32 sums rounded once: a framework's Linear layer.
void gemm_bf16_out(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& gpu) {
    const auto v = gemm_ints(name, args, 0, "[C, A, B, M, N, K] (bf16 C)");
    const int m = int(v[0]), n = int(v[1]), k = int(v[2]);
    cublasHandle_t h = gpu.cublas();
    // A bf16 C must not let cuBLAS add split-K partial sums in bf16.
    KL_CUBLAS_CALL(cublas_library().cublasSetMathMode(
        h, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
    const float one = 1.f, zero = 0.f;
    KL_CUBLAS_CALL(cublas_library().cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, args[2].ptr, CUDA_R_16BF,
                                                 n, args[1].ptr, CUDA_R_16BF, k, &zero, args[0].ptr, CUDA_R_16BF, n,
                                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// One column slice of a wider product: C[:, col0 : col0 + N] = A B[:, col0 : col0 + N], bf16 A
// (M x K) and B (K x ld), fp32 C (M x ld). Fused QKV's unfused side: three of these.
void gemm_bf16_cols(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& gpu) {
    const char* usage = "[C, A, B, M, N, K, ld, col0] with col0 + N <= ld";
    const auto v = gemm_ints(name, args, 2, usage);
    const int m = int(v[0]), n = int(v[1]), k = int(v[2]), ld = int(v[3]), col0 = int(v[4]);
    if (int64_t(col0) + n > ld) throw InputError("builtin " + name + " takes args " + usage);
    cublasHandle_t h = gpu.cublas();
    KL_CUBLAS_CALL(cublas_library().cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    const float one = 1.f, zero = 0.f;
    const auto* b = static_cast<const unsigned short*>(args[2].ptr) + col0;  // bf16 elements
    auto* c = static_cast<float*>(args[0].ptr) + col0;
    KL_CUBLAS_CALL(cublas_library().cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, ld,
                                                 args[1].ptr, CUDA_R_16BF, k, &zero, c, CUDA_R_32F, ld,
                                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// [SECTION] cuBLASLt: one handle and one workspace for the process, the chosen algorithm cached
// per shape, so that a timed repetition pays no heuristic query.
struct LtState {
    cublasLtHandle_t handle = nullptr;
    void* workspace = nullptr;
    size_t workspace_bytes = size_t(32) << 20;
    std::map<std::tuple<int, int, int, int>, cublasLtMatmulAlgo_t> algos;
    std::mutex mu;
};

LtState& lt_state() {
    static LtState s;
    std::lock_guard<std::mutex> lock(s.mu);
    if (!s.handle) {
        KL_CUBLAS_CALL(cublas_library().cublasLtCreate(&s.handle));
        KL_CUDA_CALL(cudaMalloc(&s.workspace, s.workspace_bytes));
    }
    return s;
}

// Descriptors released on every way out.
struct LtDescs {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    ~LtDescs() {
        if (pref) cublas_library().cublasLtMatmulPreferenceDestroy(pref);
        if (c) cublas_library().cublasLtMatrixLayoutDestroy(c);
        if (b) cublas_library().cublasLtMatrixLayoutDestroy(b);
        if (a) cublas_library().cublasLtMatrixLayoutDestroy(a);
        if (op) cublas_library().cublasLtMatmulDescDestroy(op);
    }
};

// Runs the prepared descriptors: D = alpha op(A) op(B) (beta = 0, C = D), the algorithm from the
// heuristic the first time this `kind` meets this shape.
void lt_run(const std::string& name, LtDescs& d, int kind, int m, int n, int k, const void* a, const void* b, void* c,
            const RoutineTarget& gpu) {
    LtState& s = lt_state();
    const auto key = std::make_tuple(kind, m, n, k);
    cublasLtMatmulAlgo_t algo;
    {
        std::lock_guard<std::mutex> lock(s.mu);
        auto it = s.algos.find(key);
        if (it == s.algos.end()) {
            KL_CUBLAS_CALL(cublas_library().cublasLtMatmulPreferenceCreate(&d.pref));
            KL_CUBLAS_CALL(cublas_library().cublasLtMatmulPreferenceSetAttribute(
                d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &s.workspace_bytes, sizeof s.workspace_bytes));
            cublasLtMatmulHeuristicResult_t result{};
            int found = 0;
            KL_CUBLAS_CALL(cublas_library().cublasLtMatmulAlgoGetHeuristic(s.handle, d.op, d.a, d.b, d.c, d.c, d.pref,
                                                                           1, &result, &found));
            if (found == 0)
                throw GpuError("builtin " + name + ": cuBLASLt has no algorithm for this shape (column-major m=" +
                               std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) + ")");
            it = s.algos.emplace(key, result.algo).first;
        }
        algo = it->second;
    }
    const float one = 1.f, zero = 0.f;
    KL_CUBLAS_CALL(cublas_library().cublasLtMatmul(s.handle, d.op, &one, a, d.a, b, d.b, &zero, c, d.c, c, d.c, &algo,
                                                   s.workspace, s.workspace_bytes, gpu.stream));
}

// H = GeLU(A B) in one cuBLASLt call (CUBLASLT_EPILOGUE_GELU, the tanh form), bf16 A (M x K), B
// (K x N) and H (M x N), fp32 sums: the library's fused epilogue.
void lt_gemm_gelu_bf16(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& gpu) {
    const auto v = gemm_ints(name, args, 0, "[H, A, B, M, N, K] (bf16 H = GeLU(A B))");
    const int m = int(v[0]), n = int(v[1]), k = int(v[2]);
    LtDescs d;
    KL_CUBLAS_CALL(cublas_library().cublasLtMatmulDescCreate(&d.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU;
    KL_CUBLAS_CALL(
        cublas_library().cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    // Column-major: H^T (N x M) = B^T (N x K, ld N) * A^T (K x M, ld K).
    KL_CUBLAS_CALL(cublas_library().cublasLtMatrixLayoutCreate(&d.a, CUDA_R_16BF, n, k, n));
    KL_CUBLAS_CALL(cublas_library().cublasLtMatrixLayoutCreate(&d.b, CUDA_R_16BF, k, m, k));
    KL_CUBLAS_CALL(cublas_library().cublasLtMatrixLayoutCreate(&d.c, CUDA_R_16BF, n, m, n));
    lt_run(name, d, 1, n, m, k, args[2].ptr, args[1].ptr, args[0].ptr, gpu);
}

// fp8 e4m3 A (M x K) and Bt (N x K), both row-major and K-major (the "TN" layout cuBLASLt's fp8
// GEMM requires), fp32 C = scale_a scale_b A Bt^T: per-tensor scales by device pointer (one fp32
// each), fp32 sums. args [C, A, Bt, M, N, K, scale_a, scale_b].
void lt_gemm_fp8(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& gpu) {
    const char* usage = "[C, A, Bt, M, N, K, scale_a, scale_b] (fp8 A and Bt, fp32 C and scales)";
    if (args.size() != 8 || args[6].kind != KernelArg::Kind::Pointer || args[7].kind != KernelArg::Kind::Pointer)
        throw InputError("builtin " + name + " takes args " + usage);
    const std::vector<KernelArg> head(args.begin(), args.begin() + 6);
    const auto v = gemm_ints(name, head, 0, usage);
    const int m = int(v[0]), n = int(v[1]), k = int(v[2]);
    LtDescs d;
    KL_CUBLAS_CALL(cublas_library().cublasLtMatmulDescCreate(&d.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
    KL_CUBLAS_CALL(cublas_library().cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    KL_CUBLAS_CALL(cublas_library().cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn));
    // Column-major: C^T (N x M) = Bt^T-view (Bt row-major N x K is column-major K x N, ld K,
    // transposed to N x K) times A (row-major M x K is column-major K x M, ld K). So Lt's A is
    // Bt (with scale_b) and Lt's B is A (with scale_a).
    const void* scale_lt_a = args[7].ptr;
    const void* scale_lt_b = args[6].ptr;
    KL_CUBLAS_CALL(cublas_library().cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                                   &scale_lt_a, sizeof scale_lt_a));
    KL_CUBLAS_CALL(cublas_library().cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                                   &scale_lt_b, sizeof scale_lt_b));
    KL_CUBLAS_CALL(cublas_library().cublasLtMatrixLayoutCreate(&d.a, CUDA_R_8F_E4M3, k, n, k));
    KL_CUBLAS_CALL(cublas_library().cublasLtMatrixLayoutCreate(&d.b, CUDA_R_8F_E4M3, k, m, k));
    KL_CUBLAS_CALL(cublas_library().cublasLtMatrixLayoutCreate(&d.c, CUDA_R_32F, n, m, n));
    lt_run(name, d, 2, n, m, k, args[2].ptr, args[1].ptr, args[0].ptr, gpu);
}

// fp32 C = A Bt^T with A (M x K) and Bt (N x K) row-major, fp32 math with TF32 off: the fp8
// GEMM's reference on exact fp32 copies of the fp8 inputs.
void sgemm_nt(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& gpu) {
    const auto v = gemm_ints(name, args, 0, "[C, A, Bt, M, N, K] (fp32, C = A Bt^T)");
    const int m = int(v[0]), n = int(v[1]), k = int(v[2]);
    cublasHandle_t h = gpu.cublas();
    KL_CUBLAS_CALL(cublas_library().cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    const float one = 1.f, zero = 0.f;
    // Column-major: C^T (N x M) = Bt (column-major K x N, transposed) * A^T (column-major K x M).
    KL_CUBLAS_CALL(cublas_library().cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, args[2].ptr, CUDA_R_32F, k,
                                                 args[1].ptr, CUDA_R_32F, k, &zero, args[0].ptr, CUDA_R_32F, n,
                                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

const std::map<std::string, BuiltinRoutine>& mlp_builtins() {
    static const std::map<std::string, BuiltinRoutine> r = {
        {"cublas_bf16_bf16out", gemm_bf16_out},
        {"cublas_bf16_cols", gemm_bf16_cols},
        {"cublaslt_gelu_bf16", lt_gemm_gelu_bf16},
        {"cublaslt_fp8", lt_gemm_fp8},
        {"cublas_sgemm_nt", sgemm_nt},
    };
    return r;
}

}  // namespace kl
