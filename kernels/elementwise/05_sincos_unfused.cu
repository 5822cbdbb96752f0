// Rung 5: y = sin(x)^2 + cos(x)^2 as eager PyTorch runs it: five kernels (sin, pow, cos, pow,
// add), the graph the CS336 lecture prints for this expression.
//
// Each kernel reads its operands from DRAM and writes its result back: four unary kernels of
// two accesses and one binary add of three, 11 array accesses per element where a fused
// kernel needs 2. What to see: about 5.5 times the time of rung 6, with every kernel near the
// copy roof on its own. (The answer is 1 for every x; no compiler may use that, and none does.)
#include "kl_common.cuh"

static_assert(TPB % 32 == 0, "threads per block must be a whole number of warps");

#define KL_UNARY(NAME, EXPR)                                                   \
    extern "C" __global__ void NAME(float* out, const float* p, long long n) { \
        long long i = (long long)blockIdx.x * TPB + threadIdx.x;               \
        if (i < n) {                                                           \
            float v = p[i];                                                    \
            out[i] = (EXPR);                                                   \
        }                                                                      \
    }

// No __restrict__: the squares run in place (t0 = t0^2).
KL_UNARY(ew_sin, sinf(v))
KL_UNARY(ew_cos, cosf(v))
KL_UNARY(ew_square, v* v)

extern "C" __global__ void ew_add2(float* __restrict__ out, const float* __restrict__ p, const float* __restrict__ q,
                                   long long n) {
    long long i = (long long)blockIdx.x * TPB + threadIdx.x;
    if (i < n) out[i] = p[i] + q[i];
}
