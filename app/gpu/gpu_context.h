// The engine's handle on one GPU: device facts, a stream, a cuBLAS handle, the NVRTC kernel
// cache, helper launches for operations (input generators, reference kernels), and the named
// buffers of the problem being run. Construction fails with kl::GpuError and a one-line
// reason when there is no usable GPU or driver.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu/device_buffer.h"
#include "model/device_info.h"
#include "model/op_context.h"

struct cublasContext;
using cublasHandle_t = cublasContext*;

namespace kl {

class KernelCache;

class GpuContext : public OpContext {
  public:
    // Returns false and a one-line reason when no GPU can be used (no driver, no device).
    static bool available(std::string* why_not);

    explicit GpuContext(int device = 0);
    ~GpuContext();
    GpuContext(const GpuContext&) = delete;
    GpuContext& operator=(const GpuContext&) = delete;

    const DeviceInfo& device() const override { return info_; }
    cudaStream_t stream() const { return stream_; }
    cublasHandle_t cublas();  // created on first use
    KernelCache& kernels() { return *kernels_; }

    // [SECTION] Named buffers of the current problem (inputs, outputs, scratch).
    DeviceBuffer& buffer(const std::string& name) override;  // throws InputError naming the buffer
    bool has_buffer(const std::string& name) const { return buffers_.count(name) != 0; }
    DeviceBuffer& add_buffer(const std::string& name, DType dtype, int64_t elements) override;
    void remove_buffer(const std::string& name) override { buffers_.erase(name); }
    void clear_buffers() { buffers_.clear(); }
    // Every named buffer, in name order (the flush's lab variant touches their pages).
    std::vector<const DeviceBuffer*> all_buffers() const {
        std::vector<const DeviceBuffer*> out;
        for (const auto& [name, buf] : buffers_) out.push_back(&buf);
        return out;
    }

    // [SECTION] Helpers for operations.
    // A helper kernel of kernels/<file>, compiled (cached) and loaded: looked up once, outside a
    // timed interval (the lookup reads the source and its headers to find the cache entry).
    cudaKernel_t helper_kernel(const std::string& file, const std::string& entry,
                               const std::vector<std::string>& defines = {});
    // Launch a loaded kernel on the stream; checked, errors named by `what`.
    void launch_kernel(cudaKernel_t kernel, const std::string& what, dim3 grid, dim3 block, std::vector<KernelArg> args,
                       size_t smem_bytes = 0);
    // Compile (cached) and launch `entry` of kernels/<file> with the given defines; checked.
    void launch_helper(const std::string& file, const std::string& entry, dim3 grid, dim3 block,
                       std::vector<KernelArg> args, const std::vector<std::string>& defines = {},
                       size_t smem_bytes = 0) override;
    // Uniform values in [lo, hi) from a counter-based generator: the same seed gives the same
    // values on any GPU; works for every dtype.
    void fill_uniform(DeviceArray& buf, uint64_t seed, float lo = -1.f, float hi = 1.f) override;
    // Set every byte to 0xFF: NaN in fp32, bf16 and fp16, so unwritten outputs are caught.
    void poison(DeviceArray& buf);
    // Copies between host and device run on the work stream, after everything queued there, and
    // are complete when they return: a plain cudaMemcpy runs on the legacy stream, which a
    // non-blocking stream does not wait for, and a pageable upload may return before its DMA is
    // done, so a kernel queued next could read half-written inputs.
    std::vector<float> download_as_float(const DeviceArray& buf) override;
    std::vector<unsigned char> download_bytes(const DeviceArray& buf, size_t offset, size_t count) override;
    void upload_from_float(DeviceArray& buf, const std::vector<float>& values) override;
    void upload_bytes(DeviceArray& buf, size_t offset, const std::vector<unsigned char>& bytes);
    void run_builtin(const std::string& name, const std::vector<KernelArg>& args) override;  // builtins.h
    // While one lives, builtins run as the runner's checking call (RoutineTarget::checking).
    struct CheckingCall {
        GpuContext& gpu;
        explicit CheckingCall(GpuContext& g) : gpu(g) { gpu.checking_ = true; }
        ~CheckingCall() { gpu.checking_ = false; }
    };
    void synchronize() override;  // checked stream synchronize

  private:
    void copy_on_stream(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);

    DeviceInfo info_;
    cudaStream_t stream_ = nullptr;
    cublasHandle_t cublas_ = nullptr;
    std::unique_ptr<KernelCache> kernels_;
    std::map<std::string, DeviceBuffer> buffers_;
    bool checking_ = false;
};

}  // namespace kl
