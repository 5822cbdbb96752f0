// Rung 8 - double buffering through registers: load the next K-tile while computing this one.
// This rung is rung 7 with two shared-memory stages: the copy is the lesson, diff it against 07.
//
// What changes from rung 7: shared memory holds two copies of each tile. While the warps run
// their multiply-adds on buffer `cur`, every thread has already issued the global loads of the
// *next* K-tile into registers; once its reads of `cur` are issued it writes those registers into
// the other buffer, and a single barrier per K-step hands the buffers over.
// Why it is faster: in rung 7 each K-step was "load, wait, barrier, compute, barrier": while the
// loads crossed the memory system (hundreds of cycles) the FMA units had nothing to do, and the
// second barrier made everybody wait for the slowest warp. Here the load latency hides behind
// BK steps of math, and one barrier per step is enough (see the comments in the loop).
// What to see: the last big step on CUDA cores, close to cuBLAS SGEMM at large sizes. The cost:
// twice the shared memory and more registers (the in-flight loads). The default warp tile is
// 64 x 64 with 8 x 4 lane sub-tiles (4 warps, 16 x 8 outputs per thread): more math per shared
// load than rung 7's 32 x 64, affordable now that loads no longer stall the warps. GROUP orders
// the tiles as rung 11 does (neighbouring blocks share panels of A and B in L2).
//
// Three choices are fixed here because they measured best, not because they teach an idea
// (docs/tuning/matmul.md has what each alternative measured): the hand-over happens before the
// last k-step's math, with the next tile's first fragments loaded right after the barrier; C is
// stored one float at a time (float4 stores pin each accumulator to the register bank of the B
// value it multiplies, and the FMAs then wait on bank conflicts); each k-step's multiply-adds run
// column by column, the order ptxas places best in this loop.
//
// Edges and alignment: as in rungs 6-7 (float4 fast path inside, guarded scalar path at edges).
// The next rung keeps the two stages but moves the copies off the registers (cp.async).
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN) || !defined(TM) || !defined(TN)
#error "BM, BN, BK, WM, WN, TM and TN must be defined, e.g. -DBM=128 -DBN=128 -DBK=8 -DWM=64 -DWN=64 -DTM=8 -DTN=4"
#endif

// GROUP: tile rows handed out together (1 = plain blockIdx order), as in rung 11.
#ifndef GROUP
#define GROUP 1
#endif

#define LANES_M 4
#define LANES_N 8
#define WSUBM (LANES_M * TM)
#define WSUBN (LANES_N * TN)
#define WMITER (WM / WSUBM)
#define WNITER (WN / WSUBN)
#define NUM_THREADS (32 * (BM / WM) * (BN / WN))
#define A_PAD 4
#define A_LOADS ((BM * BK / 4 + NUM_THREADS - 1) / NUM_THREADS)  // float4 loads of A per thread per tile
#define B_LOADS ((BK * BN / 4 + NUM_THREADS - 1) / NUM_THREADS)  // ...and of B
// Ask for two resident blocks per SM (at most 128 registers per thread at 256 threads) when the
// accumulators plus the in-flight loads leave room for it, so that while one block waits at its
// barrier the other keeps the FMA units busy. Larger shapes get no cap: capping them would spill.
#define MIN_BLOCKS ((NUM_THREADS <= 256 && WM * WN / 32 + 4 * (A_LOADS + B_LOADS) <= 48) ? 2 : 1)

// The tile shapes' own rules (whole warp tiles, at most 1024 threads and 128 accumulators, 48 KB
// of static shared memory) are the manifest's constraints; what is left here are the assumptions
// of this code that the parameter lists already satisfy, kept for anyone compiling it by hand.
static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "TM, TN and BK must be multiples of 4 (float4 accesses)");
static_assert(BK % 2 == 0 && GROUP >= 1, "fragments alternate between two register sets by k-step: BK must be even");

// Global -> registers for the K-tile at k0.
// Interior blocks (kInterior): rows are 16-byte aligned and the tile lies inside A and B along M
// and N, so each thread issues plain float4 loads; the only check left is the K tail (a float4 is
// wholly inside or wholly past K because K is a multiple of 4). Edge blocks: guarded scalar
// loads, with zeros outside the matrices.
template <bool kInterior>
__device__ __forceinline__ void load_global(float4 (&a)[A_LOADS], float4 (&b)[B_LOADS], const float* A, const float* B,
                                            int M, int N, int K, int m0, int n0, int k0) {
    const int tid = threadIdx.x;
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        const int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
        const bool in_tile = (BM * BK / 4) % NUM_THREADS == 0 || idx < BM * BK / 4;
        if (kInterior) {
            a[i] = (in_tile && k0 + c < K) ? *reinterpret_cast<const float4*>(&A[(size_t)(m0 + r) * K + k0 + c]) : zero;
        } else {
            const float* src = A + (size_t)(m0 + r) * K + k0 + c;
            const int left = (in_tile && m0 + r < M) ? K - (k0 + c) : 0;  // valid elements from src on
            a[i].x = left > 0 ? src[0] : 0.0f;
            a[i].y = left > 1 ? src[1] : 0.0f;
            a[i].z = left > 2 ? src[2] : 0.0f;
            a[i].w = left > 3 ? src[3] : 0.0f;
        }
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        const int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
        const bool in_tile = (BK * BN / 4) % NUM_THREADS == 0 || idx < BK * BN / 4;
        if (kInterior) {
            b[i] = (in_tile && k0 + r < K) ? *reinterpret_cast<const float4*>(&B[(size_t)(k0 + r) * N + n0 + c]) : zero;
        } else {
            const float* src = B + (size_t)(k0 + r) * N + n0 + c;
            const int left = (in_tile && k0 + r < K) ? N - (n0 + c) : 0;
            b[i].x = left > 0 ? src[0] : 0.0f;
            b[i].y = left > 1 ? src[1] : 0.0f;
            b[i].z = left > 2 ? src[2] : 0.0f;
            b[i].w = left > 3 ? src[3] : 0.0f;
        }
    }
}

// Registers -> one shared-memory stage (A transposed to As[k][m]).
__device__ __forceinline__ void store_shared(float (*As)[BM + A_PAD], float (*Bs)[BN], const float4 (&a)[A_LOADS],
                                             const float4 (&b)[B_LOADS]) {
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        if ((BM * BK / 4) % NUM_THREADS == 0 || idx < BM * BK / 4) {
            const int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
            As[c + 0][r] = a[i].x;
            As[c + 1][r] = a[i].y;
            As[c + 2][r] = a[i].z;
            As[c + 3][r] = a[i].w;
        }
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        if ((BK * BN / 4) % NUM_THREADS == 0 || idx < BK * BN / 4) {
            const int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Bs[r][c]) = b[i];
        }
    }
}

// One k-step: acc += a (column) x b (row), column by column. Any order sums each accumulator's
// products in the same k order (the result is bit for bit the same); the order decides which
// operand consecutive FMAs share and so how ptxas places the registers.
__device__ __forceinline__ void outer_product(float (&acc)[WMITER * TM][WNITER * TN], const float (&af)[WMITER * TM],
                                              const float (&bf)[WNITER * TN]) {
    constexpr int R = WMITER * TM, C = WNITER * TN;
#pragma unroll
    for (int j = 0; j < C; ++j)
#pragma unroll
        for (int i = 0; i < R; ++i) acc[i][j] += af[i] * bf[j];
}

// The whole block's work; kInterior selects the unchecked copy of the loop (see load_global).
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
    float4 a_next[A_LOADS], b_next[B_LOADS];

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

    load_global<kInterior>(a_next, b_next, A, B, M, N, K, m0, n0, 0);
    store_shared(As[0], Bs[0], a_next, b_next);
    __syncthreads();
    load_frags(a_frag[0], b_frag[0], As[0], Bs[0], 0);

    for (int t = 0; t < num_tiles; ++t) {
        const int cur = t & 1;
        // Issue the next tile's loads now; nothing waits for them until store_shared below.
        // No `if (t + 1 < num_tiles)` around them: past the last tile the loads are predicated
        // off (zeros), and a branch here lets the compiler merge this block with the one of
        // store_shared below, which moves the loads after the math and exposes their latency.
        load_global<kInterior>(a_next, b_next, A, B, M, N, K, m0, n0, (t + 1) * BK);

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const int f = k & 1;
            if (k > 0) load_frags(a_frag[f], b_frag[f], As[cur], Bs[cur], k);  // k = 0: loaded at the hand-over
            if (k == BK - 1) {
                // This thread's reads of buffer cur are all issued (the fragments above), so the
                // hand-over can happen before the last k-step's math: warps leave the barrier with
                // a k-step of independent FMAs to issue. Writing buffer cur^1 needs no barrier
                // before it: its last readers ran in step t-1, and every thread passed the barrier
                // of step t-1 after issuing those reads. (After the last tile this writes zeros
                // that nobody reads.)
                store_shared(As[cur ^ 1], Bs[cur ^ 1], a_next, b_next);
                __syncthreads();  // buffer cur^1 is complete before anyone reads it
                load_frags(a_frag[0], b_frag[0], As[cur ^ 1], Bs[cur ^ 1], 0);
            }
            outer_product(acc, a_frag[f], b_frag[f]);
        }
    }

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
    matmul_double_buffer_regs(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ __align__(16) float As[2][BK][BM + A_PAD];
    __shared__ __align__(16) float Bs[2][BK][BN];

    // Tile order: GROUP tile rows at a time (see rung 11's tile_origin), x fastest inside.
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int id = blockIdx.y * tiles_n + blockIdx.x;
    const int first_m = (id / (GROUP * tiles_n)) * GROUP;
    const int rows = min(tiles_m - first_m, GROUP);  // the last group may be shorter
    const int in_group = id % (GROUP * tiles_n);
    const int m0 = (first_m + in_group % rows) * BM;
    const int n0 = (in_group / rows) * BN;
    // float4 access needs 16-byte aligned rows: K and N multiples of 4, aligned base pointers.
    const bool aligned =
        (K % 4 == 0) && (N % 4 == 0) &&
        ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) | reinterpret_cast<size_t>(C)) % 16 == 0);
    if (aligned && m0 + BM <= M && n0 + BN <= N)  // uniform across the block: no divergence
        block_tile<true>(As, Bs, C, A, B, M, N, K, m0, n0);
    else
        block_tile<false>(As, Bs, C, A, B, M, N, K, m0, n0);
}
