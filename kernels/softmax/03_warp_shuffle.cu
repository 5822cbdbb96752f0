// Rung 3 of the softmax ladder: warp-shuffle reductions.
//
// What changes from rung 2: how the TPB partial results of a block are combined. Inside a
// warp, five __shfl_xor_sync steps exchange values register to register (no shared memory,
// no barrier); each warp then leaves one value in shared memory, one barrier, and every
// thread combines the TPB / 32 warp results itself. Two barriers per row instead of
// 2 * (log2(TPB) + 2).
// Why it is faster: a tree over shared memory keeps most threads idle at each of its
// log2(TPB) barrier steps; shuffles do the first five levels inside the warp, with all lanes
// busy and no waiting on other warps. Short rows (n = 256..4096), where the reductions are a
// large share of the work, gain the most.
// What to see: a gain over rung 2 that grows as n shrinks; at large n both are bound by the
// three passes over the row. Rung 4 removes one pass.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data.

// Storage: ELEM (fp32, bf16 or fp16); every value is converted to float on load, the statistics
// and the output are computed in float and the output rounded once to ELEM on store.
#include "kl_common.cuh"
#ifndef TPB
#define TPB 256
#endif
static_assert(TPB >= 32 && TPB <= 1024 && (TPB % 32) == 0, "TPB must be whole warps, 32..1024");

#define NEG_INF __int_as_float(0xff800000)
#define LOG2E 1.4426950408889634f
#define WARPS (TPB / 32)

__device__ __forceinline__ float warp_max(float v) {
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, lane_mask));
    return v;  // butterfly: every lane holds the warp's max
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v += __shfl_xor_sync(0xffffffffu, v, lane_mask);
    return v;
}

extern "C" __global__ void __launch_bounds__(TPB)
    softmax_warp_shuffle(ELEM* __restrict__ out, const ELEM* __restrict__ in, int rows, int cols) {
    __shared__ float warp_maxima[WARPS];  // separate arrays for max and sum: no barrier
    __shared__ float warp_sums[WARPS];    // is needed between the two reductions
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const ELEM* x = in + (size_t)blockIdx.x * cols;
    ELEM* y = out + (size_t)blockIdx.x * cols;

    // Phase 1: row maximum.
    float m = NEG_INF;
    for (int c = threadIdx.x; c < cols; c += TPB) m = fmaxf(m, kl_to_float(x[c]));
    m = warp_max(m);
    if (lane == 0) warp_maxima[warp] = m;
    __syncthreads();
    m = warp_maxima[0];
    for (int w = 1; w < WARPS; ++w) m = fmaxf(m, warp_maxima[w]);  // broadcast reads
    if (m == NEG_INF) m = 0.f;                                     // all -inf row: all zeros, no NaN

    // Phase 2: sum of exp(x - max).
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += TPB) s += exp2f((kl_to_float(x[c]) - m) * LOG2E);
    s = warp_sum(s);
    if (lane == 0) warp_sums[warp] = s;
    __syncthreads();
    s = 0.f;
    for (int w = 0; w < WARPS; ++w) s += warp_sums[w];
    const float inv = (s > 0.f) ? 1.f / s : 0.f;

    // Phase 3: normalized output.
    for (int c = threadIdx.x; c < cols; c += TPB)
        y[c] = kl_from_float<ELEM>(exp2f((kl_to_float(x[c]) - m) * LOG2E) * inv);
}
