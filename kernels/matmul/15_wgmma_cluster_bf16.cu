// Rung 15 - Clusters of two blocks share one tile of B through TMA multicast.
//
// What changes from rung 12: there, every block fetched its own copy of each K-tile of A (BM x 64)
// and of B (64 x BN) from L2. Two blocks working on the tiles (m, n) and (m + 1, n), one above
// the other, read the very same B tile: at 128 x 256 tiles that is 32 KB of the block's 48 KB per
// K-tile fetched twice. Here the two blocks form a thread-block cluster (`__cluster_dims__`, the
// hardware places both on one GPC and lets each address the other's shared memory), and:
//  1. The pair walks pairs of tiles stacked along M (rung 12's grouped order, over pairs). Each
//     block's producer fetches its own A tile and *half* of the B tile, with
//     `cp.async.bulk.tensor ... .multicast::cluster`: the copy engine writes the half into the
//     same shared-memory offset of both blocks and signals both blocks' `full` barrier. L2 sends
//     each B byte once per pair: 32 KB per K-tile per block instead of 48 KB (-33% L2 -> SM
//     traffic at 128 x 256).
//  2. A stage may only be refilled when the consumers of *both* blocks are done with it (the
//     peer's producer writes into it too), so every consumer warp arrives on its own block's
//     `empty` barrier and, through the cluster's shared-memory window (`mapa`), on the peer's:
//     `empty` counts 2 x (consumer warps).
//  3. The cluster meets at a cluster barrier after the barriers are initialized (nobody signals
//     a barrier not yet set up) and before exiting (nobody signals a block that has left).
//  4. As in rung 13, rows that are not 16-byte aligned are padded once by a first launch, so the
//     producer always copies with TMA (no element-wise path to share across the pair).
// Why it should be faster: at 4096^3 rung 12 asks L2 for 8.8 TB/s at its measured rate (48 KB per
// 4.2 MFLOP block K-tile; the L2 limit was not measured here); the pair asks 5.9 TB/s for the same
// work, so the copies keep ahead of the tensor cores with more margin. cuBLAS's fastest bf16
// kernels at these sizes use the same 128 x 256 tile with clusters of two.
// What to see: at 4096^3 and 8192^3 level with rung 12 and with CLUSTER = 1 (the same code
// unpaired): the multicast gains nothing there, so rung 12's loop is not short of L2 bandwidth;
// the padded path makes it the fastest bf16 rung at odd sizes. Figures, and a first version
// with cluster-scope mbarrier semantics that ran far slower: docs/tuning/matmul.md.
// CLUSTER=1 runs this file's code without the pairing, to measure the multicast alone.
// Compiled for sm_90a only. Error: as rung 12, ~1e-6 relative.
// What it needs: sm_90a only (Hopper: thread-block clusters, TMA multicast, wgmma and mbarrier
// transaction counts are Hopper features); bf16 data.

#include <cuda_bf16.h>

#include "kl_cluster.cuh"  // cluster rank and barrier, peer arrivals, multicast loads (kernels/common)
#include "kl_tma.cuh"      // TMA box loads, mbarriers, setmaxnreg (kernels/common)
#include "kl_wgmma.cuh"    // wgmma, its fences and the smem descriptor, shared with rungs 11-13

#if !defined(BM) || !defined(BN) || !defined(STAGES) || !defined(CLUSTER)
#error "BM, BN, STAGES and CLUSTER must be defined, e.g. -DBM=128 -DBN=256 -DSTAGES=4 -DCLUSTER=2"
#endif

#define BK 64                                    // one 128-byte swizzled row of bf16 per K-tile
#define NUM_CONSUMERS (BM / 64)                  // consumer warpgroups, 64 rows of C each
#define NUM_THREADS (128 * (NUM_CONSUMERS + 1))  // + the producer warpgroup
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024                   // the 128-byte swizzle repeats every 8 rows = 1 KB
#define GROUP_M 8                         // tile rows handed out together (rung 11), GROUP_M / CLUSTER pairs
#define B_BOXES (BN / 64)                 // 64-column boxes of one B tile
#define B_BOXES_MINE (B_BOXES / CLUSTER)  // the boxes this block fetches (for both, when paired)

// Registers, as rung 12: setmaxnreg moves them from the producer to the consumers inside a block.
#define PRODUCER_REGS 40
#define LAUNCH_REGS ((65536 / NUM_THREADS) / 8 * 8)
#define CONSUMER_REGS (LAUNCH_REGS + ((LAUNCH_REGS - PRODUCER_REGS) / NUM_CONSUMERS) / 8 * 8)
static_assert((CONSUMER_REGS - LAUNCH_REGS) * NUM_CONSUMERS <= LAUNCH_REGS - PRODUCER_REGS,
              "the consumers cannot take more registers than the producer gives back");
static_assert(BM == 128 || BM == 256, "BM must be 128 or 256 (two or four consumer warpgroups)");
static_assert(BN == 128 || BN == 256, "BN must be 128 or 256 (two or four 64-column boxes of B, split over the pair)");
static_assert(CLUSTER == 1 || CLUSTER == 2, "CLUSTER must be 1 (no pairing) or 2");
static_assert(BN / 2 + 32 <= CONSUMER_REGS, "a consumer's BN / 2 accumulators must fit its register budget");
static_assert(STAGES >= 2, "at least two stages: one being filled while another is read");

// ---------------------------------------------------------------------------------------------
// Work distribution: the cluster walks stacks of CLUSTER tiles along M; block `rank` takes the
// rank-th tile of each stack. With an odd tile-row count the last stack's second tile lies past
// M: that block still fetches its half of B for its peer, and stores nothing.
// ---------------------------------------------------------------------------------------------
struct Walk {
    int stacks_m, tiles_n, first, step;
    __device__ int count() const { return stacks_m * tiles_n; }
    // Stack number -> origin of this block's tile (rung 12's grouped order, over stacks; not
    // kl_tma.cuh's tile_origin, which walks single tiles).
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
    __device__ unsigned full(int s) const { return full_bar + 8 * s; }
    __device__ unsigned empty(int s) const { return empty_bar + 8 * s; }
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
// Consumers: rung 12's loop; a finished stage is handed back to the producers of both blocks.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ void release(const Shared& sh, int stage, int rank) {
    mbar_arrive(sh.empty(stage));
    if (CLUSTER > 1) mbar_arrive_peer(sh.empty(stage), rank ^ 1);
}

__device__ __forceinline__ void consume(const Shared& sh, float* C, int M, int N, int cg, const Walk& w, int rank,
                                        int k_tiles) {
    const int lane = threadIdx.x % 32;
    float d[BN / 2];  // not zeroed: each tile's first wgmma runs with accumulate = 0 (rung 11)
    Ring ring;
    for (int stack = w.first; stack < w.count(); stack += w.step) {
        int m0, n0;
        w.origin(stack, rank, m0, n0);
        int previous = -1;  // the stage whose batch may still be running
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.full(ring.stage), ring.parity);
            const unsigned sA = smem_addr(sh.a(ring.stage)) + cg * (64 * 128);
            const unsigned sB = smem_addr(sh.b(ring.stage));
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                const unsigned long long desc_a = make_desc(sA + kk * 32, 16, 1024);
                const unsigned long long desc_b = make_desc(sB + kk * 16 * 128, BK * 128, 1024);
                wgmma_bf16(d, desc_a, desc_b, kt > 0 || kk > 0);
            }
            wgmma_commit();
            wgmma_wait<1>();  // the previous batch is done: its stage can be refilled
            fence_accumulators(d);
            if (previous >= 0 && lane == 0) release(sh, previous, rank);
            previous = ring.stage;
            ring.advance();
        }
        wgmma_wait<0>();
        fence_accumulators(d);
        if (lane == 0) release(sh, previous, rank);
        store_accumulators(d, C, M, N, m0 + cg * 64, n0);  // rows past M (a stack's spare tile) skipped
    }
}

// ---------------------------------------------------------------------------------------------
// Launch 1 (only when K or N is not a multiple of 8): A and B into padded copies whose rows are
// multiples of 8 elements, zeros in the padding. One thread per 16-byte chunk of the output.
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void matmul_cluster_pad(__nv_bfloat16* Ap, __nv_bfloat16* Bp, const __nv_bfloat16* A,
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
    matmul_wgmma_cluster_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                              const __grid_constant__ TmaDescriptor map_a,
                              const __grid_constant__ TmaDescriptor map_b) {
    extern __shared__ unsigned char smem_raw[];
    // The same offset in both blocks: the multicast writes and the remote arrivals rely on it.
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    Shared sh;
    sh.stages = base;
    sh.full_bar = smem_addr(base + STAGES * STAGE_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;
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
            mbar_init(sh.full(s), 1);                             // this block's expect_tx arrival
            mbar_init(sh.empty(s), CLUSTER * NUM_CONSUMERS * 4);  // every consumer warp of the cluster
        }
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
