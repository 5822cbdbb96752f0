// Rung 1: residual add and LayerNorm as a framework runs them without fusion: three kernels.
//
// What changes: nothing yet; this is the baseline. ln_add writes s = x + r (read two arrays, write
// one); ln_row_stats reads s and writes each row's mean and 1/std (two passes over the row, the
// second served by L2); ln_normalize reads s again and writes y.
// Why it is slow: s crosses DRAM three times (written, read for the statistics, read for the
// normalization): 6 passes over a rows x cols array where the work needs 4 (read x and r, write s
// and y), plus three launches.
// What to see: about 4/6 of the copy roof at best.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data; serves
// add_layernorm and, with RMS = 1, add_rmsnorm (rung 01b).
#include "ln_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");

extern "C" __global__ void ln_add(ELEM* __restrict__ s, const ELEM* __restrict__ x, const ELEM* __restrict__ r,
                                  long long n) {
    const long long i = (long long)blockIdx.x * TPB + threadIdx.x;
    if (i < n) s[i] = kl_from_float<ELEM>(kl_to_float(x[i]) + kl_to_float(r[i]));
}

// One block per row: mean, then the mean squared deviation (RMS: mean of squares), into fp32.
extern "C" __global__ void __launch_bounds__(TPB)
    ln_row_stats(float* __restrict__ mean_out, float* __restrict__ rstd_out, const ELEM* __restrict__ s, int cols) {
    __shared__ float sh[32];
    const ELEM* row = s + (long long)blockIdx.x * cols;
    float mean = 0.f;
    if (!RMS) {
        float acc = 0.f;
        for (int c = threadIdx.x; c < cols; c += TPB) acc += kl_to_float(row[c]);
        mean = ln_block_sum(acc, sh, TPB) / cols;
    }
    float acc = 0.f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        const float d = kl_to_float(row[c]) - mean;
        acc += d * d;
    }
    const float var = ln_block_sum(acc, sh, TPB) / cols;
    if (threadIdx.x == 0) {
        mean_out[blockIdx.x] = mean;
        rstd_out[blockIdx.x] = rsqrtf(var + LN_EPS);
    }
}

// y = (s - mean) * rstd * w + b; grid (column blocks, row blocks), rows beyond the grid looped.
extern "C" __global__ void ln_normalize(ELEM* __restrict__ y, const ELEM* __restrict__ s,
                                        const float* __restrict__ mean, const float* __restrict__ rstd,
                                        const ELEM* __restrict__ w, const ELEM* __restrict__ b, int rows, int cols) {
    const int c = blockIdx.x * TPB + threadIdx.x;
    if (c >= cols) return;
    const float wc = kl_to_float(w[c]), bc = RMS ? 0.f : kl_to_float(b[c]);
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const long long i = (long long)row * cols + c;
        y[i] = kl_from_float<ELEM>((kl_to_float(s[i]) - mean[row]) * rstd[row] * wc + bc);
    }
}
