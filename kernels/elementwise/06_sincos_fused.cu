// Rung 6: y = sin(x)^2 + cos(x)^2 fused into one kernel (what torch.compile generates for it).
//
// x is read once, both functions are evaluated in registers and y is written once: 2 array
// accesses per element instead of rung 5's 11, for the same sinf, cosf and three FLOPs. Each
// thread loads its EPT elements before computing (sincosf's argument reduction is a few tens of
// instructions: with one element per thread too few loads would be in flight to cover DRAM's
// latency). What to see: about 5.5 times faster than rung 5, near the copy roof.
#include "kl_common.cuh"

static_assert(TPB % 32 == 0, "threads per block must be a whole number of warps");
static_assert(EPT >= 1 && EPT <= 16, "1 to 16 elements per thread");

#define KL_AT(j) ((long long)blockIdx.x * (TPB * EPT) + threadIdx.x + (long long)(j)*TPB)

extern "C" __global__ void sin2_cos2_fused(float* __restrict__ y, const float* __restrict__ x, long long n) {
    float v[EPT];
#pragma unroll
    for (int j = 0; j < EPT; ++j) v[j] = KL_AT(j) < n ? x[KL_AT(j)] : 0.f;
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
        if (KL_AT(j) < n) {
            float s, c;
            sincosf(v[j], &s, &c);
            y[KL_AT(j)] = s * s + c * c;
        }
    }
}
