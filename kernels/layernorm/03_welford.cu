// Rung 3: one-pass statistics with Welford's algorithm.
//
// What changes from rung 2: the mean and the variance come out of the first pass: each thread keeps
// a running (count, mean, M2) as it adds x and r, and the block merges the 32 x (TPB / 32) partial
// states with Chan's formula (ln_common.cuh), which, unlike E[s^2] - E[s]^2, does not cancel when
// the mean is large (row 1 of the inputs has mean 32). RMSNorm needs only the sum of squares, so
// RMS = 1 keeps a plain sum.
// Why it is faster: rung 2 reads s three times; here one pass is left over s from L2, for y, and
// one block reduction fewer.
// What to see: a little faster than rung 2; DRAM traffic is the same 4 passes.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data.
#include "ln_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");

extern "C" __global__ void __launch_bounds__(TPB)
    ln_welford(ELEM* __restrict__ s, ELEM* __restrict__ y, const ELEM* __restrict__ x, const ELEM* __restrict__ r,
               const ELEM* __restrict__ w, const ELEM* __restrict__ b, int cols) {
    __shared__ LnWelford sh_w[33];
    __shared__ float sh[32];
    const long long o = (long long)blockIdx.x * cols;
    LnWelford st{0.f, 0.f, 0.f};
    float sq = 0.f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        const float v = ln_residual(x[o + c], r[o + c]);
        s[o + c] = kl_from_float<ELEM>(v);
        if (RMS)
            sq += v * v;
        else
            ln_welford_add(st, v);
    }
    float mean = 0.f, var;
    if (RMS) {
        var = ln_block_sum(sq, sh, TPB) / cols;
    } else {
        st = ln_warp_welford(st);  // 32 states -> 1 per warp, then warp 0 merges the warps' states
        if ((threadIdx.x & 31) == 0) sh_w[threadIdx.x >> 5] = st;
        __syncthreads();
        if (threadIdx.x < 32) {
            LnWelford part = threadIdx.x < TPB / 32 ? sh_w[threadIdx.x] : LnWelford{0.f, 0.f, 0.f};
            part = ln_warp_welford(part);
            if (threadIdx.x == 0) sh_w[32] = part;
        }
        __syncthreads();
        const LnWelford all = sh_w[32];
        mean = all.mean;
        var = all.m2 / cols;
    }
    const float rstd = rsqrtf(var + LN_EPS);
    for (int c = threadIdx.x; c < cols; c += TPB) {
        const float n = (kl_to_float(s[o + c]) - mean) * rstd * kl_to_float(w[c]);
        y[o + c] = kl_from_float<ELEM>(RMS ? n : n + kl_to_float(b[c]));
    }
}
