// Rung 4 - 1D register blocking: each thread computes TM outputs of one column of C.
//
// What changes from rung 3: the block tile is no longer square or tied to the thread count.
// A block of BM * BN / TM threads computes a BM x BN tile of C, stepping along K by BK. Each
// thread owns TM vertically adjacent outputs and keeps their sums in registers. In the inner
// loop it reads one value of B from shared memory, holds it in a register, and reuses it for
// TM multiply-adds against TM values of A.
// Why it is faster: rung 3 needed two shared-memory loads per multiply-add. Here one load of B
// serves TM multiply-adds (plus TM loads of A, which the warp reads as broadcasts), and the
// larger tile means each global element is reused BN (for A) or BM (for B) times.
// What to see: roughly 2-3x rung 3 at the default TM = 8. Try TM = 1 (back to one output per
// thread) and TM = 16; watch registers per thread grow with TM.
//
// Global loads per output: K / BN from A plus K / BM from B.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(TM)
#error "BM, BN, BK and TM must be defined, e.g. -DBM=64 -DBN=64 -DBK=8 -DTM=8"
#endif

#define NUM_THREADS (BM * BN / TM)
// The tile rules (whole thread tiles, 32 to 1024 threads, 48 KB of static shared memory) are the
// manifest's constraints, checked before compiling.

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
    matmul_reg_1d(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM;  // this block's tile of C starts at (m0, n0)
    const int n0 = blockIdx.x * BN;
    const int thread_col = tid % BN;  // neighbouring threads take neighbouring columns
    const int thread_row = tid / BN;  // ...and own rows thread_row*TM .. thread_row*TM + TM-1

    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        // Cooperative, guarded loads: consecutive threads read consecutive addresses.
#pragma unroll
        for (int i = 0; i < (BM * BK + NUM_THREADS - 1) / NUM_THREADS; ++i) {
            const int idx = i * NUM_THREADS + tid;
            if (idx < BM * BK) {
                const int r = idx / BK, c = idx % BK;
                As[r][c] = (m0 + r < M && k0 + c < K) ? A[(size_t)(m0 + r) * K + k0 + c] : 0.0f;
            }
        }
#pragma unroll
        for (int i = 0; i < (BK * BN + NUM_THREADS - 1) / NUM_THREADS; ++i) {
            const int idx = i * NUM_THREADS + tid;
            if (idx < BK * BN) {
                const int r = idx / BN, c = idx % BN;
                Bs[r][c] = (k0 + r < K && n0 + c < N) ? B[(size_t)(k0 + r) * N + n0 + c] : 0.0f;
            }
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k][thread_col];  // one shared load of B...
#pragma unroll
            for (int i = 0; i < TM; ++i)  // ...feeds TM multiply-adds
                acc[i] += As[thread_row * TM + i][k] * b;
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + thread_row * TM + i, col = n0 + thread_col;
        if (row < M && col < N) C[(size_t)row * N + col] = acc[i];
    }
}
