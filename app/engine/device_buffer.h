// A typed device allocation owned by RAII. Moves, never copies.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "dtype.h"

namespace kl {

class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    DeviceBuffer(std::string name, DType dtype, int64_t elements);  // throws GpuError (with size) on OOM
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& o) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    void* data() const { return ptr_; }
    template <class T>
    T* as() const {
        return static_cast<T*>(ptr_);
    }
    size_t bytes() const { return static_cast<size_t>(elements_) * dtype_size(dtype_); }
    int64_t elements() const { return elements_; }
    DType dtype() const { return dtype_; }
    const std::string& name() const { return name_; }

  private:
    std::string name_;
    DType dtype_ = DType::F32;
    int64_t elements_ = 0;
    void* ptr_ = nullptr;
};

}  // namespace kl
