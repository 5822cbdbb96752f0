// Rung 1 - naive attention backward: P and dP as N x N matrices in global memory.
//
// What changes: nothing yet; this is the baseline, the backward as the formulas read (the math:
// app/model/ops/attention_backward_ref.h), one simple kernel per step, a thread per output:
//   1. D_i = rowsum(dO_i * O_i);        2. S = Q K^T into P;    3. P = exp(S / sqrt(d) - L)
//   (masked keys 0);                    4. dP = dO V^T;         5. dS = P * (dP - D) in place;
//   6. dV = P^T dO;   7. dK = dS^T Q / sqrt(d);   8. dQ = dS K / sqrt(d).
// P and dS are fp32 scratch of B H N^2 elements each: at B8 H16 N4096, 8.6 GB apiece.
// Why it is slow: the matrix products are recomputed by no one, but P and dP are written and
// read: about 40 bytes of N^2 traffic per head pair against 16 bytes of N d for the tensors
// themselves, a factor 2.5 N / d; and each thread reads its two rows of d from L1/L2 without
// sharing them with its neighbours, so the products run far below either roof. With causal = 1
// every score is still computed; the mask only zeroes P.
// What to see: the time against the floor (docs/tuning/attention_backward.md), and the scratch:
// the runner refuses ("problem too large for GPU memory") once 8 B H N^2 bytes do not fit.
// What it needs: any GPU the workbook runs on; bf16 data.

#include "kl_common.cuh"

static_assert(TPB % 32 == 0 && TPB >= 32 && TPB <= 1024, "TPB must be a multiple of 32 between 32 and 1024");

// D_i = dO_i . O_i: one thread per row of B H N.
extern "C" __global__ void __launch_bounds__(TPB)
    abn_row_dots(float* Dv, const ELEM* dO, const ELEM* O, long long rows, int d) {
    const long long r = (long long)blockIdx.x * TPB + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int c = 0; c < d; ++c) s += kl_to_float(dO[r * d + c]) * kl_to_float(O[r * d + c]);
    Dv[r] = s;
}

// S[h][i][j] = A_i . B_j for head h = blockIdx.y: Q K^T (into P) and dO V^T (into dS).
extern "C" __global__ void __launch_bounds__(TPB) abn_scores(float* S, const ELEM* A, const ELEM* B, int N, int d) {
    const long long e = (long long)blockIdx.x * TPB + threadIdx.x;
    if (e >= (long long)N * N) return;
    const long long head = (long long)blockIdx.y * N, i = e / N, j = e % N;
    const ELEM* a = A + (head + i) * d;
    const ELEM* b = B + (head + j) * d;
    float s = 0.f;
    for (int c = 0; c < d; ++c) s += kl_to_float(a[c]) * kl_to_float(b[c]);
    S[head * N + e] = s;
}

// P = exp(S / sqrt(d) - L_i) in place; 0 where causal hides key j from query i.
extern "C" __global__ void __launch_bounds__(TPB) abn_probs(float* P, const float* L, int N, int d, int causal) {
    const long long e = (long long)blockIdx.x * TPB + threadIdx.x;
    if (e >= (long long)N * N) return;
    const long long head = (long long)blockIdx.y * N, i = e / N, j = e % N;
    float* p = P + head * N + e;
    *p = (causal && j > i) ? 0.f : expf(*p / sqrtf((float)d) - L[head + i]);
}

// dS = P * (dP - D_i), in place over dP.
extern "C" __global__ void __launch_bounds__(TPB) abn_dscores(float* dS, const float* P, const float* Dv, int N) {
    const long long e = (long long)blockIdx.x * TPB + threadIdx.x;
    if (e >= (long long)N * N) return;
    const long long head = (long long)blockIdx.y * N, i = e / N;
    dS[head * N + e] = P[head * N + e] * (dS[head * N + e] - Dv[head + i]);
}

// out_j = scale sum_i A[i][j] B_i (dV = P^T dO, dK = dS^T Q / sqrt(d)); scaled = 1 divides by sqrt(d).
extern "C" __global__ void __launch_bounds__(TPB)
    abn_grad_tn(ELEM* out, const float* A, const ELEM* B, int N, int d, int scaled) {
    const long long e = (long long)blockIdx.x * TPB + threadIdx.x;
    if (e >= (long long)N * d) return;
    const long long head = (long long)blockIdx.y * N, j = e / d, c = e % d;
    const float* a = A + head * N + j;  // column j
    float s = 0.f;
    for (long long i = 0; i < N; ++i) s += a[i * N] * kl_to_float(B[(head + i) * d + c]);
    out[head * d + e] = kl_from_float<ELEM>(scaled ? s / sqrtf((float)d) : s);
}

// dQ_i = sum_j dS[i][j] K_j / sqrt(d).
extern "C" __global__ void __launch_bounds__(TPB) abn_grad_nn(ELEM* out, const float* A, const ELEM* B, int N, int d) {
    const long long e = (long long)blockIdx.x * TPB + threadIdx.x;
    if (e >= (long long)N * d) return;
    const long long head = (long long)blockIdx.y * N, i = e / d, c = e % d;
    const float* a = A + (head + i) * N;  // row i
    float s = 0.f;
    for (long long j = 0; j < N; ++j) s += a[j] * kl_to_float(B[(head + j) * d + c]);
    out[head * d + e] = kl_from_float<ELEM>(s / sqrtf((float)d));
}
