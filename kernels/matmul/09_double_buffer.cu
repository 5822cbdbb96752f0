// Rung 9 - double buffering by cp.async: the copies go straight to shared memory, in a ring of
// STAGES tiles.
// This rung is rung 8 with the copies made by cp.async: the copy is the lesson, diff it against 08.
//
// What changes from rung 8: the next tiles no longer travel global -> registers -> shared. Each
// thread issues cp.async copies that land in shared memory by themselves, into a ring of STAGES
// K-tiles, STAGES - 1 tiles ahead of the math; `cp.async.wait_group` says when a tile has landed.
// Why it is faster: no registers hold loads in flight (rung 8 kept a whole tile's float4s per
// thread), no store instructions copy them into shared memory, and with three stages two tiles are
// in flight while one is computed, so a slow load has more time to arrive. The address arithmetic
// of the copies costs issue slots (A is copied one float at a time, to its transposed place):
// on an H100 two stages measured no faster than rung 8, three a little faster (tuning log).
// What to see: STAGES (slider) 2 -> 3 -> 4, against rung 8 and cuBLAS SGEMM; at 4096^3 on an H100
// this rung is the fastest fp32 CUDA-core kernel of the ladder, within a few percent of cuBLAS.
// Shared memory grows with STAGES (48 KB of static shared memory allows up to 4 stages of the
// default tiles).
//
// Fixed as in rung 8 because they measured best (docs/tuning/matmul.md): the hand-over before the
// last k-step's math, C stored one float at a time; the multiply-adds of a k-step run in
// serpentine order (row by row, every other row reversed), which ptxas places best in this loop
// (column order, best for rung 8, lost 7% here).
//
// Edges and alignment: as in rungs 6-8 (16-byte copies inside, guarded 4-byte copies at edges;
// cp.async with a source size of 0 writes zeros past the matrix).
// What it needs: sm_80 (Ampere) or newer: cp.async copies global memory into shared memory without
// registers; fp32 data.

#include "kl_ptx.cuh"  // smem_addr, cp.async and its group commit / wait (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN) || !defined(TM) || !defined(TN)
#error "BM, BN, BK, WM, WN, TM and TN must be defined, e.g. -DBM=128 -DBN=128 -DBK=8 -DWM=64 -DWN=64 -DTM=8 -DTN=4"
#endif

// GROUP: tile rows handed out together (1 = plain blockIdx order), as in rung 11.
// STAGES: tiles in the shared-memory ring; copies are issued STAGES - 1 tiles ahead.
#ifndef GROUP
#define GROUP 1
#endif
#ifndef STAGES
#define STAGES 3
#endif

#define LANES_M 4
#define LANES_N 8
#define WSUBM (LANES_M * TM)
#define WSUBN (LANES_N * TN)
#define WMITER (WM / WSUBM)
#define WNITER (WN / WSUBN)
#define NUM_THREADS (32 * (BM / WM) * (BN / WN))
#define A_PAD 4
#define A_LOADS ((BM * BK / 4 + NUM_THREADS - 1) / NUM_THREADS)  // float4s of A per thread per tile
#define B_LOADS ((BK * BN / 4 + NUM_THREADS - 1) / NUM_THREADS)  // 16-byte copies of B per thread
#define A_ELEMS ((BM * BK + NUM_THREADS - 1) / NUM_THREADS)      // 4-byte copies of A per thread
#define B_ELEMS ((BK * BN + NUM_THREADS - 1) / NUM_THREADS)      // ...and of B at edges
// Two resident blocks per SM when the accumulators leave room (the same rule as rung 8, so the
// two rungs differ only in how tiles reach shared memory).
#define MIN_BLOCKS ((NUM_THREADS <= 256 && WM * WN / 32 + 4 * (A_LOADS + B_LOADS) <= 48) ? 2 : 1)

// The tile shapes' own rules and the ring's 48 KB are the manifest's constraints; what is left
// here are this code's assumptions, which the parameter lists already satisfy.
static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "TM, TN and BK must be multiples of 4 (float4 accesses)");
static_assert(BK % 2 == 0 && GROUP >= 1, "fragments alternate between two register sets by k-step: BK must be even");
static_assert(STAGES >= 2, "a ring needs a stage to fill while another is read");
static_assert(NUM_THREADS % BK == 0 && NUM_THREADS % (BN / 4) == 0,
              "a pass of the block's threads must cover whole rows of the A and B tiles");

// Global -> shared without registers (kl_ptx.cuh). cp.async with a source size of 0 writes
// zeros, which covers the K tail, the matrix edges and the copies issued past the last tile.
// Issue the copies of the K-tile at k0 into one stage. A goes one float per copy, straight to its
// transposed place As[k][m]: a 16-byte copy cannot scatter. Consecutive threads walk along K, so
// a warp reads whole 32-byte sectors (BK = 8: four rows of A) and writes 32 different banks.
// B is a plain copy: 16 bytes per copy inside the matrix, one float per copy at the edges.
template <bool kInterior>
__device__ __forceinline__ void copy_tile_async(float (*As)[BM + A_PAD], float (*Bs)[BN], const float* A,
                                                const float* B, int M, int N, int K, int m0, int n0, int k0) {
    // Copy i of this thread covers element idx = i * NUM_THREADS + tid of the tile. Each copy's
    // address is one step of a row stride from this thread's first, so the loop costs one
    // multiply-add per copy and the compiler keeps no per-copy pointers in registers.
    const int tid = threadIdx.x;
    constexpr int kRowsA = NUM_THREADS / BK;  // rows of A covered by one pass of the block
    const int ca = tid % BK;                  // every copy of this thread has the same k
    const float* a_src = A + (size_t)(m0 + tid / BK) * K + k0 + ca;
#pragma unroll
    for (int i = 0; i < A_ELEMS; ++i) {
        const int r = i * kRowsA + tid / BK;
        if ((BM * BK) % NUM_THREADS == 0 || r < BM) {
            const bool ok = k0 + ca < K && (kInterior || m0 + r < M);
            cp_async_4(smem_addr(&As[ca][r]), ok ? a_src + (size_t)i * kRowsA * K : A, ok ? 4 : 0);
        }
    }
    if (kInterior) {
        constexpr int kRowsB = NUM_THREADS / (BN / 4);  // whole rows: 32 * BN / WN threads, WN <= 128
        const int rb = (tid / (BN / 4)), cb = (tid % (BN / 4)) * 4;
        const float* b_src = B + (size_t)(k0 + rb) * N + n0 + cb;
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            const int r = i * kRowsB + rb;
            if ((BK * BN / 4) % NUM_THREADS == 0 || r < BK) {
                const bool ok = k0 + r < K;
                cp_async_16(smem_addr(&Bs[r][cb]), ok ? b_src + (size_t)i * kRowsB * N : B, ok ? 16 : 0);
            }
        }
    } else {  // edges are rare: plain index arithmetic, one float per copy
#pragma unroll
        for (int i = 0; i < B_ELEMS; ++i) {
            const int idx = i * NUM_THREADS + tid;
            if ((BK * BN) % NUM_THREADS == 0 || idx < BK * BN) {
                const int r = idx / BN, c = idx % BN;
                const bool ok = k0 + r < K && n0 + c < N;
                cp_async_4(smem_addr(&Bs[r][c]), ok ? B + (size_t)(k0 + r) * N + n0 + c : B, ok ? 4 : 0);
            }
        }
    }
}

// One k-step: acc += a (column) x b (row) in serpentine order: row by row, every other row
// reversed. Any order sums each accumulator's products in the same k order (bit for bit the same
// result); the order decides which operand consecutive FMAs share and so how ptxas places them.
__device__ __forceinline__ void outer_product(float (&acc)[WMITER * TM][WNITER * TN], const float (&af)[WMITER * TM],
                                              const float (&bf)[WNITER * TN]) {
    constexpr int R = WMITER * TM, C = WNITER * TN;
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
        for (int jj = 0; jj < C; ++jj) {
            const int j = (i & 1) ? C - 1 - jj : jj;
            acc[i][j] += af[i] * bf[j];
        }
}

// The whole block's work; kInterior selects the unchecked copy of the loop (16-byte copies of B).
template <bool kInterior>
__device__ __forceinline__ void block_tile(float (*As)[BK][BM + A_PAD], float (*Bs)[BK][BN], float* C, const float* A,
                                           const float* B, int M, int N, int K, int m0, int n0) {
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int warp_m = (warp / (BN / WN)) * WM;
    const int warp_n = (warp % (BN / WN)) * WN;
    const int lane_m = (lane / LANES_N) * TM;
    const int lane_n = (lane % LANES_N) * TN;

    const int num_tiles = (K + BK - 1) / BK;

    float acc[WMITER * TM][WNITER * TN] = {};
    float a_frag[2][WMITER * TM], b_frag[2][WNITER * TN];  // [k % 2]: fragments of two k-steps

    // One k-step's fragments: each lane's TM rows of A (per warp sub-tile) and TN columns of B.
    auto load_frags = [&](float(&af)[WMITER * TM], float(&bf)[WNITER * TN], const float(*As_k)[BM + A_PAD],
                          const float(*Bs_k)[BN], int k) {
#pragma unroll
        for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4*>(&af[wm * TM + i]) =
                    *reinterpret_cast<const float4*>(&As_k[k][warp_m + wm * WSUBM + lane_m + i]);
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4*>(&bf[wn * TN + j]) =
                    *reinterpret_cast<const float4*>(&Bs_k[k][warp_n + wn * WSUBN + lane_n + j]);
    };

    // Prologue: the first STAGES - 1 tiles in flight, one commit group each.
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        copy_tile_async<kInterior>(As[s], Bs[s], A, B, M, N, K, m0, n0, s * BK);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();  // tile 0 has landed (this thread's copies) ...
    __syncthreads();              // ... and everybody's
    load_frags(a_frag[0], b_frag[0], As[0], Bs[0], 0);

    for (int t = 0; t < num_tiles; ++t) {
        const int cur = t % STAGES;
        // Refill the stage that tile t-1 used: every thread issued its last reads of it before
        // the barrier at the end of tile t-1, and has passed that barrier.
        const int fill = (t + STAGES - 1) % STAGES;
        copy_tile_async<kInterior>(As[fill], Bs[fill], A, B, M, N, K, m0, n0, (t + STAGES - 1) * BK);
        cp_async_commit();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const int f = k & 1;
            if (k > 0) load_frags(a_frag[f], b_frag[f], As[cur], Bs[cur], k);
            if (k == BK - 1) {
                // Tile t+1 must be complete: at most STAGES - 2 younger groups may still fly.
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                const int nxt = (t + 1) % STAGES;
                load_frags(a_frag[0], b_frag[0], As[nxt], Bs[nxt], 0);
            }
            outer_product(acc, a_frag[f], b_frag[f]);
        }
    }
    cp_async_wait<0>();  // no copy may still target shared memory when the block exits

#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = m0 + warp_m + wm * WSUBM + lane_m + i;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const int col = n0 + warp_n + wn * WSUBN + lane_n + j;
                    const float* v = &acc[wm * TM + i][wn * TN + j];
                    if (kInterior) {  // one float per store: see the header
#pragma unroll
                        for (int e = 0; e < 4; ++e) C[(size_t)row * N + col + e] = v[e];
                    } else if (row < M) {
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            if (col + e < N) C[(size_t)row * N + col + e] = v[e];
                    }
                }
        }
}

extern "C" __global__ void __launch_bounds__(NUM_THREADS, MIN_BLOCKS)
    matmul_double_buffer(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ __align__(16) float As[STAGES][BK][BM + A_PAD];
    __shared__ __align__(16) float Bs[STAGES][BK][BN];

    // Tile order: GROUP tile rows at a time (see rung 11's tile_origin), x fastest inside.
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int id = blockIdx.y * tiles_n + blockIdx.x;
    const int first_m = (id / (GROUP * tiles_n)) * GROUP;
    const int rows = min(tiles_m - first_m, GROUP);  // the last group may be shorter
    const int in_group = id % (GROUP * tiles_n);
    const int m0 = (first_m + in_group % rows) * BM;
    const int n0 = (in_group / rows) * BN;
    // 16-byte copies need 16-byte aligned rows: K and N multiples of 4, aligned base pointers.
    const bool aligned =
        (K % 4 == 0) && (N % 4 == 0) &&
        ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) | reinterpret_cast<size_t>(C)) % 16 == 0);
    if (aligned && m0 + BM <= M && n0 + BN <= N)  // uniform across the block: no divergence
        block_tile<true>(As, Bs, C, A, B, M, N, K, m0, n0);
    else
        block_tile<false>(As, Bs, C, A, B, M, N, K, m0, n0);
}
