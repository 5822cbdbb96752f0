// Engine helpers for the softmax ladder, not rungs.
//
// Inputs are ELEM (fp32, bf16 or fp16), read as stored (converted exactly).
//
// ref_softmax_rows: the reference, in double precision, one block of REF_THREADS threads per
// row (grid-stride over rows): max, sum of exp(x - max), then exp(x - max) / sum rounded once
// to float. A row that is entirely -inf yields zeros, the result this ladder defines.
//
// softmax_special_rows: overwrites a few rows of the input with values that break careless
// kernels, so every run checks them (rows that do not exist are skipped):
//   row 1: all -inf                          -> all zeros (defined; torch gives NaN)
//   row 2: x * 2000, spread over [-1e4, 1e4) -> nearly one-hot; exp(x) alone would overflow
//   row 3: 1e4 + x, a tight cluster far from 0 -> needs the max subtracted before exp
//   row 4: every element 3.25                 -> exactly 1 / cols each
//   row 5: every third element -inf           -> zeros there, the rest renormalized

#include "kl_common.cuh"

#define REF_THREADS 256
#define NEG_INF_D __longlong_as_double(0xfff0000000000000ll)
#define NEG_INF_F __int_as_float(0xff800000)

template <bool IS_MAX>
__device__ double ref_block_reduce(double v, double* scratch) {
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int half = REF_THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half)
            scratch[threadIdx.x] = IS_MAX ? fmax(scratch[threadIdx.x], scratch[threadIdx.x + half])
                                          : scratch[threadIdx.x] + scratch[threadIdx.x + half];
        __syncthreads();
    }
    const double result = scratch[0];
    __syncthreads();
    return result;
}

extern "C" __global__ void __launch_bounds__(REF_THREADS)
    ref_softmax_rows(float* out, const ELEM* in, long long rows, long long cols) {
    __shared__ double scratch[REF_THREADS];
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {  // uniform over the block
        const ELEM* x = in + r * cols;
        float* y = out + r * cols;
        double m = NEG_INF_D;
        for (long long c = threadIdx.x; c < cols; c += REF_THREADS) m = fmax(m, (double)kl_to_float(x[c]));
        m = ref_block_reduce<true>(m, scratch);
        if (m == NEG_INF_D) {
            for (long long c = threadIdx.x; c < cols; c += REF_THREADS) y[c] = 0.f;
            continue;
        }
        double s = 0.0;
        for (long long c = threadIdx.x; c < cols; c += REF_THREADS) s += exp((double)kl_to_float(x[c]) - m);
        s = ref_block_reduce<false>(s, scratch);
        for (long long c = threadIdx.x; c < cols; c += REF_THREADS)
            y[c] = (float)(exp((double)kl_to_float(x[c]) - m) / s);
    }
}

extern "C" __global__ void softmax_special_rows(ELEM* in, long long rows, long long cols) {
    const ELEM neg_inf = kl_from_float<ELEM>(NEG_INF_F);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += stride) {
        if (rows > 1) in[1 * cols + c] = neg_inf;
        if (rows > 2) in[2 * cols + c] = kl_from_float<ELEM>(kl_to_float(in[2 * cols + c]) * 2000.f);
        if (rows > 3) in[3 * cols + c] = kl_from_float<ELEM>(kl_to_float(in[3 * cols + c]) + 1.0e4f);
        if (rows > 4) in[4 * cols + c] = kl_from_float<ELEM>(3.25f);
        if (rows > 5 && c % 3 == 1) in[5 * cols + c] = neg_inf;
    }
}
