// Rung 6 - vectorized: 16-byte loads and stores everywhere, A transposed in shared memory.
//
// What changes from rung 5: three things, all about moving 16 bytes per instruction.
//  1. Global loads use float4: a thread fetches four consecutive floats of A or B at once.
//  2. The tile of A is stored *transposed* in shared memory (As[k][m]), so the TM values of A a
//     thread needs at step k are contiguous and arrive with TM / 4 float4 shared loads; the TN
//     values of B were contiguous already.
//  3. C is written with float4 stores.
// Why it is faster: a quarter of the load/store instructions for the same bytes, leaving more
// issue slots for FMAs, and no strided shared reads of A (rung 5 read a column of As).
// What to see: a modest gain over rung 5 (10-30%); the FMA share of issued instructions rises.
//
// Edges and alignment: a float4 load needs its address to be a multiple of 16 bytes, so the fast
// path needs K and N to be multiples of 4 and the tile to lie wholly inside the matrices. Tiles
// that touch an edge, or any tile when K or N is not a multiple of 4, take a guarded scalar path
// that fills zeros (the branch is uniform across the block, so it costs no divergence).
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(TM) || !defined(TN)
#error "BM, BN, BK, TM and TN must be defined, e.g. -DBM=128 -DBN=128 -DBK=8 -DTM=8 -DTN=8"
#endif

#define NUM_THREADS ((BM / TM) * (BN / TN))
#define A_PAD 4  // As rows are padded by 4 floats: the transposed stores then avoid 2-way bank conflicts
// The tile rules (whole thread tiles, 32 to 1024 threads, at most 128 accumulators, 48 KB of
// static shared memory) are the manifest's constraints; the parameter lists keep this one.
static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "TM, TN and BK must be multiples of 4 (float4 accesses)");

// Loads the BM x BK tile of A at (m0, k0) into As transposed, and the BK x BN tile of B at (k0, n0).
__device__ __forceinline__ void load_tiles(float (*As)[BM + A_PAD], float (*Bs)[BN], const float* A, const float* B,
                                           int M, int N, int K, int m0, int n0, int k0, bool fast) {
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < (BM * BK / 4 + NUM_THREADS - 1) / NUM_THREADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        if (idx < BM * BK / 4) {
            const int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
            float4 v;
            if (fast) {
                v = *reinterpret_cast<const float4*>(&A[(size_t)(m0 + r) * K + k0 + c]);
            } else {
                const bool row_ok = m0 + r < M;
                const size_t base = (size_t)(m0 + r) * K + k0 + c;
                v.x = (row_ok && k0 + c + 0 < K) ? A[base + 0] : 0.0f;
                v.y = (row_ok && k0 + c + 1 < K) ? A[base + 1] : 0.0f;
                v.z = (row_ok && k0 + c + 2 < K) ? A[base + 2] : 0.0f;
                v.w = (row_ok && k0 + c + 3 < K) ? A[base + 3] : 0.0f;
            }
            As[c + 0][r] = v.x;  // transpose on the way in: As[k][m]
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
    }
#pragma unroll
    for (int i = 0; i < (BK * BN / 4 + NUM_THREADS - 1) / NUM_THREADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        if (idx < BK * BN / 4) {
            const int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
            float4 v;
            if (fast) {
                v = *reinterpret_cast<const float4*>(&B[(size_t)(k0 + r) * N + n0 + c]);
            } else {
                const bool row_ok = k0 + r < K;
                const size_t base = (size_t)(k0 + r) * N + n0 + c;
                v.x = (row_ok && n0 + c + 0 < N) ? B[base + 0] : 0.0f;
                v.y = (row_ok && n0 + c + 1 < N) ? B[base + 1] : 0.0f;
                v.z = (row_ok && n0 + c + 2 < N) ? B[base + 2] : 0.0f;
                v.w = (row_ok && n0 + c + 3 < N) ? B[base + 3] : 0.0f;
            }
            *reinterpret_cast<float4*>(&Bs[r][c]) = v;
        }
    }
}

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
    matmul_vectorized(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ __align__(16) float As[BK][BM + A_PAD];
    __shared__ __align__(16) float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM;
    const int n0 = blockIdx.x * BN;
    const int thread_col = tid % (BN / TN);
    const int thread_row = tid / (BN / TN);

    // float4 access needs 16-byte aligned rows: K and N multiples of 4, aligned base pointers.
    const bool aligned =
        (K % 4 == 0) && (N % 4 == 0) &&
        ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) | reinterpret_cast<size_t>(C)) % 16 == 0);
    const bool interior = aligned && (m0 + BM <= M) && (n0 + BN <= N);

    float acc[TM][TN] = {};
    float a_frag[TM], b_frag[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_tiles(As, Bs, A, B, M, N, K, m0, n0, k0, interior && k0 + BK <= K);
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4*>(&a_frag[i]) = *reinterpret_cast<const float4*>(&As[k][thread_row * TM + i]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4*>(&b_frag[j]) = *reinterpret_cast<const float4*>(&Bs[k][thread_col * TN + j]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + thread_row * TM + i;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int col = n0 + thread_col * TN + j;
            if (interior) {
                *reinterpret_cast<float4*>(&C[(size_t)row * N + col]) =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            } else if (row < M) {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (col + e < N) C[(size_t)row * N + col + e] = acc[i][j + e];
            }
        }
    }
}
