// Rung 16 - fp32: A transposed once, so every copy into shared memory is a 16-byte cp.async.
// This rung is rung 9 with A read transposed: the copy is the lesson, diff it against 09.
//
// What changes from rung 9: there, A reaches its transposed place in shared memory (As[k][m],
// which lets each lane read TM rows of one k as float4s) one float per cp.async, because a
// 16-byte copy cannot scatter four k-values of a row into four rows of As: eight copies per
// thread per K-tile, each with its own address and guard. Here a first launch writes At = A^T
// (K x M) into a scratch buffer (a 32 x 32 tiled transpose through shared memory), and the GEMM
// copies tiles of At exactly as it copies tiles of B: BK rows of BM contiguous floats, 16 bytes
// per cp.async, two copies per thread per K-tile instead of eight. Nothing else changes: the
// same ring, fragments, serpentine FMAs and stores.
// Why it should be faster: fewer instructions per K-tile in a loop that issues one FFMA per
// cycle at best. The transpose costs 2 x 4 MK bytes once (~45 us at 4096^3, 1.7% of the GEMM).
// What to see: level with rung 9 and a little under cuBLAS SGEMM at 4096^3: the transpose's cost
// eats most of the gain, and the loop is not bound by its instruction count (the SASS counts
// and figures: docs/tuning/matmul.md).
// Edges: rows of At or B that are not 16-byte aligned (M or N not a multiple of 4), and tiles
// past the matrix, take rung 9's guarded one-float copies.
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
// Two resident blocks per SM when the accumulators leave room (the same rule as rung 8, so the
// two rungs differ only in how tiles reach shared memory).
#define MIN_BLOCKS ((NUM_THREADS <= 256 && WM * WN / 32 + 4 * (A_LOADS + B_LOADS) <= 48) ? 2 : 1)

// The tile shapes' own rules and the ring's 48 KB are the manifest's constraints; what is left
// here are this code's assumptions, which the parameter lists already satisfy.
static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "TM, TN and BK must be multiples of 4 (float4 accesses)");
static_assert(BK % 2 == 0 && GROUP >= 1, "fragments alternate between two register sets by k-step: BK must be even");
static_assert(STAGES >= 2, "a ring needs a stage to fill while another is read");
static_assert(NUM_THREADS % (BM / 4) == 0 && NUM_THREADS % (BN / 4) == 0,
              "a pass of the block's threads must cover whole rows of the At and B tiles");

// Global -> shared without registers (kl_ptx.cuh). cp.async with a source size of 0 writes
// zeros, which covers the K tail, the matrix edges and the copies issued past the last tile.
// Copies rows k0 .. k0 + BK - 1, columns c0 .. c0 + W - 1 of a row-major matrix X (rows x cols)
// into S[BK][LD]: At's tile into As (W = BM) and B's into Bs (W = BN). Inside an aligned matrix,
// 16 bytes per copy, whole rows per pass of the block; at edges one float per copy.
// cp.async with a source size of 0 writes zeros (the K tail, the matrix edges).
template <bool kInterior, int W, int LD>
__device__ __forceinline__ void copy_rows_async(float (*S)[LD], const float* X, int rows, int cols, int k0, int c0) {
    const int tid = threadIdx.x;
    if (kInterior) {
        constexpr int kRows = NUM_THREADS / (W / 4);  // rows covered by one pass of the block
        constexpr int kLoads = (BK * W / 4 + NUM_THREADS - 1) / NUM_THREADS;
        const int r0 = tid / (W / 4), c = (tid % (W / 4)) * 4;
        const float* src = X + (size_t)(k0 + r0) * cols + c0 + c;
#pragma unroll
        for (int i = 0; i < kLoads; ++i) {
            const int r = i * kRows + r0;
            if ((BK * W / 4) % NUM_THREADS == 0 || r < BK) {
                const bool ok = k0 + r < rows;
                cp_async_16(smem_addr(&S[r][c]), ok ? src + (size_t)i * kRows * cols : X, ok ? 16 : 0);
            }
        }
    } else {  // edges are rare: plain index arithmetic, one float per copy
        constexpr int kElems = (BK * W + NUM_THREADS - 1) / NUM_THREADS;
#pragma unroll
        for (int i = 0; i < kElems; ++i) {
            const int idx = i * NUM_THREADS + tid;
            if ((BK * W) % NUM_THREADS == 0 || idx < BK * W) {
                const int r = idx / W, c = idx % W;
                const bool ok = k0 + r < rows && c0 + c < cols;
                cp_async_4(smem_addr(&S[r][c]), ok ? X + (size_t)(k0 + r) * cols + c0 + c : X, ok ? 4 : 0);
            }
        }
    }
}

// The K-tile at k0 into one stage: At's BK x BM tile (already in As's [k][m] order) and B's.
template <bool kInterior>
__device__ __forceinline__ void copy_tile_async(float (*As)[BM + A_PAD], float (*Bs)[BN], const float* At,
                                                const float* B, int M, int N, int K, int m0, int n0, int k0) {
    copy_rows_async<kInterior, BM, BM + A_PAD>(As, At, K, M, k0, m0);
    copy_rows_async<kInterior, BN, BN>(Bs, B, K, N, k0, n0);
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
    matmul_double_buffer_at(float* C, const float* At, const float* B, int M, int N, int K) {
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
    // 16-byte copies need 16-byte aligned rows: M (At's row length) and N multiples of 4.
    const bool aligned =
        (M % 4 == 0) && (N % 4 == 0) &&
        ((reinterpret_cast<size_t>(At) | reinterpret_cast<size_t>(B) | reinterpret_cast<size_t>(C)) % 16 == 0);
    if (aligned && m0 + BM <= M && n0 + BN <= N)  // uniform across the block: no divergence
        block_tile<true>(As, Bs, C, At, B, M, N, K, m0, n0);
    else
        block_tile<false>(As, Bs, C, At, B, M, N, K, m0, n0);
}

// Launch 1: At = A^T through a 32 x 33 shared tile (the extra column keeps the column reads off
// one bank). Block 32 x 8 threads; each reads four rows of a 32 x 32 tile of A with coalesced
// loads and writes four rows of At the same way.
extern "C" __global__ void matmul_transpose_a(float* At, const float* A, int M, int K) {
    __shared__ float tile[32][33];
    const int m0 = blockIdx.y * 32, k0 = blockIdx.x * 32, tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int i = 0; i < 32; i += 8)
        if (m0 + ty + i < M && k0 + tx < K) tile[ty + i][tx] = A[(size_t)(m0 + ty + i) * K + k0 + tx];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 32; i += 8)
        if (k0 + ty + i < K && m0 + tx < M) At[(size_t)(k0 + ty + i) * M + m0 + tx] = tile[tx][ty + i];
}
