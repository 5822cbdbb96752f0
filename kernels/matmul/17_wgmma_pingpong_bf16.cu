// Rung 17 - Ping-pong consumers: one warpgroup stores a tile while the other multiplies the next.
// This rung is rung 15 with consumers on whole tiles in turn: the copy is the lesson, diff it against 15.
//
// What changes from rung 15: there, the two consumer warpgroups split each 128 x 256 tile (64 rows
// each) and finished it together, so while they wrote its 128 KB of fp32 C from registers the
// tensor cores of the SM had nothing to do; the producer could only fill the stages ahead. Here
// each consumer warpgroup owns *whole* tiles of 128 x 128 (two m64n128 wgmmas per 16-deep step,
// 128 accumulators per thread, as many as before) and the two take the block's tiles in turn:
//  1. The producer walks the block's tiles as before and fills the ring in that order, so the
//     stages of tile i + 1 follow those of tile i. Consumer i % 2 takes tile i: the ring position
//     of its K-tile kt is i * k_tiles + kt, so each consumer skips the other's stages.
//  2. When consumer 0 has issued tile 0's last wgmmas, the ring already holds tile 1's first
//     stages: consumer 1 multiplies tile 1 while consumer 0 writes tile 0's C, and so on. The
//     tensor cores see one consumer's mainloop after the other's; the epilogues hide under them.
//  3. A stage is released by the one consumer warpgroup that read it (in both blocks of the
//     cluster: `empty` counts CLUSTER x 4 warps). Pairs of blocks along M still share B by
//     multicast (rung 15); at 128 x 128 a stage is 32 KB, so STAGES defaults to 6 (192 KB).
// Why it should be faster: rung 15's consumers idle for the whole epilogue of every tile, about
// as long as the stores of 128 KB take per SM; here that time overlaps the other tile's math.
// The price: 128 x 128 tiles fetch A and B for 16,384 outputs per K-tile instead of 32,768
// (1/128 + 1/128 loads per output per k instead of 1/128 + 1/256), which the multicast halves
// back for B. BM = 64, BN = 256 gives each consumer 64 x 256 tiles instead (one m64n256 per
// step, as rung 15's consumers; A is fetched per 64 rows, B per 256 columns).
// What to see: correct everywhere and slower than rung 15 at 4096^3 and 8192^3, the gap in the
// main loop (the K sweep), not the per-tile cost: each K-step of a 128 x 128 tile reads B twice
// from shared memory for half the math, and the counters show more shared-memory wavefronts and
// L2 traffic than rung 15. At 2047 x 2049 x 1023 the smaller tiles win instead (272 tiles spread
// over 132 SMs better than 144). Figures: docs/tuning/matmul.md, seventh session.
// Compiled for sm_90a only. Error: as rung 12, ~1e-6 relative.
// What it needs: sm_90a only (Hopper: thread-block clusters, TMA multicast, wgmma and mbarrier
// transaction counts are Hopper features); bf16 data.

#include <cuda_bf16.h>

#include "kl_cluster.cuh"  // cluster rank and barrier, peer arrivals, multicast loads (kernels/common)
#include "kl_tma.cuh"      // TMA box loads, mbarriers, setmaxnreg (kernels/common)
#include "kl_wgmma.cuh"    // wgmma, its fences and the smem descriptor, shared with rungs 11-13

#if !defined(BM) || !defined(BN) || !defined(STAGES) || !defined(CLUSTER) || !defined(GROUP_M)
#error "BM, BN, STAGES, CLUSTER and GROUP_M must be defined, e.g. -DBM=128 -DBN=128 -DSTAGES=6 -DCLUSTER=2 -DGROUP_M=8"
#endif
// A consumer's tile is BM x BN: BM / 64 wgmmas of m64nBN per 16-deep step (128 x 128: two
// m64n128; 64 x 256: one m64n256), BM * BN / 128 = 128 accumulators per thread either way.
#define WG_ROWS (BM / 64)

#define BK 64                                    // one 128-byte swizzled row of bf16 per K-tile
#define NUM_CONSUMERS 2                          // consumer warpgroups, whole tiles in turn
#define NUM_THREADS (128 * (NUM_CONSUMERS + 1))  // + the producer warpgroup
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024                   // the 128-byte swizzle repeats every 8 rows = 1 KB
#define B_BOXES (BN / 64)                 // 64-column boxes of one B tile
#define B_BOXES_MINE (B_BOXES / CLUSTER)  // the boxes this block fetches (for both, when paired)

// Registers, as rung 12: setmaxnreg moves them from the producer to the consumers inside a block.
#define PRODUCER_REGS 40
#define LAUNCH_REGS ((65536 / NUM_THREADS) / 8 * 8)
#define CONSUMER_REGS (LAUNCH_REGS + ((LAUNCH_REGS - PRODUCER_REGS) / NUM_CONSUMERS) / 8 * 8)
static_assert((CONSUMER_REGS - LAUNCH_REGS) * NUM_CONSUMERS <= LAUNCH_REGS - PRODUCER_REGS,
              "the consumers cannot take more registers than the producer gives back");
static_assert(CLUSTER == 1 || CLUSTER == 2, "CLUSTER must be 1 (no pairing) or 2");
static_assert((BM == 64 || BM == 128) && (BN == 128 || BN == 256) && BM * BN == 16384,
              "a consumer's tile is 128 x 128 or 64 x 256");
static_assert(BM * BN / 128 + 32 <= CONSUMER_REGS, "a consumer's BM * BN / 128 accumulators must fit its registers");
static_assert(STAGES >= 2, "at least two stages: one being filled while another is read");
static_assert(GROUP_M % CLUSTER == 0, "GROUP_M tile rows must hold whole stacks of CLUSTER tiles");

// ---------------------------------------------------------------------------------------------
// Work distribution: the cluster walks stacks of CLUSTER tiles along M; block `rank` takes the
// rank-th tile of each stack. With an odd tile-row count the last stack's second tile lies past
// M: that block still fetches its half of B for its peer, and stores nothing.
// ---------------------------------------------------------------------------------------------
struct Walk {
    int stacks_m, tiles_n, first, step;
    __device__ int count() const { return stacks_m * tiles_n; }
    // Stack number -> origin of this block's tile (rung 12's grouped order, over stacks).
    __device__ void origin(int stack, int rank, int& m0, int& n0) const {
        const int group_stacks = GROUP_M / CLUSTER;
        const int group = stack / (group_stacks * tiles_n), first_m = group * group_stacks;
        const int rows = min(stacks_m - first_m, group_stacks);
        const int in_group = stack % (group_stacks * tiles_n);
        m0 = ((first_m + in_group % rows) * CLUSTER + rank) * BM;
        n0 = (in_group / rows) * BN;
    }
};

using Ring = StageRing<STAGES>;  // kl_tma.cuh

struct Shared {
    unsigned char* stages;  // STAGES x (A tile, then BN / 64 blocks of B), 1 KB aligned
    unsigned full_bar;      // STAGES barriers: the stage's A and whole B have landed here
    unsigned empty_bar;     // STAGES barriers: every consumer warp of the cluster is done with it
    unsigned turn_bar;      // 2 barriers: consumer c may start its next tile's waits
    __device__ unsigned full(int s) const { return full_bar + 8 * s; }
    __device__ unsigned empty(int s) const { return empty_bar + 8 * s; }
    __device__ unsigned turn(int c) const { return turn_bar + 8 * c; }
    __device__ unsigned char* a(int s) const { return stages + s * STAGE_BYTES; }
    __device__ unsigned char* b(int s) const { return stages + s * STAGE_BYTES + A_STAGE_BYTES; }
};

// ---------------------------------------------------------------------------------------------
// Producer (one thread): per K-tile, wait until the stage is free in both blocks, announce the
// whole stage's bytes on this block's `full` (its A, its half of B and the peer's half), fetch A
// and this block's boxes of B, the latter into both blocks.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ void produce(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                        const Walk& w, int rank, int k_tiles) {
    Ring ring;
    for (int stack = w.first; stack < w.count(); stack += w.step) {
        int m0, n0;
        w.origin(stack, rank, m0, n0);
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
            const unsigned full = sh.full(ring.stage);
            mbar_arrive_expect_bytes(full, STAGE_BYTES);
            tma_load_2d(smem_addr(sh.a(ring.stage)), map_a, kt * BK, m0, full);
#pragma unroll
            for (int i = 0; i < B_BOXES_MINE; ++i) {
                const int j = rank * B_BOXES_MINE + i;  // block 0 the left half of B, block 1 the right
                const unsigned dst = smem_addr(sh.b(ring.stage) + j * (BK * 128));
                if (CLUSTER == 1)
                    tma_load_2d(dst, map_b, n0 + j * 64, kt * BK, full);
                else
                    tma_load_2d_multicast(dst, map_b, n0 + j * 64, kt * BK, full, (1u << CLUSTER) - 1);
            }
            ring.advance();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Consumers: whole tiles in turn; a finished stage is handed back to the producers of both blocks.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ void release(const Shared& sh, int stage, int rank) {
    mbar_arrive(sh.empty(stage));
    if (CLUSTER > 1) mbar_arrive_peer(sh.empty(stage), rank ^ 1);
}

__device__ __forceinline__ void consume(const Shared& sh, float* C, int M, int N, int cg, const Walk& w, int rank,
                                        int k_tiles) {
    const int lane = threadIdx.x % 32;
    float d[WG_ROWS][BN / 2];  // 64 rows of the tile each; not zeroed (rung 11)
    int i = cg;                // this block's i-th tile is consumer i % 2's
    for (int stack = w.first + cg * w.step; stack < w.count(); stack += 2 * w.step, i += 2) {
        int m0, n0;
        w.origin(stack, rank, m0, n0);
        // Turns: wait until the other consumer has seen every stage of tile i - 1 land. Without
        // this, a parity wait on a stage two or more phases behind (tile i's first stages while
        // the ring still holds tile i - 1's) passes at once: the first version read stale stages,
        // released them twice and faulted at 4097^3 (H100, 2026-11-24).
        if (i > 0) mbar_wait(sh.turn(cg), unsigned((i - 1) / 2) & 1u);
        int previous = -1;  // the stage whose batch may still be running
        for (int kt = 0; kt < k_tiles; ++kt) {
            const int seq = i * k_tiles + kt;  // position in the producer's ring order
            const int stage = int(seq % STAGES);
            mbar_wait(sh.full(stage), unsigned(seq / STAGES) & 1u);
            const unsigned sA = smem_addr(sh.a(stage));
            const unsigned sB = smem_addr(sh.b(stage));
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                const unsigned long long desc_b = make_desc(sB + kk * 16 * 128, BK * 128, 1024);
#pragma unroll
                for (int h = 0; h < WG_ROWS; ++h)
                    wgmma_bf16(d[h], make_desc(sA + h * 64 * 128 + kk * 32, 16, 1024), desc_b, kt > 0 || kk > 0);
            }
            wgmma_commit();
            wgmma_wait<1>();  // the previous batch is done: its stage can be refilled
#pragma unroll
            for (int h = 0; h < WG_ROWS; ++h) fence_accumulators(d[h]);
            if (previous >= 0 && lane == 0) release(sh, previous, rank);
            previous = stage;
        }
        __syncwarp();
        if (lane == 0) mbar_arrive(sh.turn(cg ^ 1));  // the other consumer's tile i + 1 may start
        wgmma_wait<0>();
#pragma unroll
        for (int h = 0; h < WG_ROWS; ++h) fence_accumulators(d[h]);
        if (lane == 0) release(sh, previous, rank);
            // The other consumer is multiplying the next tile meanwhile.
#pragma unroll
        for (int h = 0; h < WG_ROWS; ++h) store_accumulators(d[h], C, M, N, m0 + h * 64, n0);
    }
}

// ---------------------------------------------------------------------------------------------
// Launch 1 (only when K or N is not a multiple of 8): A and B into padded copies whose rows are
// multiples of 8 elements, zeros in the padding. One thread per 16-byte chunk of the output.
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void matmul_pingpong_pad(__nv_bfloat16* Ap, __nv_bfloat16* Bp, const __nv_bfloat16* A,
                                               const __nv_bfloat16* B, int M, int N, int K) {
    const int Kp = (K + 7) / 8 * 8, Np = (N + 7) / 8 * 8;
    const long long a_chunks = (long long)M * (Kp / 8), total = a_chunks + (long long)K * (Np / 8);
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        const bool in_a = i < a_chunks;
        const long long c = in_a ? i : i - a_chunks;
        const int cols = in_a ? K : N, ld = in_a ? Kp : Np;
        const long long row = c / (ld / 8);
        const int col = int(c % (ld / 8)) * 8;
        const unsigned short* src = reinterpret_cast<const unsigned short*>(in_a ? A : B) + row * cols;
        unsigned v[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const unsigned lo = col + 2 * e < cols ? src[col + 2 * e] : 0u;
            const unsigned hi = col + 2 * e + 1 < cols ? src[col + 2 * e + 1] : 0u;
            v[e] = lo | (hi << 16);
        }
        unsigned short* dst = reinterpret_cast<unsigned short*>(in_a ? Ap : Bp) + row * ld + col;
        *reinterpret_cast<uint4*>(dst) = make_uint4(v[0], v[1], v[2], v[3]);
    }
}

// ---------------------------------------------------------------------------------------------
// Launch 2: the GEMM. The grid is a whole number of clusters (the manifest rounds it); A and B
// are the padded copies when rows were not aligned, so the tensor maps are always valid.
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void CLUSTER_DIMS __launch_bounds__(NUM_THREADS, 1)
    matmul_wgmma_pingpong_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                               const __grid_constant__ TmaDescriptor map_a,
                               const __grid_constant__ TmaDescriptor map_b) {
    extern __shared__ unsigned char smem_raw[];
    // The same offset in both blocks: the multicast writes and the remote arrivals rely on it.
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    Shared sh;
    sh.stages = base;
    sh.full_bar = smem_addr(base + STAGES * STAGE_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;
    sh.turn_bar = sh.empty_bar + 8 * STAGES;
    (void)A;
    (void)B;

    const int rank = CLUSTER == 1 ? 0 : int(cluster_rank());
    const int tiles_m = (M + BM - 1) / BM, k_tiles = (K + BK - 1) / BK;
    Walk w;
    w.stacks_m = (tiles_m + CLUSTER - 1) / CLUSTER;
    w.tiles_n = (N + BN - 1) / BN;
    w.first = blockIdx.x / CLUSTER;
    w.step = gridDim.x / CLUSTER;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), 1);             // this block's expect_tx arrival
            mbar_init(sh.empty(s), CLUSTER * 4);  // the warps of the one consumer that read it, in each block
        }
        for (int c = 0; c < 2; ++c) mbar_init(sh.turn(c), 4);  // the other consumer's four warps
        fence_mbarrier_init();
        fence_proxy_async();
    }
    if (CLUSTER == 1)
        __syncthreads();
    else
        cluster_sync();  // the peer's barriers exist before anyone signals them

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (threadIdx.x == 0) produce(sh, &map_a, &map_b, w, rank, k_tiles);
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, C, M, N, wg - 1, w, rank, k_tiles);
    }
    if (CLUSTER > 1) cluster_sync();  // no block leaves while its peer may still signal it
}
