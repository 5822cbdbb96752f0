// Facts about the GPU that results carry and models use.
#pragma once
#include <cstdint>
#include <string>

namespace kl {

// What a block may use and how an SM shares its resources among blocks: the inputs of the
// CUDA occupancy calculator (occupancy.h) and of the launch check. Filled from the runtime
// (cudaGetDeviceProperties) on a real GPU, or from a device profile (device_profile.h).
struct DeviceLimits {
    int warp_size = 32;
    int max_threads_per_block = 1024;
    int max_threads_per_sm = 2048;
    int max_blocks_per_sm = 32;
    int regs_per_sm = 65536;
    int regs_per_block = 65536;
    int max_regs_per_thread = 255;
    int reg_alloc_unit = 256;             // registers are given to a warp in multiples of this
    int reg_sub_partitions = 4;           // an SM's register file is split among this many schedulers
    int64_t smem_per_sm = 0;              // shared memory an SM can hold (the largest carveout)
    int64_t smem_per_block = 49152;       // without opting in
    int64_t smem_per_block_optin = 0;     // with cudaFuncAttributeMaxDynamicSharedMemorySize
    int smem_alloc_unit = 128;            // a block's shared memory is rounded up to this
    int64_t reserved_smem_per_block = 0;  // taken by the system for every block (1 KB from sm_80)
    // Launch geometry (cudaDeviceProp maxGridSize, maxThreadsDim): the same on every GPU since
    // compute capability 3.0, so profiles and results need not carry them.
    int64_t max_grid[3] = {2147483647, 65535, 65535};
    int max_block[3] = {1024, 1024, 64};
    int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
};

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
    DeviceLimits limits;
    bool has_limits = false;  // false for results files written before schema v2
    std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
    int cc() const { return cc_major * 10 + cc_minor; }
    // Datasheet-style peak derived from the clock: SMs x 128 FP32 lanes x 2 FLOPs x clock.
    double fp32_peak_flops() const { return double(sm_count) * 128 * 2 * sm_clock_khz * 1e3; }
    double dram_peak_bytes_per_s() const { return 2.0 * mem_clock_khz * 1e3 * mem_bus_bits / 8; }
};

}  // namespace kl
