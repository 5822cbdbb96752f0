// Rung 7 - warp tiling: an explicit middle level between the block tile and the thread tile.
//
// What changes from rung 6: threads are no longer laid out row by row across the block tile.
// Each warp owns a WM x WN warp tile; inside it the 32 lanes form a fixed 4 x 8 grid, and the
// warp tile is covered by (WM / 4TM) x (WN / 8TN) sub-tiles of (4TM) x (8TN). A lane computes a
// TM x TN block in every sub-tile, so its outputs are spread out rather than adjacent.
// Why it is faster: at each step k a warp's lanes read only 4 distinct float4s of A and 8
// consecutive float4s of B from shared memory (broadcasts and conflict-free lines), whatever the
// block size; in rung 6 the thread layout, not the hardware, decided how many bank conflicts a
// warp suffered. The warp tile is also the shape the tensor-core rungs use later: one warp, one
// tile of C held in registers.
// Second, smaller change: interior blocks (all but the edge blocks) run their own copy of the
// loop with no bounds checks (template parameter kInterior), which frees registers and issue
// slots for the multiply-adds; edge blocks keep the guarded loads.
// What to see: a gain over rung 6 and far fewer shared-memory bank conflicts in the counters.
// Sliders: block tile (BM, BN, BK), warp tile (WM, WN), thread sub-tile (TM, TN). Accumulators
// per thread = WM * WN / 32: past 128 they no longer fit and the manifest refuses the shape.
//
// Edges and alignment: a float4 needs 16-byte aligned addresses, so the fast path needs K and N
// to be multiples of 4 and the block to lie inside C; other blocks take guarded scalar loads that
// fill zeros outside the matrices.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN) || !defined(TM) || !defined(TN)
#error "BM, BN, BK, WM, WN, TM and TN must be defined, e.g. -DBM=128 -DBN=128 -DBK=8 -DWM=32 -DWN=64 -DTM=4 -DTN=4"
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

// The tile rules (whole warp tiles and sub-tiles, at most 1024 threads and 128 accumulators,
// 48 KB of static shared memory) are the manifest's constraints; the parameter lists keep this one.
static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "TM, TN and BK must be multiples of 4 (float4 accesses)");

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

// Registers -> shared memory (A transposed to As[k][m]).
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

// The whole block's work; kInterior selects the unchecked copy of the loop (see load_global).
template <bool kInterior>
__device__ __forceinline__ void block_tile(float (*As)[BM + A_PAD], float (*Bs)[BN], float* C, const float* A,
                                           const float* B, int M, int N, int K, int m0, int n0) {
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int warp_m = (warp / (BN / WN)) * WM;
    const int warp_n = (warp % (BN / WN)) * WN;
    const int lane_m = (lane / LANES_N) * TM;
    const int lane_n = (lane % LANES_N) * TN;

    const int num_tiles = (K + BK - 1) / BK;

    float acc[WMITER * TM][WNITER * TN] = {};
    float a_frag[WMITER * TM], b_frag[WNITER * TN];
    float4 a_ld[A_LOADS], b_ld[B_LOADS];

    for (int t = 0; t < num_tiles; ++t) {
        load_global<kInterior>(a_ld, b_ld, A, B, M, N, K, m0, n0, t * BK);
        store_shared(As, Bs, a_ld, b_ld);
        __syncthreads();  // the tiles are complete before anyone reads them

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
                for (int i = 0; i < TM; i += 4)
                    *reinterpret_cast<float4*>(&a_frag[wm * TM + i]) =
                        *reinterpret_cast<const float4*>(&As[k][warp_m + wm * WSUBM + lane_m + i]);
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int j = 0; j < TN; j += 4)
                    *reinterpret_cast<float4*>(&b_frag[wn * TN + j]) =
                        *reinterpret_cast<const float4*>(&Bs[k][warp_n + wn * WSUBN + lane_n + j]);
#pragma unroll
            for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
                for (int j = 0; j < WNITER * TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();  // everyone is done with the tiles before the next step overwrites them
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
                    if (kInterior) {
                        *reinterpret_cast<float4*>(&C[(size_t)row * N + col]) = make_float4(v[0], v[1], v[2], v[3]);
                    } else if (row < M) {
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            if (col + e < N) C[(size_t)row * N + col + e] = v[e];
                    }
                }
        }
}

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
    matmul_warp_tiles(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ __align__(16) float As[BK][BM + A_PAD];
    __shared__ __align__(16) float Bs[BK][BN];

    const int m0 = blockIdx.y * BM;
    const int n0 = blockIdx.x * BN;
    // float4 access needs 16-byte aligned rows: K and N multiples of 4, aligned base pointers.
    const bool aligned =
        (K % 4 == 0) && (N % 4 == 0) &&
        ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) | reinterpret_cast<size_t>(C)) % 16 == 0);
    if (aligned && m0 + BM <= M && n0 + BN <= N)  // uniform across the block: no divergence
        block_tile<true>(As, Bs, C, A, B, M, N, K, m0, n0);
    else
        block_tile<false>(As, Bs, C, A, B, M, N, K, m0, n0);
}
