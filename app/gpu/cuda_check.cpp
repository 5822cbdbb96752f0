#include "gpu/cuda_check.h"

#include "gpu/cublas_library.h"
#include <cublas_api.h>
#include <nvrtc.h>

#include <cstring>

namespace kl {

namespace {
thread_local std::string g_context;

std::string where(const char* call, const char* file, int line) {
    const char* base = std::strrchr(file, '/');
    std::string s = std::string(call) + " at " + (base ? base + 1 : file) + ":" + std::to_string(line);
    if (!g_context.empty()) s += " [" + g_context + "]";
    return s;
}
}  // namespace

ScopedContext::ScopedContext(std::string what) : previous_length_(g_context.size()) {
    if (!g_context.empty()) g_context += " / ";
    g_context += what;
}
ScopedContext::~ScopedContext() { g_context.resize(previous_length_); }
std::string ScopedContext::current() { return g_context; }

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
    std::string msg = std::string("CUDA error ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ") in " +
                      where(call, file, line);
    throw GpuError(msg);
}

void throw_nvrtc_error(int err, const char* call, const char* file, int line) {
    throw GpuError(std::string("NVRTC error ") + nvrtcGetErrorString(static_cast<nvrtcResult>(err)) + " in " +
                   where(call, file, line));
}

void throw_cublas_error(int status, const char* call, const char* file, int line) {
    throw GpuError(std::string("cuBLAS error ") +
                   cublas_library().cublasGetStatusName(static_cast<cublasStatus_t>(status)) + " in " +
                   where(call, file, line));
}

}  // namespace kl
