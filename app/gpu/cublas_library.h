// cuBLAS and cuBLASLt, loaded the first time a library rung or the L2 flush needs them. Linking
// them made every program pay for them at start-up: cuBLASLt alone is 540 MB, and relocating it
// cost each process 25,000 page faults and 0.5 s of CPU (kladder --help, 2026-11-29), in every
// command, every window and every test process, on machines without a GPU too.
//
// Call sites name the functions as usual through the table: cublas_library().cublasGemmEx(...).
// cublas_v2.h's macros (cublasCreate -> cublasCreate_v2) apply to the member names the same way.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <string>

namespace kl {

// clang-format off
#define KL_CUBLAS_FUNCTIONS(X) \
    X(cublasCreate_v2) \
    X(cublasDestroy_v2) \
    X(cublasSetStream_v2) \
    X(cublasSetPointerMode_v2) \
    X(cublasSetMathMode) \
    X(cublasGetStatusName) \
    X(cublasSasum_v2)
// cublasGemmEx and cublasGemmStridedBatchedEx have C++ overloads besides their C entry points (the
// older cudaDataType compute type), which decltype cannot choose between: their types are written
// out, as cublas_api.h declares the C functions.
#define KL_CUBLAS_GEMM_FUNCTIONS(X) \
    X(cublasGemmEx, CublasGemmEx) \
    X(cublasGemmStridedBatchedEx, CublasGemmStridedBatchedEx)
#define KL_CUBLASLT_FUNCTIONS(X) \
    X(cublasLtCreate) \
    X(cublasLtMatmul) \
    X(cublasLtMatmulAlgoGetHeuristic) \
    X(cublasLtMatmulDescCreate) \
    X(cublasLtMatmulDescDestroy) \
    X(cublasLtMatmulDescSetAttribute) \
    X(cublasLtMatmulPreferenceCreate) \
    X(cublasLtMatmulPreferenceDestroy) \
    X(cublasLtMatmulPreferenceSetAttribute) \
    X(cublasLtMatrixLayoutCreate) \
    X(cublasLtMatrixLayoutDestroy)
// clang-format on

using CublasGemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m, int n, int k,
                                        const void* alpha, const void* A, cudaDataType, int lda, const void* B,
                                        cudaDataType, int ldb, const void* beta, void* C, cudaDataType, int ldc,
                                        cublasComputeType_t, cublasGemmAlgo_t);
using CublasGemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int m,
                                                      int n, int k, const void* alpha, const void* A, cudaDataType,
                                                      int lda, long long strideA, const void* B, cudaDataType, int ldb,
                                                      long long strideB, const void* beta, void* C, cudaDataType,
                                                      int ldc, long long strideC, int batch_count, cublasComputeType_t,
                                                      cublasGemmAlgo_t);

struct CublasLibrary {
#define KL_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
    KL_CUBLAS_FUNCTIONS(KL_DECLARE_POINTER)
    KL_CUBLASLT_FUNCTIONS(KL_DECLARE_POINTER)
#undef KL_DECLARE_POINTER
#define KL_DECLARE_TYPED_POINTER(name, type) type name = nullptr;
    KL_CUBLAS_GEMM_FUNCTIONS(KL_DECLARE_TYPED_POINTER)
#undef KL_DECLARE_TYPED_POINTER
};

// The loaded table. Throws GpuError naming the library and what was tried when it cannot be
// loaded (the toolkit's cuBLAS missing or older than the headers the program was built with).
const CublasLibrary& cublas_library();

}  // namespace kl
