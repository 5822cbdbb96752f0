// Rung 2 - GeLU in the GEMM's epilogue: the intermediate U = X W1 never exists.
//
// What changes from rung 1: there, cuBLAS wrote U (T x F, bf16) to DRAM, a GeLU kernel read it
// back and wrote H, and the second GEMM read H. Here the first product is the matmul ladder's
// Hopper rung 12 (kernels/matmul/12_wgmma_tma_bf16.cu: TMA copies fed by a producer warpgroup,
// wgmma consumers, persistent blocks), included unchanged from kernels/common/kl_tma_gemm.cuh but
// for its epilogue: each consumer applies GeLU to its accumulators while they are still in
// registers and stores H in bf16 (`store_gelu_bf16`, gelu.cuh). The second product stays cuBLAS (the `cublas_bf16`
// builtin).
// Why it should be faster: U's write and read (2 x T x F x 2 bytes, 512 MiB at 8192 x 16384) and the GeLU
// kernel's launch are gone; the activation costs one SFU tanh and a few FMAs per element in an epilogue that the
// producer already overlaps with the next tile's copies. The store also halves: bf16 H instead of rung 12's fp32 C.
// What to see: the epilogue rung against rung 1 by at least U's round trip at copy bandwidth,
// and the counters' DRAM bytes down by that round trip; against cuBLASLt's own GELU epilogue
// (the reference rung), how close a hand-written Hopper GEMM gets.
// Error: as rung 1 (fp32 sums, one rounding of GeLU's result to bf16); the tanh is the SFU's
// tanh.approx (gelu.cuh), like the GeLU kernel of rung 1.
// Edges and alignment: as matmul rung 12 (element-wise copies by the producer when K or N is not
// a multiple of 8); H written with guards, in bf16 pairs when aligned.
// What it needs: sm_90a only (Hopper: wgmma, TMA bulk tensor copies and mbarrier transaction counts
// are Hopper features); bf16 data.

#include "gelu.cuh"  // the tanh-form GeLU on the SFU, and its bf16 epilogue store_gelu_bf16 (this folder)

#if !defined(BM) || !defined(BN) || !defined(STAGES) || !defined(GROUP_M)
#error "BM, BN, STAGES and GROUP_M must be defined, e.g. -DBM=128 -DBN=256 -DSTAGES=4 -DGROUP_M=8"
#endif

#define NUM_CONSUMERS (BM / 64)  // consumer warpgroups, 64 rows of C each
// Registers per thread after the hand-over (kl_tma_gemm.cuh says how they are counted):
//   two consumers:  launch 168; producer 168 -> 40 frees 16,384; consumers 168 -> 232 take 16,384
//   four consumers: launch 96;  producer 96 -> 40 frees 7,168;   consumers 96 -> 104 take 4,096
#define PRODUCER_REGS 40
// Matmul rung 12's stages, producer, set-up and main loop, unchanged (kernels/common).
#include "kl_tma_gemm.cuh"

static_assert(BM == 128 || BM == 256, "BM must be 128 or 256 (two or four consumer warpgroups)");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN must be 64, 128 or 256 (the N of one wgmma)");
// The accumulators' registers and the stages' shared memory are the manifest's constraints.
static_assert(BN / 2 + 32 <= CONSUMER_REGS, "a consumer's BN / 2 accumulators must fit its register budget");

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)
    mlp_gemm_gelu(__nv_bfloat16* H, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                  const __grid_constant__ TmaDescriptor map_a, const __grid_constant__ TmaDescriptor map_b) {
    // Matmul rung 12's stages, producer and consumers (kl_tma_gemm.cuh), but for the epilogue
    // (the change): GeLU on the accumulators while they are still in registers, then bf16 H
    // (gelu.cuh's store_gelu_bf16).
    gemm_tma(H, A, B, M, N, K, &map_a, &map_b,
             [](const float(&d)[BN / 2], __nv_bfloat16* H, int M, int N, int row0, int col0) {
                 store_gelu_bf16(d, H, M, N, row0, col0);
             });
}
