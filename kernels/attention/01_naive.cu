// Rung 1 - naive attention: the formula as three steps, the score matrix in global memory.
//
// What changes: nothing yet; this is the baseline, attention as the formula reads:
//   1. cuBLAS (builtin cublas_gemm_nt_batched): S = Q K^T for every head, N x N floats each;
//   2. this file's kernel: P = softmax(S / sqrt(d)) row by row (masked keys get exactly 0), and
//      the row's log-sum-exp;
//   3. cuBLAS (builtin cublas_gemm_nn_batched): O = P V.
// Why it is slow: each step is fast on its own; the cost is the traffic between them: S is
// written and read,
// P is written and read, about 4 N^2 elements per head against 4 N d for Q, K, V and O, a
// factor N / d. The memory is O(N^2) as well: S and P for all heads are scratch buffers of
// B H N^2 elements each, and the runner refuses ("problem too large for GPU memory") when they
// do not fit. With causal = 1 the GEMMs still compute every score; the mask only zeroes P.
// What to see: the time grows as N^2 while the useful work grows as N^2 d too, so the gap to the
// fused rungs is the bytes of S and P; causal = 1 saves nothing here.
//
// The softmax kernel: one block per row of S, the online (max, sum) of lesson 4 per thread,
// merged over the block, then a second read of the row writes P. Scores are taken in log2
// units (x log2(e) / sqrt(d)) so exp becomes exp2.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 or bf16 data.

#include "kl_common.cuh"

#ifndef TPB
#error "TPB must be defined, e.g. -DTPB=256"
#endif
static_assert(TPB % 32 == 0 && TPB >= 32 && TPB <= 1024, "TPB must be a multiple of 32 between 32 and 1024");

#define NEG_INF_F __int_as_float(0xff800000)

// Merges the partial state (m2, l2) into (m, l), both (max, sum of exp2(x - max)).
__device__ __forceinline__ void merge_state(float& m, float& l, float m2, float l2) {
    const float mx = fmaxf(m, m2);
    if (mx == NEG_INF_F) return;  // both partials empty
    l = l * exp2f(m - mx) + l2 * exp2f(m2 - mx);
    m = mx;
}

extern "C" __global__ void __launch_bounds__(TPB)
    attention_softmax_rows(ELEM* P, float* lse, const float* S, int N, int d, int causal) {
    __shared__ float warp_m[TPB / 32], warp_l[TPB / 32];
    const long long row = blockIdx.x;  // over B * H * N rows
    const int i = (int)(row % N);      // query index inside its head
    const float* s = S + row * N;
    ELEM* p = P + row * N;
    const int visible = causal ? i + 1 : N;  // keys 0 .. visible-1; at least key 0
    const float to_log2 = 1.4426950408889634f / sqrtf((float)d);

    float m = NEG_INF_F, l = 0.f;
    for (int j = threadIdx.x; j < visible; j += TPB) merge_state(m, l, s[j] * to_log2, 1.f);
    for (int off = 16; off > 0; off /= 2) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, off);
        const float l2 = __shfl_xor_sync(0xffffffffu, l, off);
        merge_state(m, l, m2, l2);
    }
    if (threadIdx.x % 32 == 0) {
        warp_m[threadIdx.x / 32] = m;
        warp_l[threadIdx.x / 32] = l;
    }
    __syncthreads();
    m = NEG_INF_F;
    l = 0.f;
    for (int w = 0; w < TPB / 32; ++w) merge_state(m, l, warp_m[w], warp_l[w]);  // every thread, same order

    const float inv_l = 1.f / l;
    for (int j = threadIdx.x; j < N; j += TPB)
        p[j] = kl_from_float<ELEM>(j < visible ? exp2f(s[j] * to_log2 - m) * inv_l : 0.f);
    if (threadIdx.x == 0) lse[row] = (m + log2f(l)) * 0.6931471805599453f;
}
