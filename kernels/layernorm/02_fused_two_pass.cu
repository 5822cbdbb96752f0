// Rung 2: one kernel, one block per row, two-pass statistics.
//
// What changes from rung 1: the block adds x and r, writes s and sums it (pass 1: mean); reads its
// s back for the squared deviations (pass 2: variance); reads it a third time to write y (pass 3).
// Each thread reads back only the elements it wrote, so no barrier is needed between the passes.
// Why it is faster: the row was just written, so the re-reads come from L2: DRAM sees 4 passes (x,
// r read; s, y written), the minimum, and one launch instead of three.
// What to see: the time drops towards 4/6 of rung 1; L2 still serves three passes over s, which the
// next rungs remove.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data.
#include "ln_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");

extern "C" __global__ void __launch_bounds__(TPB)
    ln_fused_two_pass(ELEM* __restrict__ s, ELEM* __restrict__ y, const ELEM* __restrict__ x,
                      const ELEM* __restrict__ r, const ELEM* __restrict__ w, const ELEM* __restrict__ b, int cols) {
    __shared__ float sh[32];
    const long long o = (long long)blockIdx.x * cols;
    float acc = 0.f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        const float v = ln_residual(x[o + c], r[o + c]);
        s[o + c] = kl_from_float<ELEM>(v);
        acc += v;
    }
    const float mean = RMS ? 0.f : ln_block_sum(acc, sh, TPB) / cols;
    acc = 0.f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        const float d = kl_to_float(s[o + c]) - mean;
        acc += d * d;
    }
    const float rstd = rsqrtf(ln_block_sum(acc, sh, TPB) / cols + LN_EPS);
    for (int c = threadIdx.x; c < cols; c += TPB) {
        const float n = (kl_to_float(s[o + c]) - mean) * rstd * kl_to_float(w[c]);
        y[o + c] = kl_from_float<ELEM>(RMS ? n : n + kl_to_float(b[c]));
    }
}
