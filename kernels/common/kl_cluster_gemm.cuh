// The machinery of matmul rung 18's paired, persistent TMA + wgmma GEMM, shared by every kernel
// built on it (matmul rung 18 itself, and the mlp ladder's rung 5, which puts GeLU in its
// epilogue): the cluster PTX wrappers, the copy engine's store side, the walk of a persistent
// cluster over stacks of tiles (grouped order, optionally stream-K), the stage ring, the
// producer, and the padding launch for rows that are not 16-byte aligned. What a kernel adds is
// its consumers' epilogue and its entry point. Read matmul rung 18's header comment first: the
// why of each piece is there, and measured.
//
// The including file defines BM, BN, BK, STAGES, CLUSTER, GROUP_M, STREAMK, CROWS, LAG, PAIR_N and
// QUEUE first (and STAMPS, the block timeline, when it wants one).
#pragma once

#include <cuda_bf16.h>

#include "kl_cluster.cuh"  // cluster rank and barrier, peer arrivals, multicast loads (kernels/common)
#include "kl_tma.cuh"      // TMA box loads, mbarriers, setmaxnreg (kernels/common)
#include "kl_wgmma.cuh"    // wgmma, its fences and the smem descriptor

#ifndef NARROW
#define NARROW 0  // matmul rung 18's last round re-cut into narrow pieces (kl_narrow_tail.cuh); off elsewhere
#endif
#include "kl_narrow_tail.cuh"  // NarrowTail: the plan of those pieces

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(STAGES) || !defined(CLUSTER) || !defined(GROUP_M) || \
    !defined(STREAMK) || !defined(CROWS) || !defined(LAG) || !defined(PAIR_N) || !defined(QUEUE)
#error \
    "BM, BN, BK, STAGES, CLUSTER, GROUP_M, STREAMK, CROWS, LAG, PAIR_N and QUEUE must be defined, e.g. -DBM=128 -DBN=256 -DBK=64 -DSTAGES=4 -DCLUSTER=2 -DGROUP_M=16 -DSTREAMK=1 -DCROWS=64 -DLAG=0 -DPAIR_N=0 -DQUEUE=0"
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
static_assert(QUEUE == 0 || QUEUE == 1 || QUEUE == 2,
              "QUEUE must be 0 (dealt in turn), 1 (the last round queued) or 2 (all)");
static_assert(QUEUE == 0 || STREAMK == 0, "QUEUE and STREAMK both reshape the last round: one at a time");
static_assert(NARROW == 0 || (QUEUE == 0 && STREAMK == 0),
              "NARROW, QUEUE and STREAMK all reshape the last round: one at a time");
static_assert(
    NARROW == 0 || (BN == 256 && CROWS == 64 && CN == 1),
    "NARROW re-cuts 256-column stacks of one tile column (BN = 256, PAIR_N = 0) for one m64 wgmma (CROWS = 64)");

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
// With QUEUE = 1 the left-over stacks are not dealt out but queued (below): whichever cluster
// finishes its whole rounds first takes the next. With QUEUE = 2 every stack is queued.
// ---------------------------------------------------------------------------------------------
struct Unit {
    int stack, kbeg, kend;
    int piece = -1;  // NARROW: the last round's piece this unit is (stack unused), or -1
};

struct Walk {
    int stacks_m, stacks_n, k_tiles, cluster, clusters;  // stacks_m x stacks_n stacks of tiles
    int whole;             // stacks dealt out whole (all of them unless the remainder is streamed or queued)
    int queued;            // stacks whole + 0 ... whole + queued - 1 are taken from the queue (QUEUE)
    long long q, r;        // streamed K-tiles per cluster: q, and one more for the first r clusters
    long long it, it_end;  // this cluster's streamed K-tiles still to hand out
    int next_whole;
    NarrowTail tail;  // NARROW: the left-over stacks as narrow pieces (tail.units of them)
    int next_piece;

    // tiles_m x tiles_n tiles of C, grouped into stacks of CM x CN.
    __device__ void init(int tiles_m, int tiles_n, int k_tiles_, int cluster_, int clusters_) {
        stacks_m = (tiles_m + CM - 1) / CM;
        stacks_n = (tiles_n + CN - 1) / CN;
        k_tiles = k_tiles_, cluster = cluster_, clusters = clusters_;
        const int stacks = stacks_m * stacks_n, left = stacks % clusters;
        // A share under 8 K-tiles would spend more on joining the pieces than the idle SMs cost.
        const bool stream = STREAMK == 1 && left > 0 && (long long)left * k_tiles >= 8LL * clusters;
        queued = QUEUE == 0 ? 0 : QUEUE == 1 ? left : stacks;
        whole = stream ? stacks - left : stacks - queued;
        const long long streamed = stream ? (long long)(stacks - whole) * k_tiles : 0;  // (queued stacks are not)
        q = streamed / clusters;
        r = streamed % clusters;
        it = first_iter(cluster);
        it_end = first_iter(cluster + 1);
        next_whole = cluster;
        next_piece = cluster;
    }
    // NARROW: the left-over stacks as pieces, when they fit one round (kl_narrow_tail.cuh); N is
    // C's width, which the walk does not otherwise need.
    __device__ void plan_narrow(int N) {
        const int stacks = stacks_m * stacks_n, left = stacks % clusters;
        tail.plan(stacks_m, stacks_n, GROUP_M / CM, left, clusters, N, CN * BN);
        if (tail.units > 0) whole = stacks - left;
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
        if (NARROW && next_piece < tail.units) {
            u = Unit{-1, 0, k_tiles, next_piece};
            next_piece += clusters;
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
    // A unit's origin, a narrow piece's included (its width: narrow_width).
    __device__ void origin(const Unit& u, int rank, int& m0, int& n0) const {
        if (NARROW && u.piece >= 0) {
            int band, width;
            tail.piece(u.piece, band, n0, width);
            m0 = ((tail.first_m + band) * CM + cluster_row(rank)) * BM;
        } else {
            origin(u.stack, rank, m0, n0);
        }
    }
    // A narrow piece's width, worked out again after its K-tiles (a few integer operations, once
    // per piece) rather than kept from origin(), which would hold a register through the main loop
    // and changed the machine code of the form that was measured.
    __device__ int narrow_width(const Unit& u) const {
        int band, n0, width;
        tail.piece(u.piece, band, n0, width);
        return width;
    }
};

using Ring = StageRing<STAGES>;  // kl_tma.cuh

struct Shared {
    unsigned char* stages;   // STAGES x (A tile, then BN / 64 blocks of B), 1 KB aligned
    unsigned char* store;    // NUM_CONSUMERS x 2 sub-tile buffers of C, 1 KB aligned (the swizzle's period)
    unsigned full_bar;       // STAGES barriers: the stage's A and whole B have landed here
    unsigned empty_bar;      // STAGES barriers: every consumer warp of the cluster is done with it
    unsigned job_full;       // QUEUE: block 0's producer has handed this block the next job (job_slot)
    unsigned job_empty;      // QUEUE: (block 0) every other block's producer has read its job_slot
    volatile int* job_slot;  // QUEUE: the job handed over (-1: none left)
    volatile int* tags;      // QUEUE: STAGES words, the queued job whose first K-tile a stage holds
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

// Every K-tile of one unit.
__device__ __forceinline__ void produce_unit(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                             Ring& ring, const Walk& w, const Unit& u, int rank) {
    int m0, n0;
    w.origin(u, rank, m0, n0);
    for (int kt = u.kbeg; kt < u.kend; ++kt) {
        mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
        load_stage(sh, map_a, map_b, ring, m0, n0, kt, rank);
        ring.advance();
    }
}

// ---------------------------------------------------------------------------------------------
// The queue (QUEUE > 0). The walk deals stacks out in turn, so each cluster's share is fixed
// before anything runs; but the SMs do not keep one pace. The block timeline (STAMPS) of mlp rung 5
// at 8192 x 4096 x 16384 on an H100: the slowest pair took 1.6% longer per tile than the fastest,
// so after 31 rounds the pairs finished 22 us apart, and the last round's work, dealt in turn,
// ran on pairs that finished late. Queued, it goes to whichever clusters come free first.
// Block 0's producer takes a job number from a counter in global memory (one atomicAdd), hands it
// to the other blocks' producers through their shared memory (job_slot, job_full; job_empty
// says they have read it), and each producer writes it beside the stage of the job's first K-tile
// (tags), where its consumers read it once that stage has landed. -1: none left. The counter
// counts every take; the launch's last (jobs + clusters takes: each cluster's final one finds
// nothing) sets it back to zero for the next launch.
// ---------------------------------------------------------------------------------------------
struct TailQueue {
    int* counter;
    int jobs, clusters;
    unsigned parity;
    __device__ TailQueue(int* counter_, int jobs_, int clusters_)
        : counter(counter_), jobs(jobs_), clusters(clusters_), parity(0) {}
    // The producers of a cluster, in step: the next job number, or -1.
    __device__ int take(const Shared& sh, int rank) {
        int job;
        if (rank == 0) {
            const int i = atomicAdd(counter, 1);
            if (i == jobs + clusters - 1) atomicExch(counter, 0);
            job = i < jobs ? i : -1;
            if (CLUSTER > 1) {
                mbar_wait_cluster(sh.job_empty, parity ^ 1);  // the last job handed over has been read
                for (int r = 1; r < CLUSTER; ++r) {
                    st_peer_u32(smem_addr(const_cast<int*>(sh.job_slot)), r, job);
                    mbar_arrive_peer_cluster(sh.job_full, r);
                }
            }
        } else {
            mbar_wait_cluster(sh.job_full, parity);
            job = *sh.job_slot;
            mbar_arrive_peer_cluster(sh.job_empty, 0);
        }
        parity ^= 1;
        return job;
    }
};

// The producer's side: take jobs until none is left, writing each beside the stage of its first
// K-tile (produce_job issues its loads, or nothing for a job it skips: the stage then stays free
// and takes the next tag); at the end, the next stage is tagged -1 and its barrier completed
// without loads, which lets the consumers leave.
template <class ProduceJob>
__device__ __forceinline__ void produce_queued(const Shared& sh, Ring& ring, TailQueue q, int rank,
                                               ProduceJob produce_job) {
    for (;;) {
        const int job = q.take(sh, rank);
        mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
        sh.tags[ring.stage] = job;
        if (job < 0) {
            mbar_arrive(sh.full(ring.stage));
            return;
        }
        produce_job(job);
    }
}
// The consumers' side: the job written beside the stage they are about to read (-1: none left).
__device__ __forceinline__ int queued_job(const Shared& sh, const Ring& ring) {
    mbar_wait(sh.full(ring.stage), ring.parity);
    return sh.tags[ring.stage];
}

// The queue's counter: one int after the stream-K flags (the manifest allocates one more), past
// every flag a stack of this launch can use.
__device__ __forceinline__ int* queue_counter(int* flags, const Walk& w) {
    return flags + w.stacks_m * w.stacks_n * CLUSTER * (BM / 64);
}

__device__ __forceinline__ void produce(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                        Walk w, int rank, int* flags) {
    Ring ring;
    Unit u;
    while (w.next(u)) produce_unit(sh, map_a, map_b, ring, w, u, rank);
    if (QUEUE)
        produce_queued(sh, ring, TailQueue(queue_counter(flags, w), w.queued, w.clusters), rank, [&](int job) {
            produce_unit(sh, map_a, map_b, ring, w, Unit{w.whole + job, 0, w.k_tiles}, rank);
        });
}

// The consumers' next unit: the walk's, then (QUEUE) the queued stack their producer tagged.
__device__ __forceinline__ bool next_unit(Walk& w, const Shared& sh, const Ring& ring, Unit& u) {
    if (w.next(u)) return true;
    if (QUEUE == 0) return false;
    const int job = queued_job(sh, ring);
    if (job < 0) return false;
    u = Unit{w.whole + job, 0, w.k_tiles};
    return true;
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

// The block's shared memory: the stage ring, then the store buffers, then the barriers and the
// queue's words (16 STAGES + 16 + 8 + 4 STAGES bytes: the manifests count 16 STAGES + 64), from a
// 1 KB aligned base at the same offset in both blocks of a pair (the multicast writes and the
// remote arrivals rely on it).
__device__ __forceinline__ void carve_shared(Shared& sh, unsigned char* smem_raw) {
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    sh.stages = base;
    sh.store = base + STAGES * STAGE_BYTES;
    unsigned char* bars = sh.store + STORE_BYTES;
    sh.full_bar = smem_addr(bars);
    sh.empty_bar = sh.full_bar + 8 * STAGES;
    sh.job_full = sh.empty_bar + 8 * STAGES;
    sh.job_empty = sh.job_full + 8;
    sh.job_slot = reinterpret_cast<volatile int*>(bars + 16 * STAGES + 16);
    sh.tags = sh.job_slot + 2;
}

// Thread 0 initializes the ring's barriers; then both blocks of a pair meet, so the peer's
// barriers exist before anyone signals them.
__device__ __forceinline__ void init_ring(const Shared& sh) {
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), 1);                                   // this block's expect_tx arrival
            mbar_init(sh.empty(s), (CM + CN - 1) * NUM_CONSUMERS * 4);  // every consumer warp of row and column
        }
        if (QUEUE) {
            mbar_init(sh.job_full, 1);                               // block 0's producer
            mbar_init(sh.job_empty, CLUSTER > 1 ? CLUSTER - 1 : 1);  // the other blocks' producers
        }
        fence_mbarrier_init();
        fence_proxy_async();
    }
    if (CLUSTER == 1)
        __syncthreads();
    else
        cluster_sync();
}

// ---------------------------------------------------------------------------------------------
// The block timeline (STAMPS = n > 0: a measuring form, not one to time). Each block records its
// SM, the global nanosecond timer when it starts and when it leaves, and its SM's cycle counter
// at the start and when each unit's last wgmma has finished (consumer 0); a second launch of the same
// module, cluster_gemm_print_stamps, prints the records of the n-th launch. It answers where a
// persistent kernel's SMs wait: before their first tile, between tiles, or after their last while
// other SMs finish (docs/tuning/mlp.md; scripts/stamps_table.py reads the lines). The
// records are plain global stores by one thread, a few per tile; no printf in the GEMM itself,
// since a call there makes ptxas serialize its wgmmas.
// ---------------------------------------------------------------------------------------------
#ifndef STAMPS
#define STAMPS 0
#endif
#define STAMP_BLOCKS 1024  // blocks recorded (an H100 runs 132)
#define STAMP_UNITS 64     // units recorded per block (the last slot takes any beyond)
struct StampRecord {
    unsigned smid, units;
    unsigned long long ns_start, ns_end, cycle_start, cycle_end;
    unsigned long long cycle_unit[STAMP_UNITS];
};
#if STAMPS > 0
__device__ StampRecord kl_stamp_records[STAMP_BLOCKS];
__device__ unsigned kl_stamp_prints;
#endif
__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ unsigned sm_id() {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}
// Thread 0, first thing and last thing.
__device__ __forceinline__ void stamp_block(bool start) {
#if STAMPS > 0
    if (threadIdx.x != 0 || blockIdx.x >= STAMP_BLOCKS) return;
    StampRecord& r = kl_stamp_records[blockIdx.x];
    if (start) {
        r.smid = sm_id();
        r.cycle_start = clock64();
        r.ns_start = global_ns();
    } else {
        r.cycle_end = clock64();
        r.ns_end = global_ns();
    }
#else
    (void)start;
#endif
}
// Consumer 0's first thread, when the last wgmma of its `done`-th unit (1, 2, ...) has finished.
__device__ __forceinline__ void stamp_unit(int cg, int done) {
#if STAMPS > 0
    if (cg != 0 || threadIdx.x % 128 != 0 || blockIdx.x >= STAMP_BLOCKS) return;
    StampRecord& r = kl_stamp_records[blockIdx.x];
    r.cycle_unit[min(done, STAMP_UNITS) - 1] = clock64();
    r.units = done;
#else
    (void)cg;
    (void)done;
#endif
}
// One thread prints launch STAMPS's records, one line per block, then one per eight units:
//   stamp <block> sm <smid> ns <start> <end> cycles <start> <end> units <n>
//   stamp_units <block> <first index> <cycles after the start> x 8
// (Compiled empty when STAMPS = 0: every launch entry a manifest names must exist in the module.)
extern "C" __global__ void cluster_gemm_print_stamps() {
#if STAMPS > 0
    if (threadIdx.x != 0 || ++kl_stamp_prints != STAMPS) return;
    for (int b = 0; b < STAMP_BLOCKS; ++b) {
        const StampRecord& r = kl_stamp_records[b];
        if (r.ns_start == 0) continue;  // no block of that number ran
        printf("stamp %d sm %u ns %llu %llu cycles %llu %llu units %u\n", b, r.smid, r.ns_start, r.ns_end,
               r.cycle_start, r.cycle_end, r.units);
        const int n = min(int(r.units), STAMP_UNITS);
        for (int i = 0; i < n; i += 8) {
            unsigned long long c[8];
            for (int k = 0; k < 8; ++k) c[k] = i + k < n ? r.cycle_unit[i + k] - r.cycle_start : 0;
            printf("stamp_units %d %d %llu %llu %llu %llu %llu %llu %llu %llu\n", b, i, c[0], c[1], c[2], c[3], c[4],
                   c[5], c[6], c[7]);
        }
    }
#endif
}
