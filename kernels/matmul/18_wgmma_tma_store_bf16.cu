// Rung 18 - The epilogue goes out through shared memory and TMA stores, and the next tile starts.
//
// What changes from rung 15: there, when a tile's last wgmma finished, each consumer thread wrote
// its 128 fp32 accumulators to C with 64 eight-byte stores, and the warpgroup could start the
// next tile only once the last of them had left the SM. All blocks finish their tiles at nearly
// the same moment (same work per tile), so 132 blocks x 128 KB = 17 MB of C leave at once, and
// the tensor cores of every SM wait for it. Here the epilogue is staged:
//  1. Each consumer warpgroup cuts its 64 x 256 part of the tile into eight 64 x 32 sub-tiles.
//     It writes one sub-tile's accumulators into a shared-memory buffer (8 KB, laid out in the
//     copy engine's 128-byte swizzle, so the 8 rows a warp writes at once land in different
//     banks), fences them for the async proxy, and one thread hands the buffer to the copy
//     engine (`cp.async.bulk.tensor ... global.shared::cta`, a TMA store) and moves on.
//  2. Two buffers per warpgroup alternate: before writing sub-tile j the thread that issued the
//     stores waits only until the store of sub-tile j - 2 has *read* its buffer
//     (`cp.async.bulk.wait_group.read 1`), not until it reached memory.
//  3. After the last sub-tile the warpgroup goes straight to the next tile's K-tiles (the
//     producer has kept filling the ring): the last stores drain while the tensor cores work.
//     The copy engine also clips the edge tiles, so no bounds checks remain in the epilogue.
// The 32 KB of buffers come out of the 227 KB of shared memory: STAGES = 4 of 48 KB still fit.
// When C's rows are not a multiple of 16 bytes (N % 4 != 0) no tensor map can describe C, and
// the epilogue falls back to rung 15's direct stores.
// Why it should be faster: a K sweep at M = N = 4096 (2026-11-24) put rung 15's fixed cost, the
// time at K = 0 of a linear fit, at about 25 us against cuBLAS's 21 us (and a slope per K 6%
// steeper): the fixed cost is where the epilogues sit, 4 tiles per SM at 4096^3.
// BK = 32 halves a stage (A rows of 64 bytes in the 64-byte swizzle), so up to 8 stages fit.
// What was measured (H100, 2026-11-24, assets/recorded/h100_matmul_tma_store_*.json, cuBLAS
// before and after in the same call): the fixed cost is gone (K = 512 at M = N = 4096: 413
// TFLOP/s against rung 15's 357 and cuBLAS's 365-405); 713 and 745 at 4096^3 against cuBLAS's
// 737 and 737 (in the call before: 737 and 740 against 756 and 749), 668 and 675 at 8192^3
// against 680 and 681. What is left is in the main loop and in the clock the power limit grants
// (docs/tuning/matmul.md, seventh session). BK = 32 with 8 stages: 728 and 653, no gain.
// Two later changes (docs/tuning/matmul.md, eighth session; assets/recorded/h100_matmul_tile_order_*,
// h100_matmul_streamk_tail_*):
//  - GROUP_M = 16 (was 8): a round of 132 tiles covers 16 tile rows by ~8 columns instead of
//    8 by 16, so it reads 16 + 16 MB of A and B at 4096^3 instead of 8 + 32. DRAM reads fell
//    from 187 to 149 MB (cuBLAS: 151), at 8192^3 from 1.59 to 1.27-1.29 GB (cuBLAS: 1.25-1.27).
//    At full clock rung 18 then runs 778 TFLOP/s at 8192^3 against cuBLAS's 770, and 743 against
//    754 at 4096^3; under the power limit the medians of alternated runs follow the clock.
//  - STREAMK = 1 (off by default): the stacks left after the whole rounds (58 of 256 at 4096^3)
//    are cut by K-tiles into equal shares, one per cluster, so no SM idles in the last round. The
//    piece holding a tile's last K-tile stores it; once its TMA stores have landed (checked after
//    the next unit's first batches are issued) it raises a flag, and the other pieces add theirs
//    to C with the copy engine's reduce-add (`cp.reduce.async.bulk.tensor ... .add`). Measured:
//    +3% at 4097^3, +1% at 8192^3 at full clock, but -7% at 4096^3: the cut pieces start at K
//    offsets their neighbours do not share, and DRAM reads rose from 149 to 209 MB.
//  - CROWS = 128 (off): each consumer warpgroup takes 128 rows with two m64 wgmmas per step, as
//    cuBLAS's kernel at 4096^3 does on 256 x 128 tiles. Measured there with BM = 256, BN = 128:
//    727 TFLOP/s against the default's 745 (more L2 and DRAM reads: the pair still shares B).
// Compiled for sm_90a only. Error: as rung 12, ~1e-6 relative (a cut tile's sums are added in
// L2 in the order the pieces arrive, so its last bits may differ from run to run).

#include <cuda_bf16.h>

#include "kl_tma.cuh"    // TMA box loads, mbarriers, setmaxnreg (kernels/common)
#include "kl_wgmma.cuh"  // wgmma, its fences and the smem descriptor, shared with rungs 11-13
#include "kl_flags.cuh"  // flag_acquire / flag_release between blocks (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(STAGES) || !defined(CLUSTER) || !defined(GROUP_M) || \
    !defined(STREAMK) || !defined(CROWS)
#error \
    "BM, BN, BK, STAGES, CLUSTER, GROUP_M, STREAMK and CROWS must be defined, e.g. -DBM=128 -DBN=256 -DBK=64 -DSTAGES=4 -DCLUSTER=2 -DGROUP_M=16 -DSTREAMK=1 -DCROWS=64"
#endif

#define A_ROW_BYTES (BK * 2)        // a K-tile row of A: 128 bytes (BK = 64) or 64 (BK = 32), its swizzle span
#define NUM_CONSUMERS (BM / CROWS)  // consumer warpgroups, CROWS rows of C each
#define HALVES (CROWS / 64)         // m64 wgmmas per consumer per 16-deep step (1, or 2 as cuBLAS's "coop" tiles)
#define NUM_THREADS (128 * (NUM_CONSUMERS + 1))  // + the producer warpgroup
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024                   // the 128-byte swizzle repeats every 8 rows = 1 KB
#define B_BOXES (BN / 64)                 // 64-column boxes of one B tile
#define B_BOXES_MINE (B_BOXES / CLUSTER)  // the boxes this block fetches (for both, when paired)
#define SUB_COLS 32                       // a store sub-tile: 64 rows x 32 fp32 = one 128-byte swizzle row each
#define SUB_BYTES (64 * SUB_COLS * 4)     // 8 KB
#define STORE_BYTES (NUM_CONSUMERS * 2 * SUB_BYTES)  // two buffers per consumer warpgroup

// Registers, as rung 12: setmaxnreg moves them from the producer to the consumers inside a block.
#define PRODUCER_REGS 40
#define LAUNCH_REGS ((65536 / NUM_THREADS) / 8 * 8)
#define CONSUMER_REGS (LAUNCH_REGS + ((LAUNCH_REGS - PRODUCER_REGS) / NUM_CONSUMERS) / 8 * 8)
static_assert((CONSUMER_REGS - LAUNCH_REGS) * NUM_CONSUMERS <= LAUNCH_REGS - PRODUCER_REGS,
              "the consumers cannot take more registers than the producer gives back");
static_assert(BM == 128 || BM == 256, "BM must be 128 or 256 (BM / CROWS consumer warpgroups)");
static_assert(BN == 128 || BN == 256, "BN must be 128 or 256 (two or four 64-column boxes of B, split over the pair)");
static_assert(CLUSTER == 1 || CLUSTER == 2, "CLUSTER must be 1 (no pairing) or 2");
static_assert(HALVES * BN / 2 + 32 <= CONSUMER_REGS,
              "a consumer's CROWS * BN / 128 accumulators must fit its registers");
static_assert(CROWS == 64 || CROWS == 128, "CROWS must be 64 (one m64 wgmma per step) or 128 (two)");
static_assert(BM % CROWS == 0, "BM must be a whole number of consumer warpgroups' rows");
static_assert(STAGES >= 2, "at least two stages: one being filled while another is read");
static_assert(GROUP_M % CLUSTER == 0, "GROUP_M tile rows must hold whole stacks of CLUSTER tiles");
static_assert(BK == 32 || BK == 64, "BK must be 32 (64-byte swizzle of A) or 64 (128-byte swizzle)");

// ---------------------------------------------------------------------------------------------
// PTX wrappers of clusters (rung 12's are in kl_tma.cuh). These stay here: only this rung pairs
// blocks, and the peer arrival and the multicast copy name the cluster, not the block.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
// Every thread of both blocks arrives, then waits for all of them. Release / acquire order the
// barrier initializations before the peer's first signal, and all remote signals before exit.
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
// One arrival on the barrier at the same offset in the peer block: mapa turns the local address
// into the peer's window address. Default semantics (release at CTA scope), as for the local
// arrival: what it orders is the wgmmas' reads, already complete (wgmma.wait_group), before the
// peer's copy engine overwrites the stage. A first version asked .release.cluster here and
// .acquire.cluster in the waits, and ran at 464 TFLOP/s unpaired against rung 12's 722.
__device__ __forceinline__ void mbar_arrive_peer(unsigned bar, unsigned rank) {
    asm volatile(
        "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
        "r"(rank)
        : "memory");
}
// Like kl_tma.cuh's tma_load_2d, but into the same offset of every block in `mask`, signalling
// the barrier at the same offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TmaDescriptor* map, int x, int y,
                                                      unsigned bar, unsigned short mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(bar), "h"(mask)
        : "memory");
}

// The store side of the copy engine: one box of C from shared memory (laid out as the tensor map
// says, here in the 128-byte swizzle) to global memory. Completion is tracked per issuing thread
// in bulk groups: commit closes a group, wait_group.read N returns once at most N groups still
// read shared memory, wait_group N once at most N are still writing.
__device__ __forceinline__ void tma_store_2d(const TmaDescriptor* map, unsigned src, int x, int y) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                     reinterpret_cast<unsigned long long>(map)),
                 "r"(x), "r"(y), "r"(src)
                 : "memory");
}
// The same box, added to what C holds instead of overwriting it (the copy engine's fp32 reduction,
// done in L2): how a piece of a tile cut by STREAMK joins the piece that stored it.
__device__ __forceinline__ void tma_reduce_add_2d(const TmaDescriptor* map, unsigned src, int x, int y) {
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                     reinterpret_cast<unsigned long long>(map)),
                 "r"(x), "r"(y), "r"(src)
                 : "memory");
}
// Orders this thread's copy-engine accesses to global memory with its ordinary ones (and back).
__device__ __forceinline__ void fence_proxy_async_global() { asm volatile("fence.proxy.async.global;\n" ::: "memory"); }
// Waits until the storing piece of a cut tile has raised its flag. That piece belongs to a later
// cluster, and every cluster of the grid is resident at once (one block per SM, grid <= SMs), so
// the wait ends; if it ever did not (a GPU that cannot hold every cluster), trap after about a
// second rather than hang.
__device__ __forceinline__ void wait_flag(const int* p) {
    for (long long i = 0; flag_acquire(p) == 0; ++i) {
        if (i > (1ll << 24)) __trap();
        __nanosleep(64);
    }
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}
template <int kPending>
__device__ __forceinline__ void bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}
// A barrier for the 128 threads of one consumer warpgroup only (id 0 is __syncthreads').
__device__ __forceinline__ void warpgroup_sync(int id) { asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory"); }

// A's shared-memory descriptor. With BK = 64 this is kl_wgmma.cuh's make_desc (128-byte swizzle,
// 8-row groups 1 KB apart); with BK = 32 a row of A is 64 bytes, so the copy engine writes it in
// the 64-byte swizzle (layout type 2) and 8-row groups sit 512 bytes apart.
__device__ __forceinline__ unsigned long long desc_a_k_major(unsigned addr) {
    if (BK == 64) return make_desc(addr, 16, 1024);
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) |
           ((unsigned long long)((8 * A_ROW_BYTES) >> 4) << 32) | (2ull << 62);
}

// ---------------------------------------------------------------------------------------------
// Work distribution: the cluster walks stacks of CLUSTER tiles along M; block `rank` takes the
// rank-th tile of each stack. With an odd tile-row count the last stack's second tile lies past
// M: that block still fetches its half of B for its peer, and stores nothing.
// A unit is K-tiles [kbeg, kend) of one stack. The rounds that give every cluster a stack hand
// out whole stacks (cluster c: stacks c, c + G, ...; G clusters). With STREAMK = 1 the stacks
// left over (fewer than G) are cut by K-tiles instead: laid end to end, their K-tiles are dealt
// out in G contiguous shares, equal to within one, so every SM finishes at the same time.
// ---------------------------------------------------------------------------------------------
struct Unit {
    int stack, kbeg, kend;
};

struct Walk {
    int stacks_m, tiles_n, k_tiles, cluster, clusters;
    int whole;             // stacks handed out whole (all of them unless the remainder is streamed)
    long long q, r;        // streamed K-tiles per cluster: q, and one more for the first r clusters
    long long it, it_end;  // this cluster's streamed K-tiles still to hand out
    int next_whole;

    __device__ void init(int stacks_m_, int tiles_n_, int k_tiles_, int cluster_, int clusters_) {
        stacks_m = stacks_m_, tiles_n = tiles_n_, k_tiles = k_tiles_, cluster = cluster_, clusters = clusters_;
        const int stacks = stacks_m * tiles_n, left = stacks % clusters;
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
    __device__ void origin(int stack, int rank, int& m0, int& n0) const {
        const int group_stacks = GROUP_M / CLUSTER;
        const int group = stack / (group_stacks * tiles_n), first_m = group * group_stacks;
        const int rows = min(stacks_m - first_m, group_stacks);
        const int in_group = stack % (group_stacks * tiles_n);
        m0 = ((first_m + in_group % rows) * CLUSTER + rank) * BM;
        n0 = (in_group / rows) * BN;
    }
};

struct Ring {
    int stage = 0;
    unsigned parity = 0;
    __device__ __forceinline__ void advance() {
        if (++stage == STAGES) {
            stage = 0;
            parity ^= 1;
        }
    }
};

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
// whole stage's bytes on this block's `full` (its A, its half of B and the peer's half), fetch A
// and this block's boxes of B, the latter into both blocks.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ void produce(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                        Walk w, int rank) {
    Ring ring;
    Unit u;
    while (w.next(u)) {
        int m0, n0;
        w.origin(u.stack, rank, m0, n0);
        for (int kt = u.kbeg; kt < u.kend; ++kt) {
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

// The epilogue of one consumer warpgroup: its 64 x BN accumulators in 64 x 32 sub-tiles through
// two shared-memory buffers to TMA stores. Accumulator layout (kl_wgmma.cuh): in 8-column slice
// s, thread (warp w, lane l) holds rows 16w + l/4 (+8) and columns 8s + 2(l%4) (+1). In the
// buffer, row r's 16-byte chunk c sits at chunk c ^ (r % 8) of its 128-byte row (the swizzle).
// With `after` (a piece of a cut tile that does not hold its last K-tile) the boxes are added to
// C instead, once the flag says the storing piece's boxes have landed.
__device__ __forceinline__ void store_tile(const Shared& sh, const float (&d)[BN / 2], const TmaDescriptor* map_c,
                                           int cg, int row0, int col0, const int* after) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
    const bool issuer = threadIdx.x % 128 == 0;
#pragma unroll
    for (int j = 0; j < BN / SUB_COLS; ++j) {
        unsigned char* buf = sh.sub(cg, j % 2);
        if (issuer) bulk_wait_read<1>();  // the store that last used this buffer (j - 2) has read it
        warpgroup_sync(1 + cg);
#pragma unroll
        for (int q = 0; q < SUB_COLS / 8; ++q)  // the sub-tile's four 8-column slices
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = warp * 16 + lane / 4 + h * 8;
                const int chunk = 2 * q + (lane % 4) / 2;
                const int s = j * (SUB_COLS / 8) + q;
                float2* dst = reinterpret_cast<float2*>(buf + r * 128 + ((chunk ^ (r % 8)) * 16) + 8 * (lane % 2));
                *dst = make_float2(d[4 * s + 2 * h], d[4 * s + 2 * h + 1]);
            }
        fence_proxy_async();  // these writes, before the copy engine reads the buffer
        warpgroup_sync(1 + cg);
        if (issuer) {
            if (after && j == 0) {
                wait_flag(after);
                fence_proxy_async_global();  // the copy engine's adds come after what the flag published
            }
            if (after)
                tma_reduce_add_2d(map_c, smem_addr(buf), col0 + j * SUB_COLS, row0);
            else
                tma_store_2d(map_c, smem_addr(buf), col0 + j * SUB_COLS, row0);
            bulk_commit();
        }
    }
}

// Without a tensor map of C (N % 4 != 0) a piece that adds does it element by element, in L2.
__device__ __forceinline__ void add_accumulators(const float (&d)[BN / 2], float* C, int M, int N, int row0, int col0) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = row0 + warp * 16 + lane / 4 + h * 8, col = col0 + j * 8 + (lane % 4) * 2;
            if (row >= M) continue;
            if (col < N) atomicAdd(&C[(size_t)row * N + col], d[4 * j + 2 * h]);
            if (col + 1 < N) atomicAdd(&C[(size_t)row * N + col + 1], d[4 * j + 2 * h + 1]);
        }
}

// The storing piece of a cut tile says its part of C is complete: its boxes have been written
// (not only read from shared memory), then the flag. One thread: it issued all of them.
__device__ __forceinline__ void raise_flag(int* flag) {
    bulk_wait<0>();
    fence_proxy_async_global();
    __threadfence();
    flag_release(flag, 1);
}

// An adding piece counts itself in; the last of a tile's pieces leaves the flag at zero for the
// next launch (the engine zeroes scratch once, at allocation).
__device__ __forceinline__ void count_piece(int* flag, int pieces) {
    if (atomicAdd(flag, 1) == pieces - 1) atomicExch(flag, 0);
}

__device__ __forceinline__ void fence_all(float (&d)[HALVES][BN / 2]) {
#pragma unroll
    for (int h = 0; h < HALVES; ++h) fence_accumulators(d[h]);
}

__device__ __forceinline__ void consume(const Shared& sh, float* C, int* flags, int M, int N, int cg, Walk w, int rank,
                                        const TmaDescriptor* map_c) {
    const int lane = threadIdx.x % 32;
    const bool issuer = threadIdx.x % 128 == 0;
    float d[HALVES][BN / 2];  // not zeroed: each unit's first wgmma runs with accumulate = 0 (rung 11)
    Ring ring;
    int* pending = nullptr;  // a stored piece's flag, raised once the next unit's first batch is issued
    Unit u;
    while (w.next(u)) {
        int m0, n0;
        w.origin(u.stack, rank, m0, n0);
        int previous = -1;  // the stage whose batch may still be running
        for (int kt = u.kbeg; kt < u.kend; ++kt) {
            mbar_wait(sh.full(ring.stage), ring.parity);
            const unsigned sA = smem_addr(sh.a(ring.stage)) + cg * (CROWS * A_ROW_BYTES);
            const unsigned sB = smem_addr(sh.b(ring.stage));
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                const unsigned long long desc_b = make_desc(sB + kk * 16 * 128, BK * 128, 1024);
#pragma unroll
                for (int h = 0; h < HALVES; ++h)  // rows h * 64 .. + 63 of this consumer's part of A
                    wgmma_bf16(d[h], desc_a_k_major(sA + h * 64 * A_ROW_BYTES + kk * 32), desc_b,
                               kt > u.kbeg || kk > 0);
            }
            wgmma_commit();
            if (pending && kt == min(u.kbeg + 2, u.kend - 1)) {  // three batches queued: wait for the boxes to land
                if (issuer) raise_flag(pending);
                pending = nullptr;
            }
            wgmma_wait<1>();  // the previous batch is done: its stage can be refilled
            fence_all(d);
            if (previous >= 0 && lane == 0) release(sh, previous, rank);
            previous = ring.stage;
            ring.advance();
        }
        wgmma_wait<0>();
        fence_all(d);
        if (lane == 0) release(sh, previous, rank);
        const int row0 = m0 + cg * CROWS;
        if (row0 >= M) continue;  // a stack's spare tile, or rows past M: nothing to store
        const bool cut = u.kbeg > 0 || u.kend < w.k_tiles, adds = u.kend < w.k_tiles;
        int* flag = cut ? flags + ((u.stack - w.whole) * CLUSTER + rank) * NUM_CONSUMERS + cg : nullptr;
        if (N % 4 == 0) {  // the copy engine clips the edges
#pragma unroll
            for (int h = 0; h < HALVES; ++h)
                if (row0 + h * 64 < M) store_tile(sh, d[h], map_c, cg, row0 + h * 64, n0, adds ? flag : nullptr);
            if (cut && !adds) pending = flag;
        } else if (!adds) {  // no tensor map describes C: rung 15's stores
#pragma unroll
            for (int h = 0; h < HALVES; ++h) store_accumulators(d[h], C, M, N, row0 + h * 64, n0);
            if (cut) {
                __threadfence();
                warpgroup_sync(1 + cg);
                if (issuer) flag_release(flag, 1);
            }
        } else {
            if (issuer) wait_flag(flag);
            warpgroup_sync(1 + cg);
#pragma unroll
            for (int h = 0; h < HALVES; ++h) add_accumulators(d[h], C, M, N, row0 + h * 64, n0);
        }
        if (adds && issuer) count_piece(flag, w.pieces(u.stack));
    }
    if (issuer && pending) raise_flag(pending);
    if (issuer) bulk_wait<0>();  // the last stores have written C before the block ends
}

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

// ---------------------------------------------------------------------------------------------
// Launch 2: the GEMM. The grid is a whole number of clusters (the manifest rounds it); A and B
// are the padded copies when rows were not aligned, so the tensor maps are always valid.
// ---------------------------------------------------------------------------------------------
#if CLUSTER > 1
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS
#endif
extern "C" __global__ void CLUSTER_DIMS __launch_bounds__(NUM_THREADS, 1)
    matmul_wgmma_tma_store_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                                float* flags_f, const __grid_constant__ TmaDescriptor map_a,
                                const __grid_constant__ TmaDescriptor map_b,
                                const __grid_constant__ TmaDescriptor map_c) {
    extern __shared__ unsigned char smem_raw[];
    // The same offset in both blocks: the multicast writes and the remote arrivals rely on it.
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    Shared sh;
    sh.stages = base;
    sh.store = base + STAGES * STAGE_BYTES;
    sh.full_bar = smem_addr(sh.store + STORE_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;
    (void)A;
    (void)B;

    const int rank = CLUSTER == 1 ? 0 : int(cluster_rank());
    const int tiles_m = (M + BM - 1) / BM, k_tiles = (K + BK - 1) / BK;
    Walk w;
    w.init((tiles_m + CLUSTER - 1) / CLUSTER, (N + BN - 1) / BN, k_tiles, blockIdx.x / CLUSTER, gridDim.x / CLUSTER);

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), 1);                             // this block's expect_tx arrival
            mbar_init(sh.empty(s), CLUSTER * NUM_CONSUMERS * 4);  // every consumer warp of the cluster
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        fence_proxy_async();
    }
    if (CLUSTER == 1)
        __syncthreads();
    else
        cluster_sync();  // the peer's barriers exist before anyone signals them

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (threadIdx.x == 0) produce(sh, &map_a, &map_b, w, rank);
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, C, reinterpret_cast<int*>(flags_f), M, N, wg - 1, w, rank, &map_c);
    }
    if (CLUSTER > 1) cluster_sync();  // no block leaves while its peer may still signal it
}
