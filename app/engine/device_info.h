// Facts about the GPU that results carry and models use.
#pragma once
#include <cstdint>
#include <string>

namespace kl {

struct DeviceInfo {
    int ordinal = 0;
    std::string name;  // "NVIDIA H100 80GB HBM3"
    std::string uuid;  // stable key for the calibration cache
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int64_t l2_bytes = 0;
    int64_t global_mem_bytes = 0;
    int64_t smem_per_block_optin = 0;
    int64_t smem_per_sm = 0;
    int sm_clock_khz = 0;  // peak SM clock reported by the driver
    int mem_clock_khz = 0;
    int mem_bus_bits = 0;
    int driver_version = 0;  // e.g. 13000
    int runtime_version = 0;
    std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
    // Datasheet-style peak derived from the clock: SMs x 128 FP32 lanes x 2 FLOPs x clock.
    double fp32_peak_flops() const { return double(sm_count) * 128 * 2 * sm_clock_khz * 1e3; }
    double dram_peak_bytes_per_s() const { return 2.0 * mem_clock_khz * 1e3 * mem_bus_bits / 8; }
};

}  // namespace kl
