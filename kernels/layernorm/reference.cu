// Engine helpers for the layernorm ladder, not rungs.
//
// ref_add_norm: the reference, one block of REF_THREADS threads per row (grid-stride over rows).
// s = x + r in float rounded to ELEM (as every rung stores it; see ln_common.cuh), then the
// statistics of the stored row in double (two passes: mean, then the mean squared deviation),
// and y in double rounded once to float. rms = 1: RMSNorm (no mean, no b).
//
// ln_special_rows: overwrites a few rows of the inputs with values that break careless kernels
// (rows that do not exist are skipped):
//   row 1: r + 32, a mean far from zero: var = E[s^2] - E[s]^2 in float cancels catastrophically
//   row 2: x = 0.25, r = 0.125 everywhere: variance 0, y = b exactly (rsqrt of a negative
//          rounding residue would give NaN)
//   row 3: x * 64, a row with a large spread
#include "kl_common.cuh"

#define REF_THREADS 256

__device__ double ref_block_sum(double v, double* sh) {
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int half = REF_THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half) sh[threadIdx.x] += sh[threadIdx.x + half];
        __syncthreads();
    }
    const double total = sh[0];
    __syncthreads();
    return total;
}

__device__ __forceinline__ double ref_stored_sum(ELEM x, ELEM r) {
    return (double)kl_to_float(kl_from_float<ELEM>(kl_to_float(x) + kl_to_float(r)));
}

extern "C" __global__ void __launch_bounds__(REF_THREADS)
    ref_add_norm(float* ref_s, float* ref_y, const ELEM* x, const ELEM* r, const ELEM* w, const ELEM* b, long long rows,
                 long long cols, int rms) {
    __shared__ double sh[REF_THREADS];
    const double eps = 1e-5;
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {  // uniform over the block
        const long long o = row * cols;
        double sum = 0.0;
        for (long long c = threadIdx.x; c < cols; c += REF_THREADS) sum += ref_stored_sum(x[o + c], r[o + c]);
        const double mean = rms ? 0.0 : ref_block_sum(sum, sh) / (double)cols;
        double sq = 0.0;
        for (long long c = threadIdx.x; c < cols; c += REF_THREADS) {
            const double d = ref_stored_sum(x[o + c], r[o + c]) - mean;
            sq += d * d;
        }
        const double rstd = 1.0 / sqrt(ref_block_sum(sq, sh) / (double)cols + eps);
        for (long long c = threadIdx.x; c < cols; c += REF_THREADS) {
            const double v = ref_stored_sum(x[o + c], r[o + c]);
            ref_s[o + c] = (float)v;
            const double n = (v - mean) * rstd * (double)kl_to_float(w[c]);
            ref_y[o + c] = (float)(rms ? n : n + (double)kl_to_float(b[c]));
        }
    }
}

extern "C" __global__ void ln_special_rows(ELEM* x, ELEM* r, long long rows, long long cols) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += stride) {
        if (rows > 1) r[1 * cols + c] = kl_from_float<ELEM>(kl_to_float(r[1 * cols + c]) + 32.f);
        if (rows > 2) {
            x[2 * cols + c] = kl_from_float<ELEM>(0.25f);
            r[2 * cols + c] = kl_from_float<ELEM>(0.125f);
        }
        if (rows > 3) x[3 * cols + c] = kl_from_float<ELEM>(kl_to_float(x[3 * cols + c]) * 64.f);
    }
}
