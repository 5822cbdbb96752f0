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

#include "device_buffer.h"
#include "device_info.h"

struct cublasContext;
using cublasHandle_t = cublasContext*;

namespace kl {

class KernelCache;

// A CUtensorMap's 128 bytes, with the 64-byte alignment the driver requires of the copy that a
// launch reads its `const __grid_constant__` parameter from (see tensor_map.h).
struct alignas(64) TensorMapBytes {
    unsigned char bytes[128];
};

// One kernel argument by value: a device pointer, a scalar, or a TMA tensor map.
struct KernelArg {
    enum class Kind { Pointer, I32, I64, F32, F64, TensorMap } kind;
    explicit KernelArg(Kind k) : kind(k), i64(0) {}
    union {
        void* ptr;
        int32_t i32;
        int64_t i64;
        float f32;
        double f64;
    };
    static KernelArg pointer(const void* p) {
        KernelArg a(Kind::Pointer);
        a.ptr = const_cast<void*>(p);
        return a;
    }
    static KernelArg i32v(int32_t v) {
        KernelArg a(Kind::I32);
        a.i32 = v;
        return a;
    }
    static KernelArg i64v(int64_t v) {
        KernelArg a(Kind::I64);
        a.i64 = v;
        return a;
    }
    static KernelArg f32v(float v) {
        KernelArg a(Kind::F32);
        a.f32 = v;
        return a;
    }
    static KernelArg f64v(double v) {
        KernelArg a(Kind::F64);
        a.f64 = v;
        return a;
    }
    static KernelArg tensor_map(std::shared_ptr<const TensorMapBytes> map) {
        KernelArg a(Kind::TensorMap);
        a.map = std::move(map);
        return a;
    }
    // What cudaLaunchKernel wants in its argument array: the address of the value's bytes.
    void* address() {
        return kind == Kind::TensorMap ? const_cast<unsigned char*>(map->bytes) : static_cast<void*>(&ptr);
    }
    std::shared_ptr<const TensorMapBytes> map;  // Kind::TensorMap only; shared so copies stay cheap
};

class GpuContext {
  public:
    // Returns false and a one-line reason when no GPU can be used (no driver, no device).
    static bool available(std::string* why_not);

    explicit GpuContext(int device = 0);
    ~GpuContext();
    GpuContext(const GpuContext&) = delete;
    GpuContext& operator=(const GpuContext&) = delete;

    const DeviceInfo& device() const { return info_; }
    cudaStream_t stream() const { return stream_; }
    cublasHandle_t cublas();  // created on first use
    KernelCache& kernels() { return *kernels_; }

    // [SECTION] Named buffers of the current problem (inputs, outputs, scratch).
    DeviceBuffer& buffer(const std::string& name);  // throws InputError naming the buffer
    bool has_buffer(const std::string& name) const { return buffers_.count(name) != 0; }
    DeviceBuffer& add_buffer(const std::string& name, DType dtype, int64_t elements);
    void remove_buffer(const std::string& name) { buffers_.erase(name); }
    void clear_buffers() { buffers_.clear(); }

    // [SECTION] Helpers for operations.
    // Compile (cached) and launch `entry` of kernels/<file> with the given defines; checked.
    void launch_helper(const std::string& file, const std::string& entry, dim3 grid, dim3 block,
                       std::vector<KernelArg> args, const std::vector<std::string>& defines = {},
                       size_t smem_bytes = 0);
    // Uniform values in [lo, hi) from a counter-based generator: the same seed gives the same
    // values on any GPU; works for every dtype.
    void fill_uniform(DeviceBuffer& buf, uint64_t seed, float lo = -1.f, float hi = 1.f);
    // Set every byte to 0xFF: NaN in fp32, bf16 and fp16, so unwritten outputs are caught.
    void poison(DeviceBuffer& buf);
    std::vector<float> download_as_float(const DeviceBuffer& buf);
    void upload_from_float(DeviceBuffer& buf, const std::vector<float>& values);
    void synchronize();  // checked stream synchronize

  private:
    DeviceInfo info_;
    cudaStream_t stream_ = nullptr;
    cublasHandle_t cublas_ = nullptr;
    std::unique_ptr<KernelCache> kernels_;
    std::map<std::string, DeviceBuffer> buffers_;
};

}  // namespace kl
