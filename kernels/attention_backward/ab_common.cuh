// Pieces every attention_backward rung past the naive one shares (included from the rung's own
// folder): the preprocess that computes D_i = rowsum(dO_i * O_i), and the conversion of an fp32
// dQ accumulator to the storage type. The math: app/model/ops/attention_backward_ref.h.
#pragma once
#include "kl_common.cuh"

#define AB_THREADS 256  // threads per block of the preprocess, the conversion and rungs 2-3's kernels

// D_i = dO_i . O_i, a warp per row; with zero_acc the row of the fp32 dQ accumulator is zeroed
// for rung 2's atomics (every run starts from zero: the accumulator is scratch, reused).
__device__ __forceinline__ void ab_preprocess_rows(float* Dv, float* dq_acc, const ELEM* dO, const ELEM* O,
                                                   long long rows, int d, bool zero_acc) {
    const int lane = threadIdx.x % 32;
    const long long r = (long long)blockIdx.x * (AB_THREADS / 32) + threadIdx.x / 32;
    if (r >= rows) return;
    float s = 0.f;
    for (int c = lane; c < d; c += 32) {
        s += kl_to_float(dO[r * d + c]) * kl_to_float(O[r * d + c]);
        if (zero_acc) dq_acc[r * d + c] = 0.f;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) Dv[r] = s;
}

// dQ = the accumulator rounded to the storage type (already scaled by 1 / sqrt(d)); AB_THREADS
// threads per block.
__device__ __forceinline__ void ab_convert_rows(ELEM* dQ, const float* dq_acc, long long n) {
    const long long e = (long long)blockIdx.x * AB_THREADS + threadIdx.x;
    if (e < n) dQ[e] = kl_from_float<ELEM>(dq_acc[e]);
}
