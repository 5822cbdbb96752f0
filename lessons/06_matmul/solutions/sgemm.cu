// Reference solution of lesson 6's SGEMM exercise (`kladder solution 06_matmul/5`).
// Each block stages a BM x BK panel of A and a BK x BN panel of B in shared memory, all its
// threads sharing the copy (zero beyond the matrices' edges, so a partial tile multiplies
// zeros), then each thread accumulates its TM x TN outputs as outer products: per k, TM values
// of A and TN of B read from shared memory into registers feed TM * TN multiply-adds. Two
// barriers per BK-step: after the copy (the tile is complete) and after the products (nobody
// still reads it when the next copy starts).
#include "kl_common.cuh"

#define SOLUTION_THREADS ((BM / TM) * (BN / TN))

extern "C" __global__ void __launch_bounds__(SOLUTION_THREADS)
    matmul_reg_2d(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int thread_col = tid % (BN / TN), thread_row = tid / (BN / TN);

    float acc[TM][TN] = {};
    float a_frag[TM], b_frag[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll  // a fixed number of passes: the copy unrolls
        for (int i = 0; i < (BM * BK + SOLUTION_THREADS - 1) / SOLUTION_THREADS; ++i) {
            const int idx = i * SOLUTION_THREADS + tid;
            const int r = idx / BK, c = idx % BK;
            if (idx < BM * BK) As[r][c] = (m0 + r < M && k0 + c < K) ? A[(size_t)(m0 + r) * K + k0 + c] : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < (BK * BN + SOLUTION_THREADS - 1) / SOLUTION_THREADS; ++i) {
            const int idx = i * SOLUTION_THREADS + tid;
            const int r = idx / BN, c = idx % BN;
            if (idx < BK * BN) Bs[r][c] = (k0 + r < K && n0 + c < N) ? B[(size_t)(k0 + r) * N + n0 + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a_frag[i] = As[thread_row * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_frag[j] = Bs[k][thread_col * TN + j];
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
        for (int j = 0; j < TN; ++j) {
            const int col = n0 + thread_col * TN + j;
            if (row < M && col < N) C[(size_t)row * N + col] = acc[i][j];
        }
    }
}
