// Rung 4 - the epilogue through shared memory and a TMA store, on 128 x 192 tiles.
//
// What changes from rung 2: there, each consumer thread applied GeLU to its accumulators and
// wrote H straight from registers: 64 four-byte global stores per thread per tile, each warp
// instruction touching 8 rows in 16-byte pieces. Both consumer warpgroups did this at the same
// moment, after their last wgmma, so the tensor cores idled for the whole epilogue (rung 2's
// first product took about as long as cuBLAS's GEMM plus the whole GeLU kernel). Here:
//  1. Each consumer writes GeLU(acc) in bf16 into its own 64 x BN patch of shared memory
//     (four-byte `st.shared`, 128-byte swizzled so the 32 lanes hit 32 different banks), fences
//     the writes for the copy engine (async proxy), meets its warpgroup at a named barrier, and
//     one thread hands the patch to the copy engine as BN / 64 TMA box stores
//     (`cp.async.bulk.tensor ... .global.shared::cta`). The warpgroup goes straight back to the
//     next tile's wgmmas; the copy engine writes H while they run, and clips boxes at the edges
//     of H, so the epilogue has no bounds checks. Before the patch is written again (one whole
//     tile later) that thread waits until the engine has read it (`cp.async.bulk.wait_group.read`).
//  2. The tile is 128 x 192 (BN = 192, one m64n192k16 wgmma per 16-deep step): at
//     8192 x 16384 it gives 64 x 86 = 5,504 tiles, 41.7 waves on 132 SMs (42 rounds, 99% busy)
//     instead of 128 x 256's 4,096 tiles, 31.03 waves (32 rounds, 97%). 128 x 192 also leaves
//     room in shared memory for four stages (160 KB) and the 48 KB patch.
// The rest is rung 2: a TMA producer warpgroup, 128-byte swizzled stages, persistent blocks
// walking tiles in GROUP_M order, GeLU's tanh on the SFU (gelu.cuh); the second product stays cuBLAS.
// Why it should be faster: a shared-memory store instruction costs the warp one conflict-free
// pass (128 bytes) where a global one costs eight partial sectors, so the part of the epilogue
// that holds the tensor cores shrinks to GeLU's arithmetic plus 48 KB of shared stores.
// What to see: the first product near cuBLAS's plain GEMM, and this rung against rung 1
// (unfused) by U's round trip. Parameters that separate the changes: EPILOGUE = 0 keeps rung 2's
// register stores on the same tiles; OVERLAP = 1 or 2 also starts the block's next tile (its
// first K-tiles, into a second accumulator set) before each epilogue, so the tensor cores work
// while GeLU is computed; BM = 192 is cuBLAS's tile at this shape (three consumers).
// Measured (H100, 2026-11-24, assets/recorded/h100_mlp_tma_store.json, docs/tuning/mlp.md):
// 3.03 and 3.11 ms for the MLP against unfused's 3.23-3.24 in the same call; the first product
// alone (CUPTI) 1.44 ms against cuBLAS's plain bf16-out GEMM 1.415 and rung 2's 1.55-1.57.
// EPILOGUE = 0: 3.40; OVERLAP = 1: 3.07-3.10, within the spread of the defaults.
// Error: as rung 2 (fp32 sums, one rounding of GeLU's result to bf16).
// Edges and alignment: element-wise producer copies when K or N is not a multiple of 8 (rung 2);
// when H's rows are not 16-byte aligned (N % 8 != 0: its map is zeros) the warpgroup copies its
// patch to H element by element (copy_patch).
// What it needs: sm_90a only (Hopper: wgmma, TMA bulk tensor copies and mbarrier transaction counts
// are Hopper features); bf16 data.

#include "gelu.cuh"       // the tanh-form GeLU on the SFU, and rung 2's store_gelu_bf16 (this folder)
#include "wgmma_mlp.cuh"  // wgmma at N = 192, and first-K-step forms (this folder)

#if !defined(BM) || !defined(BN) || !defined(STAGES) || !defined(GROUP_M) || !defined(EPILOGUE) || !defined(OVERLAP)
#error \
    "BM, BN, STAGES, GROUP_M, EPILOGUE and OVERLAP must be defined, e.g. -DBM=128 -DBN=192 -DSTAGES=4 -DGROUP_M=16 ..."
#endif

#define NUM_CONSUMERS (BM / 64)  // consumer warpgroups (2 or 3), 64 rows of H each
// Registers: setmaxnreg moves them from the producer (one TMA thread needs few) to the consumers
// inside the block, as in rung 2, whose producer kept 40:
//   two consumers (BM = 128):   launch 168; producer 168 -> 24 frees 18,432; consumers 168 -> 240
//   three consumers (BM = 192): launch 128; producer 128 -> 24 frees 13,312; consumers 128 -> 160
#define PRODUCER_REGS 24
#include "kl_tma_gemm.cuh"  // matmul rung 12's stages, producer and set-up, as in rung 2 (kernels/common)

#define PATCH_BYTES (64 * BN * 2)  // one consumer's 64 x BN bf16 patch of H: BN / 64 boxes of 8 KB
#define BOX_BYTES (64 * 128)       // one 64 x 64 box: 64 rows of 128 bytes

static_assert(BM == 128 || BM == 192, "BM must be 128 or 192 (two or three consumer warpgroups)");
static_assert(BN == 128 || BN == 192 || BN == 256, "BN must be 128, 192 or 256 (the N of one wgmma)");
static_assert(EPILOGUE == 0 || EPILOGUE == 1, "EPILOGUE: 0 register stores (rung 2), 1 shared memory + TMA store");
static_assert(OVERLAP >= 0 && OVERLAP < STAGES,
              "OVERLAP: 0 .. STAGES - 1 K-tiles of the next tile issued before an epilogue");
static_assert(BN / 2 + 32 <= CONSUMER_REGS, "a consumer's BN / 2 accumulators must fit its register budget");
static_assert(STAGE_BYTES % SMEM_ALIGN == 0 && BOX_BYTES % SMEM_ALIGN == 0,
              "stages and patch boxes must start on 1 KB boundaries (the swizzle's period)");

// Rung 2's stages (kl_tma_gemm.cuh), with NUM_CONSUMERS patches of H (EPILOGUE = 1) between them
// and the barriers.
using Shared = Stages;

// ---------------------------------------------------------------------------------------------
// The epilogue: through shared memory and the copy engine (the change from rung 2)
// ---------------------------------------------------------------------------------------------
// The boxes of H (64 x 64 bf16, 128-byte swizzled as the map says) leave through kl_tma.cuh's
// tma_store_2d; bulk_wait_read<0> lets the patch be overwritten, bulk_wait<0> waits for H itself.
// The 128 threads of consumer warpgroup cg meet at kl_tma.cuh's warpgroup_sync (named barrier
// 1 + cg; 0 is __syncthreads).

// GeLU(acc) as bf16 pairs into the warpgroup's patch. Accumulator layout as gelu.cuh's
// store_gelu_bf16: slice j, half h -> row r = 16 w + l / 4 + 8 h, columns 8 j + 2 (l % 4) (+1). Patch
// layout: box j / 8, row r at r * 128 bytes, 16-byte chunk j % 8 at position (j % 8) ^ (r % 8).
// In one store instruction the lanes cover 8 rows (r % 8 = l / 4) of one chunk: the XOR spreads
// them over the 8 chunk positions of a 128-byte row, so the 32 lanes hit 32 different banks.
template <int kN>
__device__ __forceinline__ void stage_gelu_bf16(const float (&d)[kN], unsigned patch) {
    const int lane = threadIdx.x % 32, warp_in_wg = (threadIdx.x % 128) / 32;
    const unsigned key = lane / 4;  // r % 8 for both of this thread's rows (they are 8 apart)
    const unsigned row_base = patch + (warp_in_wg * 16 + lane / 4) * 128 + (lane % 4) * 4;
#pragma unroll
    for (int j = 0; j < kN / 4; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const __nv_bfloat162 v = __floats2bfloat162_rn(mlp_gelu(d[4 * j + 2 * h]), mlp_gelu(d[4 * j + 2 * h + 1]));
            const unsigned addr = row_base + h * 1024 + (j / 8) * BOX_BYTES + (((j % 8) ^ key) << 4);
            st_shared_b32(addr, *reinterpret_cast<const unsigned*>(&v));
        }
}

// Without a map of H (N % 8 != 0: its rows are not 16-byte aligned), the warpgroup copies its
// patch to H itself, element by element with guards, consecutive threads on consecutive columns.
__device__ __forceinline__ void copy_patch(const unsigned char* patch, __nv_bfloat16* H, int M, int N, int row0,
                                           int col0) {
    for (int i = threadIdx.x % 128; i < 64 * BN; i += 128) {
        const int r = i / BN, c = i % BN;
        if (row0 + r >= M || col0 + c >= N) continue;
        const int offset = (c / 64) * BOX_BYTES + r * 128 + ((((c % 64) / 8) ^ (r % 8)) * 16) + (c % 8) * 2;
        H[(size_t)(row0 + r) * N + col0 + c] = *reinterpret_cast<const __nv_bfloat16*>(patch + offset);
    }
}

// The whole epilogue of one warpgroup's 64 x BN part of a tile at (row0, col0): GeLU into the
// patch, then out by the copy engine (or copy_patch).
__device__ __forceinline__ void epilogue_staged(const float (&d)[BN / 2], unsigned char* patch,
                                                const TmaDescriptor* map_h, __nv_bfloat16* H, bool tma_store, int M,
                                                int N, int row0, int col0, int cg) {
    const bool leader = threadIdx.x % 128 == 0;
    if (leader && tma_store) bulk_wait_read<0>();  // the previous tile's boxes have left the patch
    warpgroup_sync(1 + cg);                        // (and, without TMA, every thread's copy_patch is done)
    stage_gelu_bf16(d, smem_addr(patch));
    if (tma_store) fence_proxy_async();  // this thread's shared stores, visible to the copy engine
    warpgroup_sync(1 + cg);
    if (!tma_store) {
        copy_patch(patch, H, M, N, row0, col0);
    } else if (leader && row0 < M) {
#pragma unroll
        for (int j = 0; j < BN / 64; ++j)
            if (col0 + j * 64 < N) tma_store_2d(map_h, smem_addr(patch + j * BOX_BYTES), col0 + j * 64, row0);
        bulk_commit();
    }
}

// ---------------------------------------------------------------------------------------------
// Consumers
// ---------------------------------------------------------------------------------------------
// The stages a consumer has issued wgmmas on and not yet handed back, oldest first (they are
// consecutive in the ring).
struct Pending {
    Ring oldest;
    int count = 0;
};

// Waits for the stage at `ring`, issues its four wgmmas as one batch into d and steps the ring
// on. A tile's first K-tile overwrites d (scale-d = 0, see matmul rung 11): with kFirst through
// the output-only form (wgmma_mlp.cuh), so that d's old values are dead; with kFirst false and
// `first` true through the accumulate flag (OVERLAP = 0, one accumulator set, as rung 2).
template <bool kFirst, int kN>
__device__ __forceinline__ void issue_k_tile(float (&d)[kN], const Shared& sh, Ring& ring, Pending& pending, int cg,
                                             bool first = false) {
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
        if constexpr (kFirst) {
            if (kk == 0) {
                wgmma_bf16_first(d, desc_a, desc_b);
                continue;
            }
        }
        wgmma_bf16(d, desc_a, desc_b, !first || kk > 0);
    }
    wgmma_commit();
    ring.advance();
    ++pending.count;
}

// Hands back all but the `keep` newest pending stages (one arrival per warp): their batches are
// complete (the caller waited with wgmma.wait_group keep).
__device__ __forceinline__ void release_done(const Shared& sh, Pending& pending, int keep) {
    for (; pending.count > keep; --pending.count) {
        if (threadIdx.x % 32 == 0) mbar_arrive(sh.empty(pending.oldest.stage));
        pending.oldest.advance();
    }
}

// K-tiles `from` .. k_tiles - 1 of a tile into d, one batch in flight behind the newest (rung 2's
// loop), then the last batch waited for: d holds the tile's sums.
template <int kN>
__device__ __forceinline__ void finish_tile(float (&d)[kN], const Shared& sh, Ring& ring, Pending& pending, int cg,
                                            int from, int k_tiles) {
    for (int kt = from; kt < k_tiles; ++kt) {
        issue_k_tile<false>(d, sh, ring, pending, cg, kt == 0);
        wgmma_wait<1>();  // all but the newest batch are done: their stages can be refilled
        fence_accumulators(d);
        release_done(sh, pending, 1);
    }
    wgmma_wait<0>();
    fence_accumulators(d);
    release_done(sh, pending, 0);
}

template <int kN>
__device__ __forceinline__ void epilogue(const float (&d)[kN], const Shared& sh, __nv_bfloat16* H,
                                         const TmaDescriptor* map_h, bool tma_store, int M, int N, int cg, int tile,
                                         int tiles_m, int tiles_n) {
    int m0, n0;
    tile_origin<GROUP_M, BM, BN>(tile, tiles_m, tiles_n, m0, n0);
    if (EPILOGUE == 1)
        epilogue_staged(d, sh.patches + cg * PATCH_BYTES, map_h, H, tma_store, M, N, m0 + cg * 64, n0, cg);
    else
        store_gelu_bf16(d, H, M, N, m0 + cg * 64, n0);
}

#if OVERLAP == 0
// Warpgroup `cg` computes rows cg*64 .. cg*64+63 of each of the block's tiles, one tile after
// the other: rung 2's order, the tensor cores idle during each epilogue.
__device__ __forceinline__ void consume(const Shared& sh, __nv_bfloat16* H, const TmaDescriptor* map_h, bool tma_store,
                                        int M, int N, int cg, int tiles_m, int tiles_n, int k_tiles) {
    float d[BN / 2];  // not zeroed: each tile's first wgmma overwrites it
    Ring ring;
    Pending pending;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        finish_tile(d, sh, ring, pending, cg, 0, k_tiles);
        epilogue(d, sh, H, map_h, tma_store, M, N, cg, tile, tiles_m, tiles_n);
    }
    if (EPILOGUE == 1 && tma_store && threadIdx.x % 128 == 0) bulk_wait<0>();  // H written before exit
}
#else
// Starts a tile in accumulator set d: its first OVERLAP K-tiles (fewer if K is short), the first
// through the output-only form. Returns the number of K-tiles issued.
template <int kN>
__device__ __forceinline__ int start_tile(float (&d)[kN], const Shared& sh, Ring& ring, Pending& pending, int cg,
                                          int k_tiles) {
    issue_k_tile<true>(d, sh, ring, pending, cg);
    const int n = min(OVERLAP, k_tiles);
    for (int kt = 1; kt < n; ++kt) issue_k_tile<false>(d, sh, ring, pending, cg);
    return n;
}

// Warpgroup `cg` computes rows cg*64 .. cg*64+63 of each of the block's tiles. The tiles
// alternate between two accumulator sets (the loop is unrolled by two so that each set stays in
// registers): after a tile's last wgmma, the block's next tile is started in the other set
// (its first OVERLAP K-tiles), and only then does this tile go through GeLU and out, while the
// tensor cores run those K-tiles.
__device__ __forceinline__ void consume(const Shared& sh, __nv_bfloat16* H, const TmaDescriptor* map_h, bool tma_store,
                                        int M, int N, int cg, int tiles_m, int tiles_n, int k_tiles) {
    float da[BN / 2], db[BN / 2];  // not zeroed: each tile's first wgmma overwrites them
    Ring ring;
    Pending pending;
    const int tiles = tiles_m * tiles_n, step = gridDim.x;
    int tile = blockIdx.x;
    if (tile >= tiles) return;
    int from = start_tile(da, sh, ring, pending, cg, k_tiles);  // K-tiles of the current tile already issued
    for (;;) {
        finish_tile(da, sh, ring, pending, cg, from, k_tiles);
        if (tile + step < tiles) from = start_tile(db, sh, ring, pending, cg, k_tiles);
        epilogue(da, sh, H, map_h, tma_store, M, N, cg, tile, tiles_m, tiles_n);
        if ((tile += step) >= tiles) break;
        finish_tile(db, sh, ring, pending, cg, from, k_tiles);
        if (tile + step < tiles) from = start_tile(da, sh, ring, pending, cg, k_tiles);
        epilogue(db, sh, H, map_h, tma_store, M, N, cg, tile, tiles_m, tiles_n);
        if ((tile += step) >= tiles) break;
    }
    if (EPILOGUE == 1 && tma_store && threadIdx.x % 128 == 0) bulk_wait<0>();  // H written before exit
}
#endif

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)
    mlp_gemm_gelu_tma_store(__nv_bfloat16* H, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                            const __grid_constant__ TmaDescriptor map_a, const __grid_constant__ TmaDescriptor map_b,
                            const __grid_constant__ TmaDescriptor map_h) {
    extern __shared__ unsigned char smem_raw[];
    // Align the stages to 1 KB by hand (the launch asks for SMEM_ALIGN extra bytes for this);
    // the patches (EPILOGUE = 1) follow the stages, the barriers follow both.
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    Shared sh;
    sh.stages = base;
    sh.patches = base + STAGES * STAGE_BYTES;
    sh.full_bar = smem_addr(sh.patches + EPILOGUE * NUM_CONSUMERS * PATCH_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;
    // The same tests the engine applies before encoding the maps: when one fails, that map is zeros.
    const bool use_tma = tma_loads_ok(A, B, N, K);
    const bool tma_store = (N % 8 == 0) && (reinterpret_cast<size_t>(H) % 16 == 0);
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, k_tiles = (K + BK - 1) / BK;

    // kl_tma_gemm.cuh's init_barriers, written out: called here, it changed this kernel's machine
    // code (ptxas scheduled the consumers' ring steps differently).
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), use_tma ? 1 : 128);   // the producer's one expect_tx arrival, or all 128 copiers
            mbar_init(sh.empty(s), NUM_CONSUMERS * 4);  // one arrival per consumer warp
        }
        fence_mbarrier_init();  // the barriers, visible to the copy engine and the other threads
        fence_proxy_async();
    }
    __syncthreads();

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        produce(sh, use_tma, &map_a, &map_b, A, B, M, N, K, tiles_m, tiles_n, k_tiles);
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, H, &map_h, tma_store, M, N, wg - 1, tiles_m, tiles_n, k_tiles);
    }
}
