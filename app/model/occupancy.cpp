#include "model/occupancy.h"

#include <algorithm>
#include <cstdio>

namespace kl {

namespace {
int64_t round_up(int64_t x, int64_t unit) { return unit > 0 ? (x + unit - 1) / unit * unit : x; }
int64_t div_up(int64_t x, int64_t unit) { return unit > 0 ? (x + unit - 1) / unit : x; }

std::string kb(int64_t bytes) {
    if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KB";
    char s[32];
    std::snprintf(s, sizeof s, "%.1f KB", bytes / 1024.0);
    return s;
}
}  // namespace

int64_t launch_registers_per_block(const DeviceLimits& d, int regs_per_thread, int threads) {
    const int64_t per_warp = round_up(int64_t(regs_per_thread) * d.warp_size, d.reg_alloc_unit);
    const int64_t warps = div_up(threads, d.warp_size);
    // cuda_occupancy.h: the hardware check assumes allocations made to all sub-partitions at
    // once, so the warps are rounded up to a multiple of the sub-partitions.
    return per_warp * round_up(warps, d.reg_sub_partitions);
}

int max_threads_for_registers(const DeviceLimits& d, int regs_per_thread) {
    for (int t = d.max_threads_per_block; t >= d.warp_size; t -= d.warp_size)
        if (launch_registers_per_block(d, regs_per_thread, t) <= d.regs_per_block) return t;
    return 0;
}

Occupancy compute_occupancy(const DeviceLimits& d, int regs_per_thread, int64_t smem_bytes, int threads) {
    Occupancy o;
    o.threads_per_block = threads;
    o.warps_per_block = static_cast<int>(div_up(threads, d.warp_size));
    o.max_warps = d.max_warps_per_sm();
    if (threads < 1 || threads > d.max_threads_per_block) return o;
    o.by_threads = o.max_warps / o.warps_per_block;
    o.by_blocks = d.max_blocks_per_sm;
    // Registers: per warp rounded to the allocation unit; each sub-partition holds whole warps.
    const int64_t regs_per_warp = round_up(int64_t(regs_per_thread) * d.warp_size, d.reg_alloc_unit);
    o.regs_per_block = regs_per_warp * o.warps_per_block;
    if (regs_per_thread > d.max_regs_per_thread ||
        launch_registers_per_block(d, regs_per_thread, threads) > d.regs_per_block) {
        o.by_registers = 0;
    } else if (regs_per_warp == 0) {
        o.by_registers = Occupancy::kUnlimited;
    } else {
        const int64_t warps_per_sub = (d.regs_per_sm / d.reg_sub_partitions) / regs_per_warp;
        o.by_registers = static_cast<int>(warps_per_sub * d.reg_sub_partitions / o.warps_per_block);
    }
    // Shared memory: static + dynamic + the system's reserve, rounded to the allocation unit,
    // against the SM's largest carveout (the runtime picks the carveout that fits).
    o.smem_per_block = round_up(smem_bytes + d.reserved_smem_per_block, d.smem_alloc_unit);
    if (smem_bytes > d.smem_per_block_optin)
        o.by_shared_memory = 0;
    else if (smem_bytes == 0 && d.reserved_smem_per_block == 0)
        o.by_shared_memory = Occupancy::kUnlimited;
    else
        o.by_shared_memory = static_cast<int>(d.smem_per_sm / o.smem_per_block);
    o.blocks_per_sm = std::min({o.by_threads, o.by_blocks, o.by_registers, o.by_shared_memory});
    o.active_warps = o.blocks_per_sm * o.warps_per_block;
    const std::pair<const char*, int> order[] = {{"threads", o.by_threads},
                                                 {"blocks", o.by_blocks},
                                                 {"registers", o.by_registers},
                                                 {"shared memory", o.by_shared_memory}};
    for (const auto& [name, v] : order)
        if (v == o.blocks_per_sm) o.limiters.push_back(name);
    o.limiter = o.limiters.front();
    return o;
}

std::string launch_refusal(const DeviceInfo& device, const KernelResources& k, int threads, int64_t dynamic_smem,
                           const std::string& block_advice, const std::string& smem_advice) {
    const DeviceLimits& d = device.limits;
    const std::string on = " on " + device.name + " (" + device.arch() + ")";
    const std::string lower_block = block_advice.empty() ? "use a smaller block" : block_advice;
    if (threads > d.max_threads_per_block)
        return "threads: a block of " + std::to_string(threads) + " threads is more than the " +
               std::to_string(d.max_threads_per_block) + " a block may have" + on + "; " + lower_block;
    const int64_t regs = launch_registers_per_block(d, k.regs_per_thread, threads);
    const bool over_kernel_limit = k.max_threads_per_block > 0 && threads > k.max_threads_per_block;
    if (regs > d.regs_per_block || over_kernel_limit) {
        const int fit = k.max_threads_per_block > 0
                            ? std::min(k.max_threads_per_block, max_threads_for_registers(d, k.regs_per_thread))
                            : max_threads_for_registers(d, k.regs_per_thread);
        return "registers: " + std::to_string(threads) + " threads x " + std::to_string(k.regs_per_thread) +
               " registers per thread need " + std::to_string(regs) + " registers per block (allocated per warp in " +
               std::to_string(d.reg_alloc_unit) + "s), more than the " + std::to_string(d.regs_per_block) +
               " a block may have" + on + "; " + lower_block + " to " + std::to_string(fit) +
               " threads or fewer, or a parameter that raises registers per thread";
    }
    const int64_t smem = k.static_smem_bytes + dynamic_smem;
    if (smem > d.smem_per_block_optin) {
        std::string parts =
            "static " + std::to_string(k.static_smem_bytes) + " + dynamic " + std::to_string(dynamic_smem);
        return "shared memory: a block needs " + std::to_string(smem) + " bytes (" + kb(smem) + ": " + parts +
               "), more than the " + std::to_string(d.smem_per_block_optin) + " bytes (" + kb(d.smem_per_block_optin) +
               ") a block may have" + on + " even after opting in; " +
               (smem_advice.empty() ? std::string("use smaller tiles") : smem_advice);
    }
    return "";
}

}  // namespace kl
