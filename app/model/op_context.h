// What an operation (ops/*.cpp) may ask of the GPU while it makes inputs and computes its
// reference: named buffers, helper launches, uniform fills, downloads and library routines.
// An interface with no CUDA library behind it, so that operations (their axes, buffers, work
// and tolerances, which manifests and the window need) live in the CUDA-free model library;
// GpuContext (gpu_context.h, the GPU library) implements it.
#pragma once
#include <vector_types.h>  // dim3: a plain struct of the CUDA headers, no library

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/device_array.h"
#include "model/device_info.h"

namespace kl {

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

class OpContext {
  public:
    virtual ~OpContext() = default;
    virtual const DeviceInfo& device() const = 0;
    // [SECTION] Named buffers of the current problem (inputs, outputs, scratch).
    virtual DeviceArray& buffer(const std::string& name) = 0;  // throws InputError naming the buffer
    virtual DeviceArray& add_buffer(const std::string& name, DType dtype, int64_t elements) = 0;
    virtual void remove_buffer(const std::string& name) = 0;
    // [SECTION] Helpers for operations.
    // Compile (cached) and launch `entry` of kernels/<file> with the given defines; checked.
    virtual void launch_helper(const std::string& file, const std::string& entry, dim3 grid, dim3 block,
                               std::vector<KernelArg> args, const std::vector<std::string>& defines = {},
                               size_t smem_bytes = 0) = 0;
    // Uniform values in [lo, hi) from a counter-based generator: the same seed gives the same
    // values on any GPU; works for every dtype.
    virtual void fill_uniform(DeviceArray& buf, uint64_t seed, float lo = -1.f, float hi = 1.f) = 0;
    virtual std::vector<float> download_as_float(const DeviceArray& buf) = 0;
    // `count` bytes of `buf` from byte `offset` (a slice, for CPU spot checks of a reference).
    virtual std::vector<unsigned char> download_bytes(const DeviceArray& buf, size_t offset, size_t count) = 0;
    virtual void upload_from_float(DeviceArray& buf, const std::vector<float>& values) = 0;
    // A library routine by name ("cublas_sgemm", builtins.h), on the context's stream.
    virtual void run_builtin(const std::string& name, const std::vector<KernelArg>& args) = 0;
    virtual void synchronize() = 0;  // checked stream synchronize
};

}  // namespace kl
