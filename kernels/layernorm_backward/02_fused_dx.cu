// Rung 2: dx in one kernel, one block per row, with the row statistics recomputed or read.
//
// What changes from rung 1: xhat, g and their row sums never leave the block. A block walks its
// row of s and dy (from DRAM once, then from L2): it sums g and g * xhat, then writes dx. STATS
// picks where mean and rstd come from: 1 reads the 8 bytes a row the forward saved; 0 recomputes
// them from s, two more passes over the row (mean, then the squared deviations: the exact
// two-pass formula; E[s^2] - E[s]^2 would cancel in row 1, whose mean is 32), and hands them to
// the second kernel in scratch. dgamma and dbeta stay a second kernel (rung 1's column sums, with
// xhat recomputed from s instead of read back): this is the shape of PyTorch's own backward.
// Why it is faster: 5 storage-type passes (dx kernel: read s, dy, write dx; column kernel: read
// s, dy) instead of rung 1's 4 + 7 fp32 ones, and two launches instead of five.
// What to see: STATS = 0 against 1: the extra passes come from L2, not DRAM, so recomputing
// costs time in instructions and barriers, not in bytes.
// What it needs: nothing past sm_50; with STATS = 0, scratch of 2 x rows fp32.
#include "lnb_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");
static_assert(STATS == 0 || STATS == 1, "STATS: 0 recompute, 1 read the saved statistics");

extern "C" __global__ void __launch_bounds__(TPB)
    lnb_fused_dx(ELEM* __restrict__ dx, float* __restrict__ mean_out, float* __restrict__ rstd_out,
                 const ELEM* __restrict__ s, const ELEM* __restrict__ dy, const ELEM* __restrict__ w,
                 const float* __restrict__ mean_in, const float* __restrict__ rstd_in, int cols) {
    __shared__ float sh[32];
    __shared__ float2 sh2[32];
    const long long o = (long long)blockIdx.x * cols;
    float mean = 0.f, rstd;
    if (STATS) {
        if (!RMS) mean = mean_in[blockIdx.x];
        rstd = rstd_in[blockIdx.x];
    } else {
        float acc = 0.f;
        if (!RMS) {
            for (int c = threadIdx.x; c < cols; c += TPB) acc += kl_to_float(s[o + c]);
            mean = lnb_block_sum(acc, sh, TPB) / cols;
            acc = 0.f;
        }
        for (int c = threadIdx.x; c < cols; c += TPB) {
            const float d = kl_to_float(s[o + c]) - mean;
            acc += d * d;
        }
        rstd = rsqrtf(lnb_block_sum(acc, sh, TPB) / cols + LNB_EPS);
        if (threadIdx.x == 0) {
            if (!RMS) mean_out[blockIdx.x] = mean;
            rstd_out[blockIdx.x] = rstd;
        }
    }
    float2 acc = make_float2(0.f, 0.f);
    for (int c = threadIdx.x; c < cols; c += TPB) {
        const float g = kl_to_float(dy[o + c]) * kl_to_float(w[c]);
        acc.x += g;
        acc.y += g * (kl_to_float(s[o + c]) - mean) * rstd;
    }
    acc = lnb_block_sum2(acc, sh2, TPB);
    const float a = RMS ? 0.f : acc.x / cols, b = acc.y / cols;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        const float g = kl_to_float(dy[o + c]) * kl_to_float(w[c]);
        const float xhat = (kl_to_float(s[o + c]) - mean) * rstd;
        dx[o + c] = kl_from_float<ELEM>(rstd * (g - a - xhat * b));
    }
}

// dgamma and dbeta: rung 1's column sums (lnb_common.cuh) with xhat = (s - mean) * rstd computed
// where it is needed, from the statistics the forward saved (STATS = 1) or the first kernel's.
extern "C" __global__ void __launch_bounds__(32 * LNB_COL_WARPS)
    lnb_col_sums_s(ELEM* __restrict__ dgamma, ELEM* __restrict__ dbeta, const ELEM* __restrict__ dy,
                   const ELEM* __restrict__ s, const float* __restrict__ mean, const float* __restrict__ rstd,
                   long long rows, int cols) {
    lnb_column_sums(dgamma, dbeta, rows, cols, [&](long long r, int c) {
        const long long i = r * cols + c;
        const float d = kl_to_float(dy[i]);
        return make_float2(d * (kl_to_float(s[i]) - (RMS ? 0.f : mean[r])) * rstd[r], d);
    });
}
