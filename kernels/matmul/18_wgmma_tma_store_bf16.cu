// Rung 18 - The epilogue goes out through shared memory and TMA stores, and the next tile starts.
//
// What changes from rung 15: there, when a tile's last wgmma finished, each consumer thread wrote
// its 128 fp32 accumulators to C with 64 eight-byte stores, and the warpgroup could start the
// next tile only once the last of them had left the SM. Here the epilogue is staged:
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
// Why it is faster: all blocks finish their tiles at nearly the same moment (same work per
// tile), so in rung 15 132 blocks x 128 KB = 17 MB of C leave at once and the tensor cores of
// every SM wait for it: that is the fixed cost a K sweep shows (the time at K = 0 of a linear
// fit). Staged stores let the next tile's main loop run under the drain. GROUP_M = 16 walks 16
// tile rows at a time, so a round of tiles reads fewer panels of A and B from DRAM.
// What to see: the fixed cost gone at small K (K = 512 at M = N = 4096), and rung 18 level with
// cuBLAS bf16 at 4096^3 and 8192^3, the rest of the gap the clock the power limit grants.
// What it needs: sm_90a (wgmma, TMA, clusters, TMA stores), bf16 A and B, fp32 C. When C's rows
// are not a multiple of 16 bytes (N % 4 != 0) no tensor map can describe C and the epilogue
// falls back to rung 15's direct stores. Its lab rung, wgmma_tma_store_bf16_lab, keeps the
// switches this rung pins (BK, CROWS, STREAMK, LAG, PAIR_N, QUEUE, FULL_ROUNDS, NARROW and the
// measuring form STAMPS); what each measured is in docs/tuning/matmul.md ("Rung 18's switches").
// Error: as rung 12, ~1e-6 relative (a cut tile's sums are added in L2 in the order the pieces
// arrive, so its last bits may differ from run to run).

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
        stage_accumulator_subtile(buf, d, j);  // kl_wgmma.cuh
        fence_proxy_async();                   // these writes, before the copy engine reads the buffer
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
