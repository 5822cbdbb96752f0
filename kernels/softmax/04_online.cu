// Rung 4 of the softmax ladder: online softmax, max and sum in one pass.
//
// What changes from rung 3: phases 1 and 2 merge. Each thread keeps a running maximum m and
// a running sum s of exp(x - m). When a new x exceeds m, the sum so far was scaled for the
// old maximum, so it is rescaled: s = s * exp(m - x) + 1, m = x; otherwise s += exp(x - m).
// Either way one exp per element, as before. Partial results (m_i, s_i) of different threads
// combine as M = max m_i, S = sum s_i exp(m_i - M): the block takes the max of the m's
// (shuffles, then one value per warp), each thread rescales its own s to M with one exp, and
// the rescaled sums are added (shuffles again). Merging the pairs two at a time instead,
// m = max(m1, m2), s = s1 exp(m1 - m) + s2 exp(m2 - m), is correct too, but costs two exps at
// every step of the tree on every thread: with one block per row of 1,024 floats those exps
// outnumbered the row's own, and this rung ran a quarter slower than rung 3 (H100, 32768 x
// 1024); combined as above it is level with rung 3 there.
// Why it is faster: the row is read twice (stats, then output) instead of three times. When a
// row is larger than the cache can hold while its block works on it, each avoided read is an
// avoided DRAM read; for short rows the avoided read was an L2 hit, and the gain is small.
// One catch: the update is a chain. Each element's step needs the (m, s) of the step before,
// and an exp takes tens of cycles, so a thread updating element by element spends its time
// waiting on its own previous exp (and keeps one load in flight). So each thread folds UNROLL
// elements per step (x[c], x[c + TPB], ..., 4 by default): UNROLL independent loads, their
// max, one rescale, UNROLL independent exps.
// What to see: at n = 4,096 no gain over rung 3, even a small loss: the saved read was an L2
// hit, and the online update costs more instructions per element. At long rows (8,192 and
// up, 65,537 most) the saved read is a DRAM read and rung 4 wins clearly. UNROLL = 1 vs 4
// changed little on an H100 (the compiler overlaps the loads anyway). The same update is the
// heart of FlashAttention, which never sees a whole row at once.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data.

// Storage: ELEM (fp32, bf16 or fp16); every value is converted to float on load, the statistics
// and the output are computed in float and the output rounded once to ELEM on store.
#include "kl_common.cuh"
#ifndef TPB
#define TPB 256
#endif
#ifndef UNROLL
#define UNROLL 4
#endif
static_assert(TPB >= 32 && TPB <= 1024 && (TPB % 32) == 0, "TPB must be whole warps, 32..1024");
static_assert(UNROLL == 1 || UNROLL == 2 || UNROLL == 4 || UNROLL == 8, "UNROLL must be 1, 2, 4 or 8");

#define NEG_INF __int_as_float(0xff800000)
#define LOG2E 1.4426950408889634f
#define WARPS (TPB / 32)

// exp(a - b) for a <= b, with the -inf - -inf case (both empty) defined as 0, not NaN.
__device__ __forceinline__ float exp_below(float a, float b) { return (b == NEG_INF) ? 0.f : exp2f((a - b) * LOG2E); }

// Running (max, sum) pair: sum is the sum of exp(x - max) over the elements seen.
struct MaxSum {
    float m, s;
};

__device__ __forceinline__ MaxSum add_element(MaxSum acc, float x) {
    if (x > acc.m) return {x, acc.s * exp_below(acc.m, x) + 1.f};  // new max: rescale
    return {acc.m, acc.s + exp_below(x, acc.m)};
}

// Fold UNROLL elements in one step: one rescale of the old sum, UNROLL independent exps.
__device__ __forceinline__ MaxSum add_elements(MaxSum acc, const float (&v)[UNROLL]) {
    float m = acc.m;
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) m = fmaxf(m, v[k]);
    float s = acc.s * exp_below(acc.m, m);
    const float base = (m == NEG_INF) ? 0.f : m;  // all -inf so far: every exp is 0
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) s += exp2f((v[k] - base) * LOG2E);
    return {m, s};
}

__device__ __forceinline__ float warp_max(float v) {
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, lane_mask));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v += __shfl_xor_sync(0xffffffffu, v, lane_mask);
    return v;
}

// Every lane's (m, s) -> the warp's (M, S): max first, then one exp per lane, then a sum.
__device__ __forceinline__ MaxSum warp_combine(MaxSum a) {
    const float m = warp_max(a.m);
    return {m, warp_sum(a.s * exp_below(a.m, m))};
}

extern "C" __global__ void __launch_bounds__(TPB)
    softmax_online(ELEM* __restrict__ out, const ELEM* __restrict__ in, int rows, int cols) {
    __shared__ MaxSum warp_stats[WARPS];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const ELEM* x = in + (size_t)blockIdx.x * cols;
    ELEM* y = out + (size_t)blockIdx.x * cols;

    // Pass 1: running max and sum in one sweep over the row.
    MaxSum acc = {NEG_INF, 0.f};
    int c = threadIdx.x;
    for (; c + (UNROLL - 1) * TPB < cols; c += UNROLL * TPB) {
        float v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; ++k) v[k] = kl_to_float(x[c + k * TPB]);  // independent loads
        acc = add_elements(acc, v);
    }
    for (; c < cols; c += TPB) acc = add_element(acc, kl_to_float(x[c]));  // the last few

    // Combine: inside each warp, then across the WARPS warp results. For the second step
    // each warp redoes the same small combine (lane w takes warp w's pair), which needs no
    // second barrier.
    acc = warp_combine(acc);
    if (lane == 0) warp_stats[warp] = acc;
    __syncthreads();
    acc = warp_combine(lane < WARPS ? warp_stats[lane] : MaxSum{NEG_INF, 0.f});

    const float m = (acc.m == NEG_INF) ? 0.f : acc.m;  // all -inf row: all zeros
    const float inv = (acc.s > 0.f) ? 1.f / acc.s : 0.f;

    // Pass 2: normalized output.
    for (int c = threadIdx.x; c < cols; c += TPB)
        y[c] = kl_from_float<ELEM>(exp2f((kl_to_float(x[c]) - m) * LOG2E) * inv);
}
