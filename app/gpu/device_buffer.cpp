#include "gpu/device_buffer.h"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "gpu/cuda_check.h"

namespace kl {

std::string gib_text(double bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    return b;
}

DeviceBuffer::DeviceBuffer(std::string name, DType dtype, int64_t elements)
    : DeviceArray(std::move(name), dtype, elements) {
    if (elements <= 0) return;
    cudaError_t err = cudaMalloc(&ptr_, bytes());
    if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // not sticky: clear it
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        throw InputError("problem too large for GPU memory: buffer '" + name_ + "' needs " + gib_text(double(bytes())) +
                         ", " + gib_text(double(free_b)) + " free of " + gib_text(double(total_b)));
    }
    if (err != cudaSuccess) throw_cuda_error(err, "cudaMalloc", __FILE__, __LINE__);
}

DeviceBuffer::~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);  // unchecked: destructors must not throw (may run after a fault)
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : DeviceArray(std::move(o)) {
    o.ptr_ = nullptr;
    o.elements_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
        if (ptr_) cudaFree(ptr_);
        name_ = std::move(o.name_);
        dtype_ = o.dtype_;
        elements_ = o.elements_;
        ptr_ = o.ptr_;
        o.ptr_ = nullptr;
        o.elements_ = 0;
    }
    return *this;
}

}  // namespace kl
