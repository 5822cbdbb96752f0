// The CUDA occupancy calculator's arithmetic (as in cuda_occupancy.h and Nsight Compute's
// calculator), over a DeviceLimits: how many blocks of a kernel fit on one SM at once, which
// resource stops the next one, and whether the launch fits at all. Needs no GPU, so it runs on
// device profiles in tests and in the window; on a real GPU the runner cross-checks it with
// cudaOccupancyMaxActiveBlocksPerMultiprocessor.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/device_info.h"

namespace kl {

// What the compiled kernel asks of the device (cudaFuncGetAttributes on the loaded kernel).
struct KernelResources {
    int regs_per_thread = 0;
    int64_t static_smem_bytes = 0;
    int64_t local_bytes = 0;        // per thread: register spills and local arrays
    int max_threads_per_block = 0;  // the loaded kernel's own limit (registers), 0 when unknown
};

struct Occupancy {
    static constexpr int kUnlimited = 1 << 30;  // a resource the kernel does not use
    int threads_per_block = 0, warps_per_block = 0;
    int64_t regs_per_block = 0;  // allocated: per warp rounded up to the allocation unit
    int64_t smem_per_block = 0;  // allocated: static + dynamic + reserved, rounded up
    // Blocks per SM each resource allows on its own.
    int by_threads = 0, by_blocks = 0, by_registers = 0, by_shared_memory = 0;
    int blocks_per_sm = 0;
    int active_warps = 0, max_warps = 0;
    // "threads", "blocks", "registers" or "shared memory": the first of those giving
    // blocks_per_sm, in that order (a tie with threads means fewer registers would not help).
    std::string limiter;
    std::vector<std::string> limiters;  // every resource at the minimum
    double fraction() const { return max_warps ? double(active_warps) / max_warps : 0; }
};

// Theoretical occupancy of blocks of `threads` threads using `smem_bytes` of shared memory
// (static + dynamic) and the kernel's registers per thread, on one SM of `d`.
Occupancy compute_occupancy(const DeviceLimits& d, int regs_per_thread, int64_t smem_bytes, int threads);

// Registers one block of `threads` takes as the hardware counts them at launch: each warp's
// share rounded up to the allocation unit, warps rounded up to the sub-partitions.
int64_t launch_registers_per_block(const DeviceLimits& d, int regs_per_thread, int threads);
// The largest block (a multiple of the warp size) that fits the registers per block.
int max_threads_for_registers(const DeviceLimits& d, int regs_per_thread);

// Why a launch of `threads` threads with `dynamic_smem` bytes cannot run on `device`, in one
// line that teaches: the resource, what the launch needs, what the device has, and what to
// change: `block_advice` for the block ("lower TPB", "lower BM, BN or raise TM, TN":
// shrink_advice in launch_geometry.h), `smem_advice` for the shared memory ("" for a general
// phrase). "" when it can launch.
std::string launch_refusal(const DeviceInfo& device, const KernelResources& k, int threads, int64_t dynamic_smem,
                           const std::string& block_advice, const std::string& smem_advice);

}  // namespace kl
