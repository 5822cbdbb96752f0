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
// Two parameters measured and left off (docs/tuning/matmul.md, ninth session; assets/recorded/
// h100_matmul_lag_s10.json, h100_matmul_pair_n_s10.json; six alternated rounds each):
//  - LAG = 1-3: consumer 1 starts that many K-tiles behind consumer 0 (kl_cluster_gemm.cuh's
//    Stagger), so the two epilogues of a tile do not coincide. No gain: the kernel's own time
//    against cuBLAS stayed 0.982-0.985 at 4096^3 and 1.002-1.005 at 8192^3 for every LAG.
//  - PAIR_N = 1: the pair side by side along N, sharing A (each block fetches half of A's rows),
//    with 128 x 256 tiles or with cuBLAS's own 256 x 128 "coop" arrangement. Slower than the
//    default at both sizes (0.974-0.981 at 4096^3 and 0.986-0.995 at 8192^3, against 0.986 and
//    1.002), so what cuBLAS gains at 4096^3 is not its arrangement. Counted in cycles (Nsight
//    Compute, one launch each) rung 18 takes 0.8% more than cuBLAS at 4096^3 and 2.4% fewer at
//    8192^3; the rest of each timed gap is the clock the power limit grants.
//  - CLUSTER = 4: a 2 x 2 square of tiles sharing A along its rows and B along its columns, a
//    quarter fewer L2 reads than the pair. Correct, but 0.55-0.65x of cuBLAS: a cluster lives in
//    one GPC, and only 30 clusters of 4 fit an H100 at once (66 pairs), so 3 of 33 wait for the
//    others to finish (assets/recorded/h100_matmul_cluster4_s10.json;
//    ff809fc:assets/recorded/h100_2026-11-25_s10/call14).
//  - QUEUE = 1 / 2 (tenth session, assets/recorded/h100_matmul_queue_s11.json): the last round's
//    stacks, or all of them, taken from an atomic counter by the pairs that come free first
//    (kl_cluster_gemm.cuh's TailQueue). The block timeline (STAMPS) shows why it could pay: SMs
//    differ in pace by about 2%, so after 15 rounds at 8192^3 the pairs finish 24 us apart.
//    QUEUE 1: 1.009 of cuBLAS at 8192^3 against the default's 1.005, but 0.983 against 0.987 at
//    4096^3 (3 rounds: no spread to recover, and the take costs an atomic and a hand-off);
//    QUEUE 2 0.967 at 4096^3 (every pair's first job waits on the queue with an empty ring).
// FULL_ROUNDS = 1 (the default since 2026-11-25, assets/recorded/h100_matmul_full_rounds_s11.json):
// the grid is the fewest pairs that keep the number of rounds (64 at 4096^3 and 8192^3, not 66),
// so every round is full. Predicted level; measured 0.6-1.3% faster at 8192^3 in the kernel's own
// time (1.010-1.011 of cuBLAS in 12 of 12 rounds on two H100s), level at 4096^3, +3% at 4097^3.
// NARROW = 1 (off; 2026-11-25, assets/recorded/h100_matmul_narrow_s13.json, kl_narrow_tail.cuh):
// the 58 stacks left after three whole rounds at 4096^3 re-cut along N into 66 pieces of at most
// 232 columns, one per pair, each all of K (an m64n232k16 wgmma on a whole tile's loads), so the
// last round needs 232 / 256 of a tile's work. Predicted 2% at 4096^3; measured level or behind:
// 0.988 of cuBLAS against FULL_ROUNDS = 1's 0.996 (six rounds, traced). The block timeline says why:
// a piece took 66.3k cycles against a whole tile's 71k (0.93, its loads are a whole tile's), and
// on 132 SMs every tile ran at a 1% lower clock than on FULL_ROUNDS' 128 with the same cycles per
// tile: under the power limit, 4 more SMs took back in clock what the shorter round saved.
// Where a tile's cycles go (same day, docs/tuning/matmul.md, thirteenth session): 71k per tile at
// 4096^3, of which the wgmmas are 65.5k and the main loop 66.0k (99% of the tensor cores' rate);
// this epilogue is the other 4.8k, and both consumers spend it at once. Buffers of two sub-tiles
// need shared memory the ring cannot spare (3 stages cost more than they save), and ptxas keeps
// no wgmma in flight on one half of the accumulators while the other half is stored.
// STAMPS = n records the block timeline of the n-th launch (a measuring form, not one to time).
// Compiled for sm_90a only. Error: as rung 12, ~1e-6 relative (a cut tile's sums are added in
// L2 in the order the pieces arrive, so its last bits may differ from run to run).

#include <cuda_bf16.h>

#include "kl_cluster_gemm.cuh"  // the pair, the walk, the ring and the producer (kernels/common)
#include "kl_flags.cuh"         // flag_acquire / flag_release between blocks (kernels/common)

#define SUB_COLS 32  // a store sub-tile: 64 rows x 32 fp32 = one 128-byte swizzle row each

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

// The epilogue of one consumer warpgroup: its 64 x BN accumulators in 64 x 32 sub-tiles through
// two shared-memory buffers to TMA stores. Accumulator layout (kl_wgmma.cuh): in 8-column slice
// s, thread (warp w, lane l) holds rows 16w + l/4 (+8) and columns 8s + 2(l%4) (+1). In the
// buffer, row r's 16-byte chunk c sits at chunk c ^ (r % 8) of its 128-byte row (the swizzle).
// With `after` (a piece of a cut tile that does not hold its last K-tile) the boxes are added to
// C instead, once the flag says the storing piece's boxes have landed.
// A narrow piece (kNarrow, NARROW = 1) stores only its `width` columns: whole sub-tiles through the
// buffers, then its last 8-column slices (width % 32) straight from the registers, since a box
// would spill into the next piece's columns.
template <bool kNarrow>
__device__ __forceinline__ void store_tile(const Shared& sh, const float (&d)[BN / 2], const TmaDescriptor* map_c,
                                           int cg, int row0, int col0, const int* after, float* C, int M, int N,
                                           int width) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
    const bool issuer = threadIdx.x % 128 == 0;
#pragma unroll
    for (int j = 0; j < BN / SUB_COLS; ++j) {
        if (kNarrow && (j + 1) * SUB_COLS > width) break;
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
    if (kNarrow)
#pragma unroll
        for (int s = 0; s < BN / 8; ++s)
            if (s * 8 >= width / SUB_COLS * SUB_COLS && s * 8 < width)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int row = row0 + warp * 16 + lane / 4 + h * 8, col = col0 + s * 8 + (lane % 4) * 2;
                    if (row < M && col < N)  // N % 8 == 0 for a narrow plan: the pair is whole
                        *reinterpret_cast<float2*>(&C[(size_t)row * N + col]) =
                            make_float2(d[4 * s + 2 * h], d[4 * s + 2 * h + 1]);
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

// The wgmma kN columns wide on kRegs accumulators per thread (a template, so that the width
// not used by a build is never compiled).
template <int kN, int kRegs>
__device__ __forceinline__ void wgmma_cols(float (&d)[kRegs], unsigned long long desc_a, unsigned long long desc_b,
                                           int accumulate) {
    if constexpr (kN == 2 * kRegs)
        wgmma_bf16(d, desc_a, desc_b, accumulate);
    else
        wgmma_bf16_n232(d, desc_a, desc_b, accumulate);
}

// One unit's K-tiles on the tensor cores, its wgmmas kN columns wide: BN for a whole tile,
// NARROW_N for a narrow piece of the last round (the loop is written once per width, so no branch
// sits between wgmmas: one there made ptxas serialize every wgmma of mlp rung 5's kernel).
template <int kN>
__device__ __forceinline__ void run_ktiles(const Shared& sh, float (&d)[HALVES][BN / 2], Ring& ring, const Unit& u,
                                           int cg, int rank, int*& pending, Stagger& stagger) {
    const int lane = threadIdx.x % 32;
    const bool issuer = threadIdx.x % 128 == 0;
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
            for (int h = 0; h < HALVES; ++h) {  // rows h * 64 .. + 63 of this consumer's part of A
                const unsigned long long desc_a = desc_a_k_major(sA + h * 64 * A_ROW_BYTES + kk * 32);
                wgmma_cols<kN>(d[h], desc_a, desc_b, kt > u.kbeg || kk > 0);
            }
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
        stagger.after_ktiles(kt - u.kbeg);
    }
    wgmma_wait<0>();
    fence_all(d);
    if (lane == 0) release(sh, previous, rank);
}

__device__ __forceinline__ void consume(const Shared& sh, float* C, int* flags, int M, int N, int cg, Walk w, int rank,
                                        const TmaDescriptor* map_c) {
    const bool issuer = threadIdx.x % 128 == 0;
    float d[HALVES][BN / 2];  // not zeroed: each unit's first wgmma runs with accumulate = 0 (rung 11)
    Ring ring;
    int* pending = nullptr;  // a stored piece's flag, raised once the next unit's first batch is issued
    Stagger stagger(cg);     // LAG > 0: consumer 1 runs LAG K-tiles behind consumer 0
    int done = 0;            // units finished (STAMPS: the block timeline)
    Unit u;
    while (next_unit(w, sh, ring, u)) {
        stagger.before_unit();
        int m0, n0;
        w.origin(u, rank, m0, n0);
        const bool narrow = NARROW && u.piece >= 0;
        if (narrow)
            run_ktiles<NARROW ? NARROW_N : BN>(sh, d, ring, u, cg, rank, pending, stagger);
        else
            run_ktiles<BN>(sh, d, ring, u, cg, rank, pending, stagger);
        stagger.after_ktiles(LAG);
        stamp_unit(cg, ++done);
        const int row0 = m0 + cg * CROWS;
        if (row0 >= M || n0 >= N) continue;  // a stack's spare tile, or rows past M: nothing to store
        if (narrow) {                        // never cut, and N % 4 == 0: C has a tensor map
            store_tile<true>(sh, d[0], map_c, cg, row0, n0, nullptr, C, M, N, w.narrow_width(u));
            continue;
        }
        const bool cut = u.kbeg > 0 || u.kend < w.k_tiles, adds = u.kend < w.k_tiles;
        int* flag = cut ? flags + ((u.stack - w.whole) * CLUSTER + rank) * NUM_CONSUMERS + cg : nullptr;
        if (N % 4 == 0) {  // the copy engine clips the edges
#pragma unroll
            for (int h = 0; h < HALVES; ++h)
                if (row0 + h * 64 < M)
                    store_tile<false>(sh, d[h], map_c, cg, row0 + h * 64, n0, adds ? flag : nullptr, C, M, N, BN);
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
// Launch 2: the GEMM. The grid is a whole number of clusters (the manifest rounds it); A and B
// are the padded copies when rows were not aligned, so the tensor maps are always valid.
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void CLUSTER_DIMS __launch_bounds__(NUM_THREADS, 1)
    matmul_wgmma_tma_store_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                                float* flags_f, const __grid_constant__ TmaDescriptor map_a,
                                const __grid_constant__ TmaDescriptor map_b,
                                const __grid_constant__ TmaDescriptor map_c) {
    stamp_block(true);
    extern __shared__ unsigned char smem_raw[];
    Shared sh;
    carve_shared(sh, smem_raw);
    (void)A;
    (void)B;

    const int rank = CLUSTER == 1 ? 0 : int(cluster_rank());
    const int tiles_m = (M + BM - 1) / BM, k_tiles = (K + BK - 1) / BK;
    Walk w;
    w.init(tiles_m, (N + BN - 1) / BN, k_tiles, blockIdx.x / CLUSTER, gridDim.x / CLUSTER);
    if (NARROW) w.plan_narrow(N);

    init_ring(sh);

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (threadIdx.x == 0) produce(sh, &map_a, &map_b, w, rank, reinterpret_cast<int*>(flags_f));
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, C, reinterpret_cast<int*>(flags_f), M, N, wg - 1, w, rank, &map_c);
    }
    if (CLUSTER > 1) cluster_sync();  // no block leaves while its peer may still signal it
    stamp_block(false);
}
