// A typed device allocation owned by RAII (cudaMalloc, cudaFree): the DeviceArray that owns its
// memory. Moves, never copies.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/device_array.h"

namespace kl {

class DeviceBuffer : public DeviceArray {
  public:
    DeviceBuffer() = default;
    DeviceBuffer(std::string name, DType dtype, int64_t elements);  // throws GpuError (with size) on OOM
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& o) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
};

// A byte count as the memory refusals print it: "1.50 GiB".
std::string gib_text(double bytes);

}  // namespace kl
