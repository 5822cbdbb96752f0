#include "gpu/launch_resources.h"

#include "base/errors.h"
#include "gpu/cuda_check.h"

namespace kl {

LaunchResources prepare_launch(const DeviceInfo& device, cudaKernel_t kernel, const Rung& rung, const LaunchSpec& spec,
                               dim3 grid, dim3 block, int64_t dynamic_smem, const std::string& label,
                               const Scope& scope) {
    const void* fn = reinterpret_cast<const void*>(kernel);
    cudaFuncAttributes fa{};
    KL_CUDA_CALL(cudaFuncGetAttributes(&fa, fn));
    LaunchResources r;
    r.entry = spec.entry;
    r.grid[0] = static_cast<int>(grid.x), r.grid[1] = static_cast<int>(grid.y), r.grid[2] = static_cast<int>(grid.z);
    r.block[0] = static_cast<int>(block.x), r.block[1] = static_cast<int>(block.y),
    r.block[2] = static_cast<int>(block.z);
    r.dynamic_smem_bytes = dynamic_smem;
    r.kernel.regs_per_thread = fa.numRegs;
    r.kernel.static_smem_bytes = static_cast<int64_t>(fa.sharedSizeBytes);
    r.kernel.local_bytes = static_cast<int64_t>(fa.localSizeBytes);
    r.kernel.max_threads_per_block = fa.maxThreadsPerBlock;
    const int threads = r.threads();
    std::vector<Expr> smem_exprs{spec.smem};
    std::string why = launch_refusal(device, r.kernel, threads, dynamic_smem, shrink_advice(rung, spec.block, scope),
                                     shrink_advice(rung, smem_exprs, scope));
    if (!why.empty()) throw InputError(label + ": cannot launch: " + why);
    // Past 48 KB a block's shared memory must be asked for, per kernel, before the launch.
    if (r.kernel.static_smem_bytes + dynamic_smem > device.limits.smem_per_block)
        KL_CUDA_CALL(
            cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_smem)));
    r.occupancy =
        compute_occupancy(device.limits, r.kernel.regs_per_thread, r.kernel.static_smem_bytes + dynamic_smem, threads);
    int blocks = 0;
    KL_CUDA_CALL(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, static_cast<size_t>(dynamic_smem)));
    r.runtime_blocks_per_sm = blocks;
    return r;
}

}  // namespace kl
