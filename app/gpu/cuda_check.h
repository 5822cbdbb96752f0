// Checked calls into the CUDA runtime, NVRTC and cuBLAS. Every call in the engine goes through
// one of these macros, so a failure throws kl::GpuError with the call's text, file and line,
// and the context the caller set with kl::ScopedContext (which rung, which parameters).
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "base/errors.h"

namespace kl {

// A short description of what the engine is doing ("rung matmul/reg_2d BM=128 ..."), appended
// to every error thrown while it is alive. Nested contexts are joined with " / ".
class ScopedContext {
  public:
    explicit ScopedContext(std::string what);
    ~ScopedContext();
    ScopedContext(const ScopedContext&) = delete;
    ScopedContext& operator=(const ScopedContext&) = delete;
    static std::string current();

  private:
    size_t previous_length_;
};

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_nvrtc_error(int err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(int status, const char* call, const char* file, int line);

}  // namespace kl

#define KL_CUDA_CALL(call)                                                                      \
    do {                                                                                        \
        cudaError_t kl_err_ = (call);                                                           \
        if (kl_err_ != cudaSuccess) ::kl::throw_cuda_error(kl_err_, #call, __FILE__, __LINE__); \
    } while (0)

// After a kernel launch: catches launch-configuration errors immediately.
#define KL_CHECK_LAUNCH() KL_CUDA_CALL(cudaGetLastError())

#define KL_NVRTC_CALL(call)                                                            \
    do {                                                                               \
        int kl_err_ = static_cast<int>(call);                                          \
        if (kl_err_ != 0) ::kl::throw_nvrtc_error(kl_err_, #call, __FILE__, __LINE__); \
    } while (0)

#define KL_CUBLAS_CALL(call)                                                            \
    do {                                                                                \
        int kl_err_ = static_cast<int>(call);                                           \
        if (kl_err_ != 0) ::kl::throw_cublas_error(kl_err_, #call, __FILE__, __LINE__); \
    } while (0)
