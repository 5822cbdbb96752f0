// Rung 3: one kernel for dx, dgamma and dbeta: persistent blocks, the row in registers, and each
// block's dgamma and dbeta added into fp32 totals with atomics.
//
// What changes from rung 2: a block no longer owns one row but BPS x SMs-th of them
// (lnb_rowblock.cuh): each thread owns the same columns in every row, so it keeps w, and its
// share of dgamma = sum(dy * xhat) and dbeta = sum(dy) over the block's rows, in registers. The
// row itself is held in registers (16-byte loads in fp32, 8-byte in 16 bits), so the block reads
// s and dy once and writes dx once: the column kernel of rungs 1 and 2, which read s and dy a
// second time, is gone. At the end each thread adds its sums into two fp32 arrays of cols values
// with atomicAdd (grid x cols atomics each, done by L2's atomic units); a last small kernel
// rounds them to the storage type and sets them back to zero for the next run (scratch starts
// zeroed: docs/formats.md, "Graphs").
// Why it is faster: 3 passes over rows x cols, the floor, where rung 2 makes 5.
// What to see: the time against the floor's (docs/tuning/layernorm_backward.md); against rung 4,
// what the atomics cost: 2 x BPS x SMs x cols of them; at BPS = 1 half as many.
// What it needs: cols <= TPB * MAXP * 4 (the manifest checks); nothing past sm_60 (atomicAdd on
// float in global memory is older still); scratch of 2 x cols fp32.
#include "lnb_rowblock.cuh"

extern "C" __global__ void __launch_bounds__(TPB)
    lnb_rowblock_atomic(ELEM* __restrict__ dx, float* __restrict__ total_g, float* __restrict__ total_b,
                        const ELEM* __restrict__ s, const ELEM* __restrict__ dy, const ELEM* __restrict__ w,
                        const float* __restrict__ mean, const float* __restrict__ rstd, long long rows, int cols) {
    LnbRegColumns cs;
    const bool vec = lnb_rowblock_rows(dx, s, dy, w, mean, rstd, rows, cols, cs);
    lnb_each_column(vec, cols, [&](int c, int j, int k) {
        atomicAdd(total_g + c, cs.sum_g(j, k));
        if (!RMS) atomicAdd(total_b + c, cs.sum_b(j, k));
    });
}

// The totals rounded to the storage type, and zeroed for the next run.
extern "C" __global__ void __launch_bounds__(TPB)
    lnb_finish_totals(ELEM* __restrict__ dgamma, ELEM* __restrict__ dbeta, float* __restrict__ total_g,
                      float* __restrict__ total_b, int cols) {
    const int c = blockIdx.x * TPB + threadIdx.x;
    if (c >= cols) return;
    dgamma[c] = kl_from_float<ELEM>(total_g[c]);
    total_g[c] = 0.f;
    if (!RMS) {
        dbeta[c] = kl_from_float<ELEM>(total_b[c]);
        total_b[c] = 0.f;
    }
}
