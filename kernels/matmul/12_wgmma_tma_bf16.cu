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
// What to see (H100, 2026-11-22, same calls as cuBLAS bf16): 710-722 TFLOP/s at 4096^3 against
// rung 11's 561-574 and cuBLAS's 746-759 (0.94-0.96x); 675-705 at 8192^3 against cuBLAS's
// 681-717. One block per tile instead of persistent blocks: 680 at 4096^3 (the epilogue
// overlap is worth 5%). Compiled for sm_90a only (wgmma, setmaxnreg).
// Error: as rung 11, ~1e-6 relative against the exact product of the bf16 inputs.
//
// Edges and alignment: TMA needs 16-byte aligned rows (K and N multiples of 8) and base
// addresses. Otherwise the engine passes zeroed maps, and the producer warpgroup copies
// element-wise, with guards, into the same swizzled layout (all 128 of its threads).

#include <cuda_bf16.h>

#include "kl_tma.cuh"    // TMA box loads, mbarriers, setmaxnreg, the grouped tile order (kernels/common)
#include "kl_wgmma.cuh"  // wgmma, its fences and the smem descriptor, shared with rung 11

#if !defined(BM) || !defined(BN) || !defined(STAGES)
#error "BM, BN and STAGES must be defined, e.g. -DBM=128 -DBN=256 -DSTAGES=4"
#endif

#define BK 64                                    // one 128-byte swizzled row of bf16 per K-tile
#define NUM_CONSUMERS (BM / 64)                  // consumer warpgroups, 64 rows of C each
#define NUM_THREADS (128 * (NUM_CONSUMERS + 1))  // + the producer warpgroup
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024  // the 128-byte swizzle repeats every 8 rows = 1 KB
#define GROUP_M 8        // tile rows handed out together (rung 11)

// Registers per thread after the hand-over. The block is given LAUNCH_REGS per thread at launch
// (__launch_bounds__(NUM_THREADS, 1): 65536 / NUM_THREADS, rounded down to 8), and setmaxnreg
// only moves registers *inside the block*: the consumers may take no more than the producer
// gives back, or their setmaxnreg.inc waits forever (a first version asked 112 with four
// consumers, 8,192 more than the 7,168 freed, and hung).
//   two consumers:  launch 168; producer 168 -> 40 frees 16,384; consumers 168 -> 232 take 16,384
//   four consumers: launch 96;  producer 96 -> 40 frees 7,168;   consumers 96 -> 104 take 4,096
#define PRODUCER_REGS 40
#define LAUNCH_REGS ((65536 / NUM_THREADS) / 8 * 8)
#define CONSUMER_REGS (LAUNCH_REGS + ((LAUNCH_REGS - PRODUCER_REGS) / NUM_CONSUMERS) / 8 * 8)
static_assert((CONSUMER_REGS - LAUNCH_REGS) * NUM_CONSUMERS <= LAUNCH_REGS - PRODUCER_REGS,
              "the consumers cannot take more registers than the producer gives back");
static_assert(CONSUMER_REGS <= 256, "setmaxnreg allows at most 256 registers per thread");

static_assert(BM == 128 || BM == 256, "BM must be 128 or 256 (two or four consumer warpgroups)");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN must be 64, 128 or 256 (the N of one wgmma)");
// The accumulators' registers and the stages' shared memory are the manifest's constraints.
static_assert(BN / 2 + 32 <= CONSUMER_REGS, "a consumer's BN / 2 accumulators must fit its register budget");
static_assert(STAGES >= 2, "at least two stages: one being filled while another is read");

// ---------------------------------------------------------------------------------------------
// Stages (the PTX wrappers and the grouped tile order are in kl_tma.cuh)
// ---------------------------------------------------------------------------------------------
// The ring of stages: stage index and the parity of its current use. Producer and consumers
// step through the same sequence (every tile has the same number of K-tiles).
using Ring = StageRing<STAGES>;  // kl_tma.cuh

struct Shared {
    unsigned char* stages;  // STAGES x (A tile, then BN / 64 blocks of B), 1 KB aligned
    unsigned full_bar;      // STAGES barriers, 8 bytes apart: the stage's data has landed
    unsigned empty_bar;     // STAGES barriers: every consumer warp is done reading the stage
    __device__ unsigned full(int s) const { return full_bar + 8 * s; }
    __device__ unsigned empty(int s) const { return empty_bar + 8 * s; }
    __device__ unsigned char* a(int s) const { return stages + s * STAGE_BYTES; }
    __device__ unsigned char* b(int s) const { return stages + s * STAGE_BYTES + A_STAGE_BYTES; }
};

// ---------------------------------------------------------------------------------------------
// Producer
// ---------------------------------------------------------------------------------------------
// With TMA: a single thread. Per K-tile: wait until the stage is free, announce its bytes, and
// issue 1 + BN / 64 box copies. Boxes reaching past M, N or K arrive zero-filled (and their full
// size still counts toward the announced bytes).
__device__ __forceinline__ void produce_tma(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                            int tiles_m, int tiles_n, int k_tiles) {
    Ring ring;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int m0, n0;
        tile_origin<GROUP_M, BM, BN>(tile, tiles_m, tiles_n, m0, n0);
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
            const unsigned full = sh.full(ring.stage);
            mbar_arrive_expect_bytes(full, STAGE_BYTES);
            tma_load_2d(smem_addr(sh.a(ring.stage)), map_a, kt * BK, m0, full);
#pragma unroll
            for (int j = 0; j < BN / 64; ++j)
                tma_load_2d(smem_addr(sh.b(ring.stage) + j * (BK * 128)), map_b, n0 + j * 64, kt * BK, full);
            ring.advance();
        }
    }
}

// Eight bf16 bit patterns -> one 16-byte vector, lowest address first.
__device__ __forceinline__ uint4 pack8(const unsigned short (&v)[8]) {
    return make_uint4(v[0] | ((unsigned)v[1] << 16), v[2] | ((unsigned)v[3] << 16), v[4] | ((unsigned)v[5] << 16),
                      v[6] | ((unsigned)v[7] << 16));
}

// Without TMA (rows not 16-byte aligned): the producer's 128 threads load element by element,
// with guards, and store 16-byte chunks at the swizzled places the copy engine would have used:
//   A: row r at r * 128 bytes, chunk c (8 bf16 of K) at (c ^ (r % 8)) * 16;
//   B: 64-column block j at j * 8 KB, k-row r at r * 128, chunk c at (c ^ (r % 8)) * 16.
// Every thread fences its writes for the tensor cores (async proxy) and arrives on `full`.
__device__ __forceinline__ void produce_elementwise(const Shared& sh, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                    int M, int N, int K, int tiles_m, int tiles_n, int k_tiles) {
    const int pt = threadIdx.x % 128;
    const unsigned short* A16 = reinterpret_cast<const unsigned short*>(A);
    const unsigned short* B16 = reinterpret_cast<const unsigned short*>(B);
    Ring ring;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int m0, n0;
        tile_origin<GROUP_M, BM, BN>(tile, tiles_m, tiles_n, m0, n0);
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
            const int k0 = kt * BK;
            for (int i = pt; i < BM * 8; i += 128) {
                const int r = i / 8, c = i % 8, row = m0 + r, col = k0 + c * 8;
                unsigned short v[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) v[e] = (row < M && col + e < K) ? A16[(size_t)row * K + col + e] : 0;
                *reinterpret_cast<uint4*>(sh.a(ring.stage) + r * 128 + ((c ^ (r & 7)) * 16)) = pack8(v);
            }
            for (int i = pt; i < BK * BN / 8; i += 128) {
                const int r = i / (BN / 8), cn = i % (BN / 8), j = cn / 8, c = cn % 8, row = k0 + r, col = n0 + cn * 8;
                unsigned short v[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) v[e] = (row < K && col + e < N) ? B16[(size_t)row * N + col + e] : 0;
                *reinterpret_cast<uint4*>(sh.b(ring.stage) + j * (BK * 128) + r * 128 + ((c ^ (r & 7)) * 16)) =
                    pack8(v);
            }
            fence_proxy_async();
            mbar_arrive(sh.full(ring.stage));
            ring.advance();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Consumers
// ---------------------------------------------------------------------------------------------
// Warpgroup `cg` computes rows cg*64 .. cg*64+63 of each tile. Per K-tile: wait for the stage,
// issue its four wgmmas as one batch, and wait only for the previous batch, whose stage it then
// hands back to the producer (one arrival per warp).
__device__ __forceinline__ void consume(const Shared& sh, float* C, int M, int N, int cg, int tiles_m, int tiles_n,
                                        int k_tiles) {
    const int lane = threadIdx.x % 32;
    // Not zeroed: each tile's first wgmma runs with accumulate = 0 (see rung 11: zeroing by hand
    // makes ptxas serialize the wgmmas).
    float d[BN / 2];
    Ring ring;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int m0, n0;
        tile_origin<GROUP_M, BM, BN>(tile, tiles_m, tiles_n, m0, n0);
        int previous = -1;  // the stage whose batch may still be running
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.full(ring.stage), ring.parity);
            const unsigned sA = smem_addr(sh.a(ring.stage)) + cg * (64 * 128);
            const unsigned sB = smem_addr(sh.b(ring.stage));
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                // A: next 16 k = 32 bytes along each swizzled row; 8-row groups 1 KB apart.
                // B: next 16 k = 16 rows = 2 KB; 8-row groups 1 KB apart; 64-column blocks 8 KB apart.
                const unsigned long long desc_a = make_desc(sA + kk * 32, 16, 1024);
                const unsigned long long desc_b = make_desc(sB + kk * 16 * 128, BK * 128, 1024);
                wgmma_bf16(d, desc_a, desc_b, kt > 0 || kk > 0);
            }
            wgmma_commit();
            wgmma_wait<1>();  // the previous batch is done: its stage can be refilled
            fence_accumulators(d);
            if (previous >= 0 && lane == 0) mbar_arrive(sh.empty(previous));
            previous = ring.stage;
            ring.advance();
        }
        wgmma_wait<0>();
        fence_accumulators(d);
        if (lane == 0) mbar_arrive(sh.empty(previous));

        // Epilogue, straight from registers (kl_wgmma.cuh has the layout). The stores are
        // fire-and-forget; the producer is already filling the next tile's stages.
        store_accumulators(d, C, M, N, m0 + cg * 64, n0);
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_wgmma_tma_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                          const __grid_constant__ TmaDescriptor map_a, const __grid_constant__ TmaDescriptor map_b) {
    extern __shared__ unsigned char smem_raw[];
    // Align the stages to 1 KB by hand (the launch asks for SMEM_ALIGN extra bytes for this);
    // the barriers follow the stages.
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    Shared sh;
    sh.stages = base;
    sh.full_bar = smem_addr(base + STAGES * STAGE_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;

    // The same test the engine applies before encoding the maps: when it fails, the maps are zeros.
    const bool use_tma =
        (K % 8 == 0) && (N % 8 == 0) && ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B)) % 16 == 0);
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, k_tiles = (K + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), use_tma ? 1 : 128);   // the producer's one expect_tx arrival, or all 128 copiers
            mbar_init(sh.empty(s), NUM_CONSUMERS * 4);  // one arrival per consumer warp
        }
        // Make the initialized barriers visible to the copy engine and to the other threads.
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        fence_proxy_async();
    }
    __syncthreads();

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (use_tma) {
            if (threadIdx.x == 0) produce_tma(sh, &map_a, &map_b, tiles_m, tiles_n, k_tiles);
        } else {
            produce_elementwise(sh, A, B, M, N, K, tiles_m, tiles_n, k_tiles);
        }
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, C, M, N, wg - 1, tiles_m, tiles_n, k_tiles);
    }
}
