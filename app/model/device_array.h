// A named, typed array in GPU memory as the CUDA-free code sees it: its address, element type
// and length, and nothing that allocates or frees. Operations (ops/*.cpp) make and read their
// inputs and outputs through OpContext with these; the GPU library's DeviceBuffer
// (gpu/device_buffer.h) is the one kind that owns its memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "model/dtype.h"

namespace kl {

class DeviceArray {
  public:
    void* data() const { return ptr_; }
    template <class T>
    T* as() const {
        return static_cast<T*>(ptr_);
    }
    size_t bytes() const { return static_cast<size_t>(elements_) * dtype_size(dtype_); }
    int64_t elements() const { return elements_; }
    DType dtype() const { return dtype_; }
    const std::string& name() const { return name_; }

  protected:
    DeviceArray() = default;
    DeviceArray(std::string name, DType dtype, int64_t elements)
        : name_(std::move(name)), dtype_(dtype), elements_(elements) {}
    ~DeviceArray() = default;  // never deleted through a base pointer: only owners delete
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    DeviceArray(DeviceArray&&) = default;
    DeviceArray& operator=(DeviceArray&&) = default;

    std::string name_;
    DType dtype_ = DType::F32;
    int64_t elements_ = 0;
    void* ptr_ = nullptr;
};

}  // namespace kl
