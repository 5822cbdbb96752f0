// Matmul rung 12's warp-specialized bf16 GEMM, the parts its successors reuse unchanged (sm_90a
// only): the ring of stages in shared memory, the producer warpgroup (one thread issuing TMA box
// copies, or all 128 copying element-wise when the rows are not 16-byte aligned), the barriers'
// set-up, the consumers (rung 12's main loop, with the epilogue as a parameter) and the whole
// kernel body, gemm_tma. Matmul rung 12 and mlp rung 2 are gemm_tma with their own epilogue;
// mlp rungs 3 and 4 take the stages and the producer and write their own consumers. Read
// matmul/12_wgmma_tma_bf16.cu's header for why the pieces are what they are.
//
// Before including it, a rung defines BM, BN, STAGES, GROUP_M (the grouped tile order, kl_tma.cuh's
// tile_origin), NUM_CONSUMERS (consumer warpgroups) and PRODUCER_REGS (what the producer keeps
// after setmaxnreg); this header defines the rest of the geometry below.
// The shared memory is carved in gemm_tma itself and in each rung that writes its own kernel, not
// in a helper: a helper, inlined, changed the address arithmetic handed to ptxas, and with it the
// machine code (scripts/check_same_sass.sh).
#pragma once

#include <cuda_bf16.h>

#include "kl_tma.cuh"    // TMA box loads, mbarriers, setmaxnreg, the grouped tile order (kernels/common)
#include "kl_wgmma.cuh"  // wgmma, its fences and the smem descriptor (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(STAGES) || !defined(GROUP_M) || !defined(NUM_CONSUMERS) || \
    !defined(PRODUCER_REGS)
#error "kl_tma_gemm.cuh needs BM, BN, STAGES, GROUP_M, NUM_CONSUMERS and PRODUCER_REGS defined first"
#endif

#define BK 64                                    // one 128-byte swizzled row of bf16 per K-tile
#define NUM_THREADS (128 * (NUM_CONSUMERS + 1))  // + the producer warpgroup
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024  // the 128-byte swizzle repeats every 8 rows = 1 KB

// Registers per thread after the hand-over. The block is given LAUNCH_REGS per thread at launch
// (__launch_bounds__(NUM_THREADS, 1): 65536 / NUM_THREADS, rounded down to 8), and setmaxnreg
// only moves registers *inside the block*: the consumers may take no more than the producer
// gives back, or their setmaxnreg.inc waits forever (a first version of matmul rung 12 asked 112
// with four consumers, 8,192 more than the 7,168 freed, and hung). The rungs list their figures.
#define LAUNCH_REGS ((65536 / NUM_THREADS) / 8 * 8)
#define CONSUMER_REGS (LAUNCH_REGS + ((LAUNCH_REGS - PRODUCER_REGS) / NUM_CONSUMERS) / 8 * 8)
static_assert((CONSUMER_REGS - LAUNCH_REGS) * NUM_CONSUMERS <= LAUNCH_REGS - PRODUCER_REGS,
              "the consumers cannot take more registers than the producer gives back");
static_assert(CONSUMER_REGS <= 256, "setmaxnreg allows at most 256 registers per thread");
static_assert(STAGES >= 2, "at least two stages: one being filled while another is read");

// ---------------------------------------------------------------------------------------------
// Stages
// ---------------------------------------------------------------------------------------------
// The ring of stages: stage index and the parity of its current use. Producer and consumers
// step through the same sequence (every tile has the same number of K-tiles).
using Ring = StageRing<STAGES>;  // kl_tma.cuh

struct Stages {
    unsigned char* stages;   // STAGES x (A tile, then BN / 64 blocks of B), 1 KB aligned
    unsigned char* patches;  // after the stages: mlp rung 4's patches of H (EPILOGUE = 1); unused elsewhere
    unsigned full_bar;       // STAGES barriers, 8 bytes apart: the stage's data has landed
    unsigned empty_bar;      // STAGES barriers: every consumer warp is done reading the stage
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
__device__ __forceinline__ void produce_tma(const Stages& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
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

// Without TMA (rows not 16-byte aligned): the producer's 128 threads load element by element,
// with guards, and store 16-byte chunks (kl_ptx.cuh's pack8) at the swizzled places the copy
// engine would have used:
//   A: row r at r * 128 bytes, chunk c (8 bf16 of K) at (c ^ (r % 8)) * 16;
//   B: 64-column block j at j * 8 KB, k-row r at r * 128, chunk c at (c ^ (r % 8)) * 16.
// Every thread fences its writes for the tensor cores (async proxy) and arrives on `full`.
__device__ __forceinline__ void produce_elementwise(const Stages& sh, const __nv_bfloat16* A, const __nv_bfloat16* B,
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

// The producer warpgroup's whole work: give registers back to the consumers, then fill the ring
// for every K-tile of the block's tiles, by TMA (one thread) or element-wise (all 128).
__device__ __forceinline__ void produce(const Stages& sh, bool use_tma, const TmaDescriptor* map_a,
                                        const TmaDescriptor* map_b, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                        int M, int N, int K, int tiles_m, int tiles_n, int k_tiles) {
    regs_decrease<PRODUCER_REGS>();
    if (use_tma) {
        if (threadIdx.x == 0) produce_tma(sh, map_a, map_b, tiles_m, tiles_n, k_tiles);
    } else {
        produce_elementwise(sh, A, B, M, N, K, tiles_m, tiles_n, k_tiles);
    }
}

// ---------------------------------------------------------------------------------------------
// The block's set-up
// ---------------------------------------------------------------------------------------------
// The same test the engine applies before encoding the maps of A and B: when it fails, the maps
// are zeros and the producer copies element-wise.
__device__ __forceinline__ bool tma_loads_ok(const void* A, const void* B, int N, int K) {
    return (K % 8 == 0) && (N % 8 == 0) && ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B)) % 16 == 0);
}

// Thread 0 initializes the barriers: `full` waits for the producer's one expect_tx arrival (or
// all 128 element-wise copiers), `empty` for `empty_arrivals` consumer warps. Then the block meets.
__device__ __forceinline__ void init_barriers(const Stages& sh, bool use_tma, unsigned empty_arrivals) {
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), use_tma ? 1 : 128);
            mbar_init(sh.empty(s), empty_arrivals);
        }
        fence_mbarrier_init();  // the barriers, visible to the copy engine and the other threads
        fence_proxy_async();
    }
    __syncthreads();
}

// ---------------------------------------------------------------------------------------------
// Consumers
// ---------------------------------------------------------------------------------------------
// Warpgroup `cg` computes rows cg*64 .. cg*64+63 of each of the block's tiles. Per K-tile: wait
// for the stage, issue its four wgmmas as one batch, and wait only for the previous batch, whose
// stage it then hands back to the producer (one arrival per warp). After a tile's last K-tile,
// `epilogue(d, out, M, N, row0, col0)` writes the warpgroup's 64 x BN part of it from registers
// (the layout is kl_wgmma.cuh's store_accumulators'): what the rungs built on this one change.
// The stores are fire-and-forget; the producer is already filling the next tile's stages.
template <class Out, class Epilogue>
__device__ __forceinline__ void consume(const Stages& sh, Out* out, int M, int N, int cg, int tiles_m, int tiles_n,
                                        int k_tiles, Epilogue epilogue) {
    const int lane = threadIdx.x % 32;
    // Not zeroed: each tile's first wgmma runs with accumulate = 0 (see matmul rung 11: zeroing by
    // hand makes ptxas serialize the wgmmas).
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
        epilogue(d, out, M, N, m0 + cg * 64, n0);
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel's body
// ---------------------------------------------------------------------------------------------
// Matmul rung 12's whole kernel, with `epilogue` as consume's: warpgroup 0 produces, warpgroups
// 1 .. NUM_CONSUMERS consume (`empty` waits for one arrival per consumer warp).
template <class Out, class Epilogue>
__device__ __forceinline__ void gemm_tma(Out* out, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                                         const TmaDescriptor* map_a, const TmaDescriptor* map_b, Epilogue epilogue) {
    extern __shared__ unsigned char smem_raw[];
    // Align the stages to 1 KB by hand (the launch asks for SMEM_ALIGN extra bytes for this);
    // the barriers follow the stages.
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    Stages sh;
    sh.stages = base;
    sh.full_bar = smem_addr(base + STAGES * STAGE_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;
    const bool use_tma = tma_loads_ok(A, B, N, K);  // else the maps are zeros
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, k_tiles = (K + BK - 1) / BK;
    init_barriers(sh, use_tma, NUM_CONSUMERS * 4);

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        produce(sh, use_tma, map_a, map_b, A, B, M, N, K, tiles_m, tiles_n, k_tiles);
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, out, M, N, wg - 1, tiles_m, tiles_n, k_tiles, epilogue);
    }
}
