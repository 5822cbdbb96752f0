// Rung 5 - 2D register blocking: each thread computes a TM x TN block of outputs.
//
// What changes from rung 4: a thread now owns a small TM x TN tile of C instead of a TM x 1
// strip. In the inner loop it copies TM values of A and TN values of B from shared memory into
// registers and forms their outer product: TM * TN multiply-adds for TM + TN shared loads.
// Why it is faster: at the default TM = TN = 4 that is 16 multiply-adds per 8 shared loads (rung 4
// did 8 per 9), and the 128 x 128 block tile reuses each global element more often: global
// loads per output drop to K / BN + K / BM = K / 64.
// What to see: a gain over rung 4. Then try TM = TN = 8: 64 multiply-adds per 16 loads looks
// better on paper but runs slower here (H100, 4096^3: about 9 against 20 TFLOP/s). Two reasons,
// both visible: the 16 threads that share a row of the block read B at a stride of 8 floats,
// so every warp-wide load of B is a 4-way shared-memory bank conflict; and 156 registers per
// thread leave room for one block per SM. Rung 6 keeps the 8 x 8 tile and removes both costs
// with 16-byte loads. TM * TN above 128 accumulators would spill, so the manifest refuses it.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(TM) || !defined(TN)
#error "BM, BN, BK, TM and TN must be defined, e.g. -DBM=128 -DBN=128 -DBK=8 -DTM=8 -DTN=8"
#endif

#define NUM_THREADS ((BM / TM) * (BN / TN))
// The tile rules (whole thread tiles, 32 to 1024 threads, 48 KB of static shared memory) are the
// manifest's constraints, checked before compiling.

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
    matmul_reg_2d(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM;
    const int n0 = blockIdx.x * BN;
    const int thread_col = tid % (BN / TN);  // this thread's outputs: rows thread_row*TM + [0, TM),
    const int thread_row = tid / (BN / TN);  //                        cols thread_col*TN + [0, TN)

    float acc[TM][TN] = {};
    float a_frag[TM], b_frag[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
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
#pragma unroll
            for (int i = 0; i < TM; ++i) a_frag[i] = As[thread_row * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_frag[j] = Bs[k][thread_col * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)  // outer product: TM * TN FMAs from registers
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + thread_row * TM + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int col = n0 + thread_col * TN + j;
            if (row < M && col < N) C[(size_t)row * N + col] = acc[i][j];
        }
    }
}
