// The machinery of matmul rung 18's paired, persistent TMA + wgmma GEMM, shared by every kernel
// built on it (matmul rung 18 itself, and the mlp ladder's rung 5, which puts GeLU in its
// epilogue): the cluster PTX wrappers, the copy engine's store side, the walk of a persistent
// cluster over stacks of tiles (grouped order, optionally stream-K), the stage ring, the
// producer, and the padding launch for rows that are not 16-byte aligned. What a kernel adds is
// its consumers' epilogue and its entry point. Read matmul rung 18's header comment first: the
// why of each piece is there, and measured.
//
// The including file defines BM, BN, BK, STAGES, CLUSTER, GROUP_M, STREAMK, CROWS, LAG and PAIR_N first.
#pragma once

#include <cuda_bf16.h>

#include "kl_cluster.cuh"  // cluster rank and barrier, peer arrivals, multicast loads (kernels/common)
#include "kl_tma.cuh"      // TMA box loads, mbarriers, setmaxnreg (kernels/common)
#include "kl_wgmma.cuh"    // wgmma, its fences and the smem descriptor

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(STAGES) || !defined(CLUSTER) || !defined(GROUP_M) || \
    !defined(STREAMK) || !defined(CROWS) || !defined(LAG) || !defined(PAIR_N)
#error \
    "BM, BN, BK, STAGES, CLUSTER, GROUP_M, STREAMK, CROWS, LAG and PAIR_N must be defined, e.g. -DBM=128 -DBN=256 -DBK=64 -DSTAGES=4 -DCLUSTER=2 -DGROUP_M=16 -DSTREAMK=1 -DCROWS=64 -DLAG=0 -DPAIR_N=0"
#endif

#define A_ROW_BYTES (BK * 2)        // a K-tile row of A: 128 bytes (BK = 64) or 64 (BK = 32), its swizzle span
#define NUM_CONSUMERS (BM / CROWS)  // consumer warpgroups, CROWS rows of C each
#define HALVES (CROWS / 64)         // m64 wgmmas per consumer per 16-deep step (1, or 2 as cuBLAS's "coop" tiles)
#define NUM_THREADS (128 * (NUM_CONSUMERS + 1))  // + the producer warpgroup
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024    // the 128-byte swizzle repeats every 8 rows = 1 KB
#define B_BOXES (BN / 64)  // 64-column boxes of one B tile
// The cluster's blocks as a CM x CN grid of tiles: the CM blocks of a column share B's tile, the
// CN blocks of a row share A's. A pair (CLUSTER = 2) is stacked along M (PAIR_N = 0: CM = 2) or
// side by side along N (PAIR_N = 1: CN = 2); CLUSTER = 4 is a 2 x 2 square sharing both. Each
// block fetches its share of what it shares, and the copy engine multicasts it: 1 / CM of B's
// boxes into its column, 1 / CN of A's rows into its row. Block `rank` sits at row rank % CM,
// column rank / CM.
#define CM (CLUSTER == 4 ? 2 : PAIR_N ? 1 : CLUSTER)
#define CN (CLUSTER / CM)
#define B_BOXES_MINE (B_BOXES / CM)
#define A_ROWS_MINE (BM / CN)
// The block's row and column in the cluster's grid (written so that a pair's needs no arithmetic).
__device__ __forceinline__ int cluster_row(int rank) { return CN == 1 ? rank : rank % CM; }
__device__ __forceinline__ int cluster_col(int rank) { return CM == 1 ? rank : CN == 1 ? 0 : rank / CM; }
#define SUB_BYTES (64 * 128)  // a store sub-tile: 64 rows of 128 bytes (32 fp32 or 64 bf16), 8 KB
#define STORE_BYTES (NUM_CONSUMERS * 2 * SUB_BYTES)  // two sub-tile buffers per consumer warpgroup

// Registers, as rung 12: setmaxnreg moves them from the producer to the consumers inside a block.
#define PRODUCER_REGS 40
#define LAUNCH_REGS ((65536 / NUM_THREADS) / 8 * 8)
#define CONSUMER_REGS (LAUNCH_REGS + ((LAUNCH_REGS - PRODUCER_REGS) / NUM_CONSUMERS) / 8 * 8)
static_assert((CONSUMER_REGS - LAUNCH_REGS) * NUM_CONSUMERS <= LAUNCH_REGS - PRODUCER_REGS,
              "the consumers cannot take more registers than the producer gives back");
static_assert(BM == 128 || BM == 256, "BM must be 128 or 256 (BM / CROWS consumer warpgroups)");
static_assert(BN == 128 || BN == 256, "BN must be 128 or 256 (two or four 64-column boxes of B, split over the pair)");
static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4, "CLUSTER must be 1 (no pairing), 2 (a pair) or 4 (2 x 2)");
static_assert(CLUSTER != 4 || PAIR_N == 0, "CLUSTER = 4 is a 2 x 2 square: PAIR_N must be 0");
static_assert(HALVES * BN / 2 + 32 <= CONSUMER_REGS,
              "a consumer's CROWS * BN / 128 accumulators must fit its registers");
static_assert(CROWS == 64 || CROWS == 128, "CROWS must be 64 (one m64 wgmma per step) or 128 (two)");
static_assert(BM % CROWS == 0, "BM must be a whole number of consumer warpgroups' rows");
static_assert(STAGES >= 2, "at least two stages: one being filled while another is read");
static_assert(GROUP_M % CM == 0, "GROUP_M tile rows must hold whole stacks of CM tile rows");
static_assert(PAIR_N == 0 || PAIR_N == 1,
              "PAIR_N must be 0 (pairs stacked along M, sharing B) or 1 (along N, sharing A)");
static_assert(BK == 32 || BK == 64, "BK must be 32 (64-byte swizzle of A) or 64 (128-byte swizzle)");
static_assert(LAG == 0 || NUM_CONSUMERS == 2, "LAG staggers two consumer warpgroups: it needs BM / CROWS == 2");
static_assert(LAG < STAGES, "LAG must be under STAGES: the leading consumer's first LAG K-tiles need no stage back");

// A barrier for the 128 threads of one consumer warpgroup only (id 0 is __syncthreads').
__device__ __forceinline__ void warpgroup_sync(int id) { named_sync(id, 128); }

// A's shared-memory descriptor. With BK = 64 this is kl_wgmma.cuh's make_desc (128-byte swizzle,
// 8-row groups 1 KB apart); with BK = 32 a row of A is 64 bytes, so the copy engine writes it in
// the 64-byte swizzle (layout type 2) and 8-row groups sit 512 bytes apart.
__device__ __forceinline__ unsigned long long desc_a_k_major(unsigned addr) {
    if (BK == 64) return make_desc(addr, 16, 1024);
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) |
           ((unsigned long long)((8 * A_ROW_BYTES) >> 4) << 32) | (2ull << 62);
}

// ---------------------------------------------------------------------------------------------
// Work distribution: the cluster walks stacks of CM x CN tiles; block `rank` takes the tile at
// (rank % CM, rank / CM) of each stack. With an odd tile count along M (or N) the last stacks'
// second row (column) of tiles lies past M (N): those blocks still fetch their shares for their
// peers, and store nothing.
// A unit is K-tiles [kbeg, kend) of one stack. The rounds that give every cluster a stack hand
// out whole stacks (cluster c: stacks c, c + G, ...; G clusters). With STREAMK = 1 the stacks
// left over (fewer than G) are cut by K-tiles instead: laid end to end, their K-tiles are dealt
// out in G contiguous shares, equal to within one, so every SM finishes at the same time.
// ---------------------------------------------------------------------------------------------
struct Unit {
    int stack, kbeg, kend;
};

struct Walk {
    int stacks_m, stacks_n, k_tiles, cluster, clusters;  // stacks_m x stacks_n stacks of tiles
    int whole;             // stacks handed out whole (all of them unless the remainder is streamed)
    long long q, r;        // streamed K-tiles per cluster: q, and one more for the first r clusters
    long long it, it_end;  // this cluster's streamed K-tiles still to hand out
    int next_whole;

    // tiles_m x tiles_n tiles of C, grouped into stacks of CM x CN.
    __device__ void init(int tiles_m, int tiles_n, int k_tiles_, int cluster_, int clusters_) {
        stacks_m = (tiles_m + CM - 1) / CM;
        stacks_n = (tiles_n + CN - 1) / CN;
        k_tiles = k_tiles_, cluster = cluster_, clusters = clusters_;
        const int stacks = stacks_m * stacks_n, left = stacks % clusters;
        // A share under 8 K-tiles would spend more on joining the pieces than the idle SMs cost.
        const bool stream = STREAMK == 1 && left > 0 && (long long)left * k_tiles >= 8LL * clusters;
        whole = stream ? stacks - left : stacks;
        const long long streamed = (long long)(stacks - whole) * k_tiles;
        q = streamed / clusters;
        r = streamed % clusters;
        it = first_iter(cluster);
        it_end = first_iter(cluster + 1);
        next_whole = cluster;
    }
    __device__ long long first_iter(long long c) const { return c * q + min(c, r); }
    // The cluster whose share holds streamed K-tile i (the inverse of first_iter).
    __device__ int owner(long long i) const {
        const long long big = r * (q + 1);
        return i < big ? int(i / (q + 1)) : int(r + (i - big) / q);
    }
    // How many clusters share streamed stack `stack`: the piece with its last K-tile stores, the
    // others add.
    __device__ int pieces(int stack) const {
        const long long first = (long long)(stack - whole) * k_tiles;
        return owner(first + k_tiles - 1) - owner(first) + 1;
    }
    __device__ bool next(Unit& u) {
        if (next_whole < whole) {
            u = Unit{next_whole, 0, k_tiles};
            next_whole += clusters;
            return true;
        }
        if (it < it_end) {
            u.stack = whole + int(it / k_tiles);
            u.kbeg = int(it % k_tiles);
            u.kend = int(min((long long)k_tiles, u.kbeg + (it_end - it)));
            it += u.kend - u.kbeg;
            return true;
        }
        return false;
    }
    // Stack number -> origin of this block's tile (rung 12's grouped order, over stacks; not
    // kl_tma.cuh's tile_origin, which walks single tiles).
    // A group holds GROUP_M tile rows: GROUP_M / CM rows of stacks.
    __device__ void origin(int stack, int rank, int& m0, int& n0) const {
        const int group_stacks = GROUP_M / CM;
        const int group = stack / (group_stacks * stacks_n), first_m = group * group_stacks;
        const int rows = min(stacks_m - first_m, group_stacks);
        const int in_group = stack % (group_stacks * stacks_n);
        const int sm = first_m + in_group % rows, sn = in_group / rows;
        m0 = (sm * CM + cluster_row(rank)) * BM;
        n0 = (sn * CN + cluster_col(rank)) * BN;
    }
};

using Ring = StageRing<STAGES>;  // kl_tma.cuh

struct Shared {
    unsigned char* stages;  // STAGES x (A tile, then BN / 64 blocks of B), 1 KB aligned
    unsigned char* store;   // NUM_CONSUMERS x 2 sub-tile buffers of C, 1 KB aligned (the swizzle's period)
    unsigned full_bar;      // STAGES barriers: the stage's A and whole B have landed here
    unsigned empty_bar;     // STAGES barriers: every consumer warp of the cluster is done with it
    __device__ unsigned full(int s) const { return full_bar + 8 * s; }
    __device__ unsigned empty(int s) const { return empty_bar + 8 * s; }
    __device__ unsigned char* a(int s) const { return stages + s * STAGE_BYTES; }
    __device__ unsigned char* b(int s) const { return stages + s * STAGE_BYTES + A_STAGE_BYTES; }
    __device__ unsigned char* sub(int cg, int buf) const { return store + (cg * 2 + buf) * SUB_BYTES; }
};

// ---------------------------------------------------------------------------------------------
// Producer (one thread): per K-tile, wait until the stage is free in both blocks, announce the
// whole stage's bytes on this block's `full` (its own operand, and both halves of the shared one),
// fetch its own operand and its half of the shared one, the latter into both blocks.
// ---------------------------------------------------------------------------------------------
// One K-tile of a whole tile at (m0, n0) into the stage the ring points at (the caller has waited
// for it to be free).
__device__ __forceinline__ void load_stage(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                           const Ring& ring, int m0, int n0, int kt, int rank) {
    const unsigned full = sh.full(ring.stage);
    mbar_arrive_expect_bytes(full, STAGE_BYTES);
    const int rm = cluster_row(rank), rn = cluster_col(rank);
    if (CN > 1) {  // share rn of A's rows, into the blocks of this row (ranks rm, rm + CM, ...)
        const unsigned row_mask = CM == 1 ? (1u << CN) - 1 : 0x5u << rm;
        tma_load_2d_multicast(smem_addr(sh.a(ring.stage)) + rn * (A_ROWS_MINE * A_ROW_BYTES), map_a, kt * BK,
                              m0 + rn * A_ROWS_MINE, full, row_mask);
    } else {
        tma_load_2d(smem_addr(sh.a(ring.stage)), map_a, kt * BK, m0, full);
    }
#pragma unroll
    for (int i = 0; i < B_BOXES_MINE; ++i) {
        const int j = rm * B_BOXES_MINE + i;  // share rm of B's boxes: block 0 of a column the left ones
        const unsigned dst = smem_addr(sh.b(ring.stage) + j * (BK * 128));
        if (CM == 1)
            tma_load_2d(dst, map_b, n0 + j * 64, kt * BK, full);
        else  // into the blocks of this column (ranks CM rn ... CM rn + CM - 1)
            tma_load_2d_multicast(dst, map_b, n0 + j * 64, kt * BK, full, ((1u << CM) - 1) << (CM * rn));
    }
}

__device__ __forceinline__ void produce(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                        Walk w, int rank) {
    Ring ring;
    Unit u;
    while (w.next(u)) {
        int m0, n0;
        w.origin(u.stack, rank, m0, n0);
        for (int kt = u.kbeg; kt < u.kend; ++kt) {
            mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
            load_stage(sh, map_a, map_b, ring, m0, n0, kt, rank);
            ring.advance();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Consumers: rung 12's loop; a finished stage is handed back to the producers of both blocks.
// ---------------------------------------------------------------------------------------------
// Every block whose producer writes into this one (its row and its column, itself included) is
// told; in a 2 x 2 square that leaves out the diagonal block.
__device__ __forceinline__ void release(const Shared& sh, int stage, int rank) {
    mbar_arrive(sh.empty(stage));
    if (CLUSTER == 2) mbar_arrive_peer(sh.empty(stage), rank ^ 1);
    if (CLUSTER == 4) {
        mbar_arrive_peer(sh.empty(stage), rank ^ 1);  // the other row of this column (shares B)
        mbar_arrive_peer(sh.empty(stage), rank ^ 2);  // the other column of this row (shares A)
    }
}

__device__ __forceinline__ void fence_all(float (&d)[HALVES][BN / 2]) {
#pragma unroll
    for (int h = 0; h < HALVES; ++h) fence_accumulators(d[h]);
}

// ---------------------------------------------------------------------------------------------
// Staggered consumers (LAG > 0). Both consumer warpgroups of a block work on one tile and, left
// alone, reach its epilogue together: the tensor cores then idle while both write their C. With
// LAG = L, consumer 1 starts its first unit only once consumer 0 has finished L K-tiles (a named
// barrier, once per kernel). The lag then keeps itself: while consumer 0 stores a tile, consumer 1
// runs its last L K-tiles alone, at the tensor cores' full rate instead of half; while consumer 1
// stores, consumer 0 runs the next tile's first K-tiles alone, and the lag is back. The ring's
// depth as seen by the leading consumer shrinks by L stages (the producer waits for the trailing
// one); L < STAGES, so the leader's first L K-tiles need no stage handed back.
// ---------------------------------------------------------------------------------------------
#define STAGGER_BARRIER 15  // a named barrier id (0 is __syncthreads', 1 + cg a warpgroup's own)
struct Stagger {
    bool wait, signal;  // consumer 1 still has to wait / consumer 0 still has to signal
    __device__ explicit Stagger(int cg) : wait(LAG > 0 && cg == 1), signal(LAG > 0 && cg == 0) {}
    // Consumer 1, before its first unit: until consumer 0 has done its first LAG K-tiles.
    __device__ __forceinline__ void before_unit() {
        if (LAG > 0 && wait) {
            named_sync(STAGGER_BARRIER, 256);
            wait = false;
        }
    }
    // Consumer 0, once `done` of its first unit's K-tiles are finished (or the unit is over).
    __device__ __forceinline__ void after_ktiles(int done) {
        if (LAG > 0 && signal && done >= LAG) {
            named_arrive(STAGGER_BARRIER, 256);
            signal = false;
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Launch 1 (only when K or N is not a multiple of 8): A and B into padded copies whose rows are
// multiples of 8 elements, zeros in the padding. One thread per 16-byte chunk of the output.
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void matmul_tma_store_pad(__nv_bfloat16* Ap, __nv_bfloat16* Bp, const __nv_bfloat16* A,
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

// The block's shared memory: the stage ring, then the store buffers, then the barriers, from a
// 1 KB aligned base at the same offset in both blocks of a pair (the multicast writes and the
// remote arrivals rely on it).
__device__ __forceinline__ void carve_shared(Shared& sh, unsigned char* smem_raw) {
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    sh.stages = base;
    sh.store = base + STAGES * STAGE_BYTES;
    sh.full_bar = smem_addr(sh.store + STORE_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;
}

// Thread 0 initializes the ring's barriers; then both blocks of a pair meet, so the peer's
// barriers exist before anyone signals them.
__device__ __forceinline__ void init_ring(const Shared& sh) {
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), 1);                                   // this block's expect_tx arrival
            mbar_init(sh.empty(s), (CM + CN - 1) * NUM_CONSUMERS * 4);  // every consumer warp of row and column
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        fence_proxy_async();
    }
    if (CLUSTER == 1)
        __syncthreads();
    else
        cluster_sync();
}

#if CLUSTER > 1
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS
#endif
