// Rung 5: y = sin(x)^2 + cos(x)^2 as eager PyTorch runs it: five kernels (sin, pow, cos, pow, add),
// the graph the CS336 lecture prints for this expression.
//
// What changes: a second expression, unfused. Every kernel has the shape of rung 6 (EPT elements
// per thread, all loads first), so the pair differs only in fusion.
// Why it is slower: each kernel reads its operands from DRAM and writes its result back: four unary
// kernels of two accesses and one binary add of three, 11 array accesses per element where a fused
// kernel needs 2.
// What to see: about 5.5 times the time of rung 6, each kernel near the copy roof on its own. (The
// answer is 1 for every x; no compiler may use that, and none does.)
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.
#include "kl_common.cuh"

static_assert(TPB % 32 == 0, "threads per block must be a whole number of warps");
static_assert(EPT >= 1 && EPT <= 16, "1 to 16 elements per thread");

#define KL_AT(j) ((long long)blockIdx.x * (TPB * EPT) + threadIdx.x + (long long)(j)*TPB)

// No __restrict__: the squares run in place (t0 = t0^2).
#define KL_UNARY(NAME, EXPR)                                                                      \
    extern "C" __global__ void NAME(float* out, const float* p, long long n) {                    \
        float v[EPT];                                                                             \
        _Pragma("unroll") for (int j = 0; j < EPT; ++j) v[j] = KL_AT(j) < n ? p[KL_AT(j)] : 0.f;  \
        _Pragma("unroll") for (int j = 0; j < EPT; ++j) if (KL_AT(j) < n) out[KL_AT(j)] = (EXPR); \
    }

KL_UNARY(ew_sin, sinf(v[j]))
KL_UNARY(ew_cos, cosf(v[j]))
KL_UNARY(ew_square, v[j] * v[j])

extern "C" __global__ void ew_add2(float* __restrict__ out, const float* __restrict__ p, const float* __restrict__ q,
                                   long long n) {
    float a[EPT], b[EPT];
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
        a[j] = KL_AT(j) < n ? p[KL_AT(j)] : 0.f;
        b[j] = KL_AT(j) < n ? q[KL_AT(j)] : 0.f;
    }
#pragma unroll
    for (int j = 0; j < EPT; ++j)
        if (KL_AT(j) < n) out[KL_AT(j)] = a[j] + b[j];
}
