// Reference solution of lesson 5's reduction exercise (`kladder solution 05_softmax/11`).
// One block per row, three passes over it: the maximum, the sum of exp(x - max), the output.
// Each reduction runs in two levels: inside a warp with register shuffles (a butterfly, so every
// lane ends with the warp's result), then across the TPB / 32 warp results through shared
// memory, read back by every thread. The maxima and the sums use separate shared arrays, so no
// barrier is needed between the two reductions; each has its one __syncthreads().
// fmaxf skips a NaN, but exp(NaN - max) puts it back into the sum, so a row with a NaN comes out
// NaN, as the formula says; a +inf makes max +inf and exp(inf - inf) NaN, likewise. A row whose
// maximum is -inf (every value -inf, NaN aside) is all zeros, as the reference defines it.
#include "kl_common.cuh"

#define SOLUTION_NEG_INF __int_as_float(0xff800000)
#define SOLUTION_LOG2E 1.4426950408889634f
#define SOLUTION_WARPS (TPB / 32)

__device__ __forceinline__ float solution_warp_max(float v) {
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, lane_mask));
    return v;
}

__device__ __forceinline__ float solution_warp_sum(float v) {
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v += __shfl_xor_sync(0xffffffffu, v, lane_mask);
    return v;
}

extern "C" __global__ void __launch_bounds__(TPB)
    softmax_block_smem(ELEM* __restrict__ out, const ELEM* __restrict__ in, int rows, int cols) {
    __shared__ float warp_maxima[SOLUTION_WARPS];
    __shared__ float warp_sums[SOLUTION_WARPS];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const ELEM* x = in + (size_t)blockIdx.x * cols;
    ELEM* y = out + (size_t)blockIdx.x * cols;

    float m = SOLUTION_NEG_INF;
    for (int c = threadIdx.x; c < cols; c += TPB) m = fmaxf(m, kl_to_float(x[c]));
    m = solution_warp_max(m);
    if (lane == 0) warp_maxima[warp] = m;
    __syncthreads();
    m = warp_maxima[0];
    for (int w = 1; w < SOLUTION_WARPS; ++w) m = fmaxf(m, warp_maxima[w]);
    if (m == SOLUTION_NEG_INF) {  // an all -inf row (NaN aside: fmaxf skipped it): all zeros
        for (int c = threadIdx.x; c < cols; c += TPB) y[c] = kl_from_float<ELEM>(0.f);
        return;  // the whole block agrees on m: no thread is left waiting at a barrier
    }

    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += TPB) s += exp2f((kl_to_float(x[c]) - m) * SOLUTION_LOG2E);
    s = solution_warp_sum(s);
    if (lane == 0) warp_sums[warp] = s;
    __syncthreads();
    s = 0.f;
    for (int w = 0; w < SOLUTION_WARPS; ++w) s += warp_sums[w];
    const float inv = (s > 0.f) ? 1.f / s : (s == 0.f ? 0.f : s);  // NaN stays NaN

    for (int c = threadIdx.x; c < cols; c += TPB)
        y[c] = kl_from_float<ELEM>(exp2f((kl_to_float(x[c]) - m) * SOLUTION_LOG2E) * inv);
}
