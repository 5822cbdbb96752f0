// Rung 1: the backward as autograd runs a LayerNorm written from elementwise operations.
//
// What changes: nothing is fused. Five kernels, each a framework operation: xhat = (s - mean) *
// rstd (from the statistics the forward saved), g = dy * w, the two row sums of g and g * xhat,
// dx from those, and the column sums dgamma = sum(dy * xhat), dbeta = sum(dy). xhat and g go
// through DRAM in fp32, as autograd keeps them.
// Why it is slow: the work needs 3 passes over rows x cols (read s and dy, write dx); this rung
// makes 4 storage-type passes and 7 fp32 ones (write xhat, write g, read both twice, read xhat
// once more for dgamma), besides four launches that wait for each other.
// What to see: the time against the floor in the docs (docs/tuning/layernorm_backward.md), and in
// the traffic plot, the fp32 intermediates as most of the bytes.
// What it needs: nothing past sm_50; scratch of 2 x rows x cols fp32 (xhat and g).
#include "lnb_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");

extern "C" __global__ void __launch_bounds__(TPB)
    lnb_xhat(float* __restrict__ xhat, const ELEM* __restrict__ s, const float* __restrict__ mean,
             const float* __restrict__ rstd, long long n, int cols) {
    const long long i = (long long)blockIdx.x * TPB + threadIdx.x;
    if (i >= n) return;
    const long long row = i / cols;
    xhat[i] = (kl_to_float(s[i]) - (RMS ? 0.f : mean[row])) * rstd[row];
}

extern "C" __global__ void __launch_bounds__(TPB)
    lnb_grad_in(float* __restrict__ g, const ELEM* __restrict__ dy, const ELEM* __restrict__ w, long long n, int cols) {
    const long long i = (long long)blockIdx.x * TPB + threadIdx.x;
    if (i < n) g[i] = kl_to_float(dy[i]) * kl_to_float(w[i % cols]);
}

// One block per row: sum(g) and sum(g * xhat).
extern "C" __global__ void __launch_bounds__(TPB)
    lnb_row_sums(float2* __restrict__ sums, const float* __restrict__ g, const float* __restrict__ xhat, int cols) {
    __shared__ float2 sh[32];
    const long long o = (long long)blockIdx.x * cols;
    float2 acc = make_float2(0.f, 0.f);
    for (int c = threadIdx.x; c < cols; c += TPB) {
        acc.x += g[o + c];
        acc.y += g[o + c] * xhat[o + c];
    }
    acc = lnb_block_sum2(acc, sh, TPB);
    if (threadIdx.x == 0) sums[blockIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(TPB)
    lnb_dx(ELEM* __restrict__ dx, const float* __restrict__ g, const float* __restrict__ xhat,
           const float2* __restrict__ sums, const float* __restrict__ rstd, long long n, int cols) {
    const long long i = (long long)blockIdx.x * TPB + threadIdx.x;
    if (i >= n) return;
    const long long row = i / cols;
    const float2 m = sums[row];
    const float a = RMS ? 0.f : m.x / cols, b = m.y / cols;
    dx[i] = kl_from_float<ELEM>(rstd[row] * (g[i] - a - xhat[i] * b));
}

// dgamma and dbeta: column sums over all rows (lnb_common.cuh), xhat read back from DRAM.
extern "C" __global__ void __launch_bounds__(32 * LNB_COL_WARPS)
    lnb_col_sums(ELEM* __restrict__ dgamma, ELEM* __restrict__ dbeta, const ELEM* __restrict__ dy,
                 const float* __restrict__ xhat, long long rows, int cols) {
    lnb_column_sums(dgamma, dbeta, rows, cols, [&](long long r, int c) {
        const long long i = r * cols + c;
        const float d = kl_to_float(dy[i]);
        return make_float2(d * xhat[i], d);
    });
}
