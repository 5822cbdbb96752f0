// Rung 21 - fp32: A read along K, so no transposed copy is needed (a measured step: slower).
//
// What changes from rung 16: rung 16 wants each lane's A fragment to be TM rows of one k, read as
// float4s, so it stores A transposed in shared memory and pays a first launch that writes A^T
// (2 x 4 MK bytes, ~45 us at 4096^3, 1.7% of the GEMM). Here A's tile stays as it lies in memory,
// BM rows of BK k-values, copied 16 bytes (four k of one row) per cp.async: the same two copies
// per thread per K-tile as rung 16. A lane reads A along K instead: one float4 holds one row's next
// four k-values, so a lane keeps RM rows x 4 k of A (four k-steps) and reads B each k-step.
// Why it should be faster: no transpose launch, and a GEMM as fast as rung 16's: per four k-steps a
// lane with 8 x 16 outputs reads 8 float4s of A and 16 of B; rung 16's lane (16 x 8 outputs) reads
// 16 and 8: 24 LDS.128 per 512 FFMA either way. The lanes form an 8 x 4 grid; a lane's rows
// interleave (row lm + 8i), so one LDS.128 reads eight consecutive rows, and a row of the A tile is
// padded to BK + 4 floats so the eight 16-byte reads fall in eight different bank groups (a stride
// of 3, 5 or 9 units of 16 bytes). A lane's B float4s are 16 columns apart: four lanes read 64
// contiguous bytes.
// What to see: slower than rung 16 and cuBLAS SGEMM, the measured step of the ladder. The loop has
// rung 16's length and no shared-memory bank conflicts, but register-bank conflicts stall its
// dispatch: an FFMA reads three registers from two banks (register number mod 2) unless the reuse
// cache supplies one; here A's values of k-step q all sit in component q of a float4 (one bank for
// every row), and ptxas cannot place every FFMA's accumulator off both A's and B's banks. CUDA C
// has no handle on register placement: the gap to rung 16 is ptxas's. PREFETCH 0 against 1 (the
// same instructions, apart in time) in its lab rung, double_buffer_a_kmajor_lab. Figures and SASS
// counts: docs/tuning/matmul.md.
// Edges: A's rows not 16-byte aligned (K not a multiple of 4), B's (N), and tiles past the matrix
// take one-float copies with guards; the K tail is zero-filled.
// What it needs: sm_80 (Ampere) or newer: cp.async copies global memory into shared memory without
// registers; fp32 data.

#include "kl_ptx.cuh"  // smem_addr, cp.async and its group commit / wait (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN)
#error "BM, BN, BK, WM and WN must be defined, e.g. -DBM=128 -DBN=128 -DBK=8 -DWM=64 -DWN=64"
#endif

// GROUP: tile rows handed out together (1 = plain blockIdx order), as in rung 11.
// STAGES: tiles in the shared-memory ring; copies are issued STAGES - 1 tiles ahead.
#ifndef GROUP
#define GROUP 1
#endif
#ifndef STAGES
#define STAGES 3
#endif
// PREFETCH: 1 loads each k-step's fragments one step ahead, under the previous step's FMAs, as
// rung 16 does; 0 loads them just before their FMAs (the next tile's first ones still ahead).
#ifndef PREFETCH
#define PREFETCH 0
#endif

#define LANES_M 8  // a warp's lanes: 8 rows x 4 columns of lanes
#define LANES_N 4
#define RM (WM / LANES_M)  // rows of C per lane, 8 apart
#define RN (WN / LANES_N)  // columns of C per lane, in float4s 16 apart
#define RN4 (RN / 4)
#define NUM_THREADS (32 * (BM / WM) * (BN / WN))
#define A_LD (BK + 4)   // padded row of the A tile (see the header)
#define QUADS (BK / 4)  // groups of four k-steps per K-tile

static_assert(WM % LANES_M == 0 && WN % (4 * LANES_N) == 0,
              "a warp tile must split into 8 x 4 lanes of float4 columns");
static_assert(BK == 8 || BK == 16 || BK == 32, "BK + 4 must be an odd number of 16-byte units (bank groups)");
static_assert(STAGES >= 2, "a ring needs a stage to fill while another is read");
static_assert((BM * BK / 4) % NUM_THREADS == 0 && (BK * BN / 4) % NUM_THREADS == 0,
              "each thread copies a whole number of 16-byte pieces of each tile");

// The K-tile at k0 into one stage: A's BM x BK tile as it lies in A (rows of BK floats, padded to
// A_LD) and B's BK x BN tile. Interior tiles: 16 bytes per copy; edges: one float per copy.
// cp.async with a source size of 0 (kl_ptx.cuh) writes zeros: the K tail, the edges, copies
// past the last tile.
template <bool kInterior>
__device__ __forceinline__ void copy_tile_async(float (*As)[A_LD], float (*Bs)[BN], const float* A, const float* B,
                                                int M, int N, int K, int m0, int n0, int k0) {
    const int tid = threadIdx.x;
    if (kInterior) {
#pragma unroll
        for (int i = 0; i < BM * BK / 4 / NUM_THREADS; ++i) {
            const int piece = i * NUM_THREADS + tid, r = piece / QUADS, k = (piece % QUADS) * 4;
            const bool ok = k0 + k < K;  // K % 4 == 0 here: a piece is wholly inside or past K
            cp_async_16(smem_addr(&As[r][k]), ok ? A + (size_t)(m0 + r) * K + k0 + k : A, ok ? 16 : 0);
        }
#pragma unroll
        for (int i = 0; i < BK * BN / 4 / NUM_THREADS; ++i) {
            const int piece = i * NUM_THREADS + tid, r = piece / (BN / 4), c = (piece % (BN / 4)) * 4;
            const bool ok = k0 + r < K;
            cp_async_16(smem_addr(&Bs[r][c]), ok ? B + (size_t)(k0 + r) * N + n0 + c : B, ok ? 16 : 0);
        }
    } else {  // edges are rare: plain index arithmetic
#pragma unroll 4
        for (int idx = tid; idx < BM * BK; idx += NUM_THREADS) {
            const int r = idx / BK, k = idx % BK;
            const bool ok = m0 + r < M && k0 + k < K;
            cp_async_4(smem_addr(&As[r][k]), ok ? A + (size_t)(m0 + r) * K + k0 + k : A, ok ? 4 : 0);
        }
#pragma unroll 4
        for (int idx = tid; idx < BK * BN; idx += NUM_THREADS) {
            const int r = idx / BN, c = idx % BN;
            const bool ok = k0 + r < K && n0 + c < N;
            cp_async_4(smem_addr(&Bs[r][c]), ok ? B + (size_t)(k0 + r) * N + n0 + c : B, ok ? 4 : 0);
        }
    }
}

// One k-step: acc += a (column: component q of each row's four k) x b (row), written in rung 16's
// serpentine order (consecutive FMAs share their A operand); ptxas schedules them its own way
// (the header: it also reuses B, and that is where the bank conflicts come from).
template <int q>
__device__ __forceinline__ void outer_product(float (&acc)[RM][RN], const float4 (&a)[RM], const float4 (&b)[RN4]) {
#pragma unroll
    for (int i = 0; i < RM; ++i) {
        const float ai = q == 0 ? a[i].x : q == 1 ? a[i].y : q == 2 ? a[i].z : a[i].w;
#pragma unroll
        for (int jj = 0; jj < RN; ++jj) {
            const int j = (i & 1) ? RN - 1 - jj : jj;
            const float4& bj = b[j / 4];
            acc[i][j] += ai * ((j & 3) == 0 ? bj.x : (j & 3) == 1 ? bj.y : (j & 3) == 2 ? bj.z : bj.w);
        }
    }
}

// The whole block's work; kInterior selects the unguarded 16-byte copies and float4 stores.
template <bool kInterior>
__device__ __forceinline__ void block_tile(float (*As)[BM][A_LD], float (*Bs)[BK][BN], float* C, const float* A,
                                           const float* B, int M, int N, int K, int m0, int n0) {
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int row0 = (warp / (BN / WN)) * WM + lane / LANES_N;        // the lane's first row; then + 8i
    const int col0 = (warp % (BN / WN)) * WN + (lane % LANES_N) * 4;  // its first float4; then + 16g
    const int num_tiles = (K + BK - 1) / BK;

    float acc[RM][RN] = {};
    float4 a[RM], a_next[RM];  // four k-steps of A per row: this quad's and the next one's
    float4 b[RN4], b_next[RN4];
    auto load_a = [&](float4(&dst)[RM], const float(*As_s)[A_LD], int quad) {
#pragma unroll
        for (int i = 0; i < RM; ++i) dst[i] = *reinterpret_cast<const float4*>(&As_s[row0 + LANES_M * i][quad * 4]);
    };
    auto load_b = [&](float4(&dst)[RN4], const float(*Bs_s)[BN], int k) {
#pragma unroll
        for (int g = 0; g < RN4; ++g) dst[g] = *reinterpret_cast<const float4*>(&Bs_s[k][col0 + 4 * LANES_N * g]);
    };

    // Prologue: the first STAGES - 1 tiles in flight, one commit group each.
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        copy_tile_async<kInterior>(As[s], Bs[s], A, B, M, N, K, m0, n0, s * BK);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();  // tile 0 has landed (this thread's copies) ...
    __syncthreads();              // ... and everybody's
    load_a(a, As[0], 0);
    load_b(b, Bs[0], 0);

    for (int t = 0; t < num_tiles; ++t) {
        const int cur = t % STAGES;
        // Refill the stage tile t-1 used: every thread read it before the barrier ending tile t-1.
        const int fill = (t + STAGES - 1) % STAGES;
        copy_tile_async<kInterior>(As[fill], Bs[fill], A, B, M, N, K, m0, n0, (t + STAGES - 1) * BK);
        cp_async_commit();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (!PREFETCH && k > 0) {  // this step's fragments, loaded just before its FMAs
                load_b(b, Bs[cur], k);
                if (k % 4 == 0) load_a(a, As[cur], k / 4);
            }
            if (k == BK - 1) {                // the next tile's first fragments, under this step's FMAs
                cp_async_wait<STAGES - 2>();  // tile t + 1 must be complete
                __syncthreads();
                const int nxt = (t + 1) % STAGES;
                load_b(b_next, Bs[nxt], 0);
                load_a(a_next, As[nxt], 0);
            } else if (PREFETCH) {  // step k + 1's fragments, under step k's FMAs (rung 16's way)
                load_b(b_next, Bs[cur], k + 1);
                if (k % 4 == 3) load_a(a_next, As[cur], (k + 1) / 4);
            }
            switch (k % 4) {
                case 0: outer_product<0>(acc, a, b); break;
                case 1: outer_product<1>(acc, a, b); break;
                case 2: outer_product<2>(acc, a, b); break;
                default: outer_product<3>(acc, a, b); break;
            }
            if (PREFETCH || k == BK - 1) {
#pragma unroll
                for (int g = 0; g < RN4; ++g) b[g] = b_next[g];
                if (k % 4 == 3)
#pragma unroll
                    for (int i = 0; i < RM; ++i) a[i] = a_next[i];
            }
        }
    }
    cp_async_wait<0>();  // no copy may still target shared memory when the block exits

#pragma unroll
    for (int i = 0; i < RM; ++i) {
        const int row = m0 + row0 + LANES_M * i;
#pragma unroll
        for (int g = 0; g < RN4; ++g) {
            const int col = n0 + col0 + 4 * LANES_N * g;
#pragma unroll
            for (int j = 0; j < 4; ++j)  // one float per store: see the header
                if (kInterior || (row < M && col + j < N)) C[(size_t)row * N + col + j] = acc[i][4 * g + j];
        }
    }
}

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
    matmul_double_buffer_a_kmajor(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ __align__(16) float As[STAGES][BM][A_LD];
    __shared__ __align__(16) float Bs[STAGES][BK][BN];

    // Tile order: GROUP tile rows at a time (see rung 11's tile_origin), x fastest inside.
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int id = blockIdx.y * tiles_n + blockIdx.x;
    const int first_m = (id / (GROUP * tiles_n)) * GROUP;
    const int rows = min(tiles_m - first_m, GROUP);  // the last group may be shorter
    const int in_group = id % (GROUP * tiles_n);
    const int m0 = (first_m + in_group % rows) * BM;
    const int n0 = (in_group / rows) * BN;
    // 16-byte copies need 16-byte aligned rows: K (A's row length) and N multiples of 4.
    const bool aligned =
        (K % 4 == 0) && (N % 4 == 0) &&
        ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) | reinterpret_cast<size_t>(C)) % 16 == 0);
    if (aligned && m0 + BM <= M && n0 + BN <= N)  // uniform across the block: no divergence
        block_tile<true>(As, Bs, C, A, B, M, N, K, m0, n0);
    else
        block_tile<false>(As, Bs, C, A, B, M, N, K, m0, n0);
}
