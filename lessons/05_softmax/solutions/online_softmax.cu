// Reference solution of lesson 5's online-softmax exercise (`kladder solution 05_softmax/12`).
// Pass 1 keeps, per thread, a running maximum m and a running sum s of exp(x - m). UNROLL
// elements are folded per step (independent loads, their maximum, one rescale of the old sum,
// UNROLL independent exps), because an element-by-element update is a chain of exps that each
// wait for the last. The threads' pairs combine as M = max m_i, S = sum s_i exp(m_i - M): in each
// warp by shuffles, then across the warps through shared memory. Pass 2 writes exp(x - M) / S.
// Non-finite inputs come out as the three-pass formula gives them: fmaxf skips a NaN but its exp
// is NaN, so the sum is; a +inf makes the maximum +inf and exp(inf - inf) NaN. The single-element
// update therefore adds exp(x - x) rather than the constant 1 (NaN when x is +inf), keeps a NaN
// seen before any maximum, and a NaN sum is never turned into a zero reciprocal.
#include "kl_common.cuh"

#define SOLUTION_NEG_INF __int_as_float(0xff800000)
#define SOLUTION_LOG2E 1.4426950408889634f
#define SOLUTION_WARPS (TPB / 32)

struct SolutionMaxSum {
    float m, s;
};

// exp(a - b) for a <= b, with both -inf (nothing seen yet) giving 0 rather than NaN.
__device__ __forceinline__ float solution_exp_below(float a, float b) {
    return (b == SOLUTION_NEG_INF) ? 0.f : exp2f((a - b) * SOLUTION_LOG2E);
}

__device__ __forceinline__ SolutionMaxSum solution_add(SolutionMaxSum acc, float x) {
    if (x > acc.m) return {x, acc.s * solution_exp_below(acc.m, x) + exp2f((x - x) * SOLUTION_LOG2E)};
    return {acc.m, acc.s + (isnan(x) ? x : solution_exp_below(x, acc.m))};  // a NaN is kept even before any max
}

__device__ __forceinline__ SolutionMaxSum solution_add_many(SolutionMaxSum acc, const float (&v)[UNROLL]) {
    float m = acc.m;
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) m = fmaxf(m, v[k]);
    float s = acc.s * solution_exp_below(acc.m, m);
    const float base = (m == SOLUTION_NEG_INF) ? 0.f : m;
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) s += exp2f((v[k] - base) * SOLUTION_LOG2E);
    return {m, s};
}

__device__ __forceinline__ SolutionMaxSum solution_warp_combine(SolutionMaxSum a) {
    float m = a.m;
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, lane_mask));
    float s = a.s * solution_exp_below(a.m, m);
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) s += __shfl_xor_sync(0xffffffffu, s, lane_mask);
    return {m, s};
}

extern "C" __global__ void __launch_bounds__(TPB)
    softmax_online(ELEM* __restrict__ out, const ELEM* __restrict__ in, int rows, int cols) {
    __shared__ SolutionMaxSum warp_stats[SOLUTION_WARPS];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const ELEM* x = in + (size_t)blockIdx.x * cols;
    ELEM* y = out + (size_t)blockIdx.x * cols;

    SolutionMaxSum acc = {SOLUTION_NEG_INF, 0.f};
    int c = threadIdx.x;
    for (; c + (UNROLL - 1) * TPB < cols; c += UNROLL * TPB) {
        float v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) v[k] = kl_to_float(x[c + k * TPB]);
        acc = solution_add_many(acc, v);
    }
    for (; c < cols; c += TPB) acc = solution_add(acc, kl_to_float(x[c]));

    acc = solution_warp_combine(acc);
    if (lane == 0) warp_stats[warp] = acc;
    __syncthreads();
    acc = solution_warp_combine(lane < SOLUTION_WARPS ? warp_stats[lane] : SolutionMaxSum{SOLUTION_NEG_INF, 0.f});

    if (acc.m == SOLUTION_NEG_INF) {  // an all -inf row (NaN aside): all zeros, as the reference defines it
        for (int k = threadIdx.x; k < cols; k += TPB) y[k] = kl_from_float<ELEM>(0.f);
        return;
    }
    const float inv = (acc.s > 0.f) ? 1.f / acc.s : acc.s;  // a NaN sum stays NaN
    for (int k = threadIdx.x; k < cols; k += TPB)
        y[k] = kl_from_float<ELEM>(exp2f((kl_to_float(x[k]) - acc.m) * SOLUTION_LOG2E) * inv);
}
