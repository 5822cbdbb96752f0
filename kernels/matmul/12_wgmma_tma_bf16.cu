// Rung 12 - TMA copies and warp specialization: the tensor cores stop waiting for the threads.
//
// What changes from rung 11: there, the same 256 threads did everything in turn. Each K-tile they
// issued 12 cp.async each (plus address and guard arithmetic), waited for their own copies,
// fenced, met at a __syncthreads, and only then issued the wgmma batch; a warpgroup that finished
// early waited at the barrier for the slowest one.
// Here the block splits into roles, one warpgroup each:
//  1. A producer warpgroup. One of its threads issues the copies with the Tensor Memory
//     Accelerator (TMA): one `cp.async.bulk.tensor` per tile of A (BM x 64) and one per 64-column
//     block of B (64 x 64). The copy engine computes the addresses, zero-fills what lies outside
//     the matrix and writes the 128-byte swizzled layout wgmma reads (the same layout as rung 11),
//     all from a tensor map built on the host (the manifest's `tmap(...)` arguments).
//  2. BM / 64 consumer warpgroups that only wait and multiply: each owns 64 rows x BN columns.
// They talk through two mbarriers per stage instead of __syncthreads: `full` completes when the
// copy engine has written the stage's bytes (the producer announces the byte count with
// arrive.expect_tx); `empty` completes when every consumer warp has finished the wgmmas that read
// the stage. Nobody waits for anybody it does not depend on.
//  3. setmaxnreg moves registers from the producer (40 per thread) to the consumers (up to 232),
//     which hold the BN/2 fp32 accumulators per thread.
//  4. Persistent blocks: one block per SM walks the tiles (in rung 11's grouped order). While the
//     consumers write one tile's C, the producer already fills the stages for the next tile, so
//     the epilogue no longer starts the next tile's pipeline from empty.
// Why it should be faster: in rung 11 the math warps themselves issued every copy (with its
// address and guard arithmetic), waited for their own copies and met at a block-wide barrier
// once per K-tile, so one late warp held up both warpgroups' tensor-core work, and only
// STAGES - 2 tiles could be in flight. Here the math warps issue only wgmma, mbarrier waits and
// the epilogue; the copies run up to STAGES tiles ahead on their own engine, and each consumer
// waits only for the data it needs.
// What to see: a large step over rung 11 at 4096^3 and 8192^3, close to cuBLAS bf16; with one
// block per tile instead of persistent blocks the epilogue overlap is lost (a few percent).
// Compiled for sm_90a only (wgmma, setmaxnreg).
// Error: as rung 11, ~1e-6 relative against the exact product of the bf16 inputs.
//
// Edges and alignment: TMA needs 16-byte aligned rows (K and N multiples of 8) and base
// addresses. Otherwise the engine passes zeroed maps, and the producer warpgroup copies
// element-wise, with guards, into the same swizzled layout (all 128 of its threads).
// What it needs: sm_90a only (Hopper: wgmma, TMA bulk tensor copies and mbarrier transaction counts
// are Hopper features); bf16 data.

#if !defined(BM) || !defined(BN) || !defined(STAGES)
#error "BM, BN and STAGES must be defined, e.g. -DBM=128 -DBN=256 -DSTAGES=4"
#endif

#define GROUP_M 8                // tile rows handed out together (rung 11)
#define NUM_CONSUMERS (BM / 64)  // consumer warpgroups, 64 rows of C each
// Registers per thread after the hand-over (kl_tma_gemm.cuh says how they are counted):
//   two consumers:  launch 168; producer 168 -> 40 frees 16,384; consumers 168 -> 232 take 16,384
//   four consumers: launch 96;  producer 96 -> 40 frees 7,168;   consumers 96 -> 104 take 4,096
#define PRODUCER_REGS 40
// The stages, the producer, the block's set-up and the consumers' main loop described above are
// written once in kernels/common, where the mlp ladder's rungs 2-4 use them too.
#include "kl_tma_gemm.cuh"

static_assert(BM == 128 || BM == 256, "BM must be 128 or 256 (two or four consumer warpgroups)");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN must be 64, 128 or 256 (the N of one wgmma)");
// The accumulators' registers and the stages' shared memory are the manifest's constraints.
static_assert(BN / 2 + 32 <= CONSUMER_REGS, "a consumer's BN / 2 accumulators must fit its register budget");

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_wgmma_tma_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                          const __grid_constant__ TmaDescriptor map_a, const __grid_constant__ TmaDescriptor map_b) {
    // kl_tma_gemm.cuh's stages, producer and consumers; the epilogue, straight from registers to
    // fp32 C (kl_wgmma.cuh).
    gemm_tma(C, A, B, M, N, K, &map_a, &map_b, [](const float(&d)[BN / 2], float* C, int M, int N, int row0, int col0) {
        store_accumulators(d, C, M, N, row0, col0);
    });
}
