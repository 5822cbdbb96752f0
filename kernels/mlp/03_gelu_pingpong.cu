// Rung 3 - ping-pong consumers: one warpgroup's GeLU epilogue runs while the other's main loop
// keeps the tensor cores busy.
//
// What changes from rung 2: there, both consumer warpgroups shared each 128 x 256 tile (64 rows
// each), so they reached the epilogue together: GeLU, the bf16 conversion and the stores of the
// whole tile ran while no wgmma was in flight, and the tensor cores idled for every epilogue
// (docs/tuning/mlp.md: the epilogue rung's first product took about as long as cuBLAS's GEMM plus
// the whole GeLU kernel). Here each consumer warpgroup owns whole tiles of BM x BN (64 x 256 by
// default), and the two take this block's tiles in turn: 0, 2, 4 ... and 1, 3, 5 .... The producer
// fills the ring of stages in tile order, so while consumer 0 applies GeLU and stores tile 0,
// consumer 1 is already multiplying tile 1 from the stages that follow, and by the time
// consumer 1 reaches its epilogue, tile 2's stages are waiting for consumer 0 (CUTLASS calls this
// schedule "ping-pong"; the two main loops take turns, see consume()). Everything else is rung 2: TMA producer
// warpgroup, 128-byte swizzled stages, persistent blocks walking tiles in GROUP_M order, GeLU on the SFU, bf16 H; the
// second product stays cuBLAS.
// Why it should be faster: the epilogue leaves the tensor cores' critical path (it costs
// 0.1-0.2 ms of 1.7 ms in rung 2); the price is smaller tiles per warpgroup (64 x 256 instead of
// a shared 128 x 256: 40 KB of stage copies per 64-deep K-tile for half the math, so L2 serves
// 1.67x the bytes per FLOP), and 8,192 tiles instead of 4,096 also shorten the last wave.
// What to see: this rung against rung 1 (unfused) by at least U's round trip at copy bandwidth,
// and against rung 2 by most of its epilogue time; the counters' DRAM bytes below unfused.
// Error and edges: as rung 2.
// What it needs: sm_90a only (Hopper: wgmma, TMA bulk tensor copies and mbarrier transaction counts
// are Hopper features); bf16 data.

#include "gelu.cuh"  // the tanh-form GeLU on the SFU, and its bf16 epilogue store_gelu_bf16 (this folder)

#if !defined(BM) || !defined(BN) || !defined(STAGES) || !defined(GROUP_M)
#error "BM, BN, STAGES and GROUP_M must be defined, e.g. -DBM=64 -DBN=256 -DSTAGES=5 -DGROUP_M=16"
#endif

#define NUM_CONSUMERS 2     // consumer warpgroups, each on its own tiles
#define SUB_M (BM / 64)     // 64-row wgmmas per K-step in one consumer's tile
#define PRODUCER_REGS 40    // two consumers: launch 168; producer 168 -> 40 frees 16,384; consumers 168 -> 232
#include "kl_tma_gemm.cuh"  // matmul rung 12's stages, producer and set-up, as in rung 2 (kernels/common)

static_assert(BM == 64 || BM == 128, "BM must be 64 or 128 (one or two 64-row wgmmas per K-step)");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN must be 64, 128 or 256 (the N of one wgmma)");
// The accumulators' registers and the stages' shared memory are the manifest's constraints.
static_assert(SUB_M * BN / 2 + 32 <= CONSUMER_REGS, "a consumer's BM * BN / 128 accumulators must fit its registers");

// ---------------------------------------------------------------------------------------------
// Consumers: the one change from rung 2
// ---------------------------------------------------------------------------------------------
// Warpgroup `cg` (0 or 1) computes every other tile of this block: local tiles cg, cg + 2, ...
// The producer filled the ring with each tile's k_tiles stages in turn, so local tile t starts at
// ring position t * k_tiles; the other consumer's positions are skipped. Per K-tile: wait for the
// stage, issue SUB_M x 4 wgmmas as one batch, and wait only for the previous batch, whose stage
// it then hands back (one arrival per warp of this warpgroup).
// The main loops take turns, tile by tile: a consumer starts tile t only once the other has
// waited for every stage of tile t - 1. Without that order a consumer would wait on a stage's
// barrier k_tiles positions ahead, and a barrier's parity tells only "this phase or the one
// before": it would take tile t - 1's data for its own (the first version did, and faulted once
// blocks had several tiles). Epilogues are not ordered: they overlap the other's main loop.
// Barrier 1: consumer 0's main loop is done, consumer 1 may start; barrier 2: the other way
// (barrier 0 is __syncthreads'). Each counts 256 threads: the waiting warpgroup's named_sync and
// the other's named_arrive, which does not wait (kl_tma.cuh).
__device__ __forceinline__ void consume(const Stages& sh, __nv_bfloat16* H, int M, int N, int cg, int tiles_m,
                                        int tiles_n, int k_tiles) {
    const int lane = threadIdx.x % 32;
    // Not zeroed: each tile's first wgmma runs with accumulate = 0 (see matmul rung 11: zeroing by hand
    // makes ptxas serialize the wgmmas).
    float d[SUB_M][BN / 2];
    const int total = tiles_m * tiles_n;
    const int n_local = (int)blockIdx.x < total ? (total - 1 - (int)blockIdx.x) / (int)gridDim.x + 1 : 0;
    int local = 0;
    for (int tile = blockIdx.x; tile < total; tile += gridDim.x, ++local) {
        if (local % NUM_CONSUMERS != cg) continue;        // the other warpgroup's tile
        if (local > 0) named_sync(cg == 0 ? 2 : 1, 256);  // the other's main loop of tile local - 1 is done
        int m0, n0;
        tile_origin<GROUP_M, BM, BN>(tile, tiles_m, tiles_n, m0, n0);
        const long long first = (long long)local * k_tiles;  // this tile's first ring position
        Ring ring;
        ring.stage = static_cast<int>(first % STAGES);
        ring.parity = static_cast<unsigned>((first / STAGES) & 1);
        int previous = -1;  // the stage whose batch may still be running
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.full(ring.stage), ring.parity);
            const unsigned sA = smem_addr(sh.a(ring.stage));
            const unsigned sB = smem_addr(sh.b(ring.stage));
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                // A: next 16 k = 32 bytes along each swizzled row; 8-row groups 1 KB apart; the
                // second 64-row half (BM = 128) 8 KB on. B: next 16 k = 16 rows = 2 KB.
                const unsigned long long desc_b = make_desc(sB + kk * 16 * 128, BK * 128, 1024);
#pragma unroll
                for (int s = 0; s < SUB_M; ++s)
                    wgmma_bf16(d[s], make_desc(sA + s * (64 * 128) + kk * 32, 16, 1024), desc_b, kt > 0 || kk > 0);
            }
            wgmma_commit();
            wgmma_wait<1>();  // the previous batch is done: its stage can be refilled
#pragma unroll
            for (int s = 0; s < SUB_M; ++s) fence_accumulators(d[s]);
            if (previous >= 0 && lane == 0) mbar_arrive(sh.empty(previous));
            previous = ring.stage;
            ring.advance();
        }
        // Every stage of this tile has been waited for: the other consumer may start the next tile.
        if (local + 1 < n_local) named_arrive(cg == 0 ? 1 : 2, 256);
        wgmma_wait<0>();
#pragma unroll
        for (int s = 0; s < SUB_M; ++s) fence_accumulators(d[s]);
        if (lane == 0) mbar_arrive(sh.empty(previous));

            // Epilogue from registers, as rung 2; meanwhile the other warpgroup multiplies its tile.
#pragma unroll
        for (int s = 0; s < SUB_M; ++s) store_gelu_bf16(d[s], H, M, N, m0 + s * 64, n0);
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)
    mlp_gemm_gelu_pingpong(__nv_bfloat16* H, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                           const __grid_constant__ TmaDescriptor map_a, const __grid_constant__ TmaDescriptor map_b) {
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
    init_barriers(sh, use_tma, 4);  // `empty`: one arrival per warp of the consumer that read it

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        produce(sh, use_tma, &map_a, &map_b, A, B, M, N, K, tiles_m, tiles_n, k_tiles);
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, H, M, N, wg - 1, tiles_m, tiles_n, k_tiles);  // warpgroups 1 and 2: consumers 0 and 1
    }
}
