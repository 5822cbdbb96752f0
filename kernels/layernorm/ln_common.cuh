// Pieces the layernorm rungs share (included from the rung's own folder): the epsilon, the
// rounding of the residual sum to the storage type, warp and block reductions, Welford's merge.
//
// Every rung computes s = x + r in float, rounds it to the storage type, stores it, and
// normalizes the stored value (what a framework's separate add and norm kernels do), so all
// rungs and the reference agree on s bit for bit. RMS = 1 selects RMSNorm:
// y = s / sqrt(mean(s^2) + eps) * w; RMS = 0 LayerNorm: y = (s - mean) / sqrt(var + eps) * w + b.
#pragma once
#include "kl_common.cuh"

#ifndef RMS
#define RMS 0
#endif

#define LN_EPS 1e-5f

// x + r in float, rounded to the storage type and read back: the value every rung normalizes.
__device__ __forceinline__ float ln_residual(ELEM x, ELEM r) {
    return kl_to_float(kl_from_float<ELEM>(kl_to_float(x) + kl_to_float(r)));
}

__device__ __forceinline__ float ln_warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Sum over the block; every thread gets the total. `sh` holds 32 floats; a block of `threads`
// (a multiple of 32) threads. The first barrier lets the block reuse `sh` call after call.
__device__ __forceinline__ float ln_block_sum(float v, float* sh, int threads) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = ln_warp_sum(v);
    __syncthreads();
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = lane < threads / 32 ? sh[lane] : 0.f;
    return ln_warp_sum(v);
}

// Welford's running state: count, mean, sum of squared deviations from the mean (M2).
struct LnWelford {
    float n, mean, m2;
};

__device__ __forceinline__ void ln_welford_add(LnWelford& a, float v) {
    a.n += 1.f;
    const float d = v - a.mean;
    a.mean += d * __frcp_rn(a.n);  // a reciprocal, not a division: n is exact, 1/n rounded once
    a.m2 += d * (v - a.mean);
}

// Chan et al.'s merge of two partial states: exact in exact arithmetic, and no cancellation
// between large sums of squares (the flaw of var = E[s^2] - E[s]^2 in float).
__device__ __forceinline__ LnWelford ln_welford_merge(LnWelford a, LnWelford b) {
    if (a.n == 0.f) return b;  // also keeps a lone state exact (b.n * (1 / b.n) may round below 1)
    if (b.n == 0.f) return a;
    const float n = a.n + b.n;
    const float d = b.mean - a.mean, fb = b.n * __frcp_rn(n);
    return {n, a.mean + d * fb, a.m2 + b.m2 + d * d * a.n * fb};
}

__device__ __forceinline__ LnWelford ln_warp_welford(LnWelford a) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        LnWelford b{__shfl_xor_sync(0xffffffffu, a.n, o), __shfl_xor_sync(0xffffffffu, a.mean, o),
                    __shfl_xor_sync(0xffffffffu, a.m2, o)};
        a = ln_welford_merge(a, b);
    }
    return a;
}
