// Rung 4: rung 3 with dgamma and dbeta reduced in two stages instead of by atomics.
//
// What changes from rung 3: only the end (the main loop is the same, lnb_rowblock.cuh). Each
// block writes its sums of dy * xhat and dy as one row of two fp32 scratch arrays of
// (BPS x SMs) x cols values; a second kernel adds each column of those rows (rung 1's column
// sums, lnb_common.cuh) and rounds to the storage type. No atomics, no zeroing, and the same
// result on every run (the order of the additions is fixed). Both stages live in lnb_rowblock.cuh
// (lnb_store_partial_row, lnb_partial_column_sums): rungs 5 and 7 end the same way.
// Why it should be faster: no contention on L2's atomic units (each address of rung 3 takes
// BPS x SMs atomics), at the price of writing and reading 2 x 4 bytes x grid x cols, which L2
// holds (8 MiB at 4096 columns and 264 blocks); the second kernel is short.
// What to see: against rung 3, which end costs less; the timeline's second kernel.
// What it needs: cols <= TPB * MAXP * 4 (the manifest checks); nothing past sm_50;
// scratch of 2 x grid x cols fp32.
#include "lnb_rowblock.cuh"

extern "C" __global__ void __launch_bounds__(TPB)
    lnb_rowblock_partials(ELEM* __restrict__ dx, float* __restrict__ part_g, float* __restrict__ part_b,
                          const ELEM* __restrict__ s, const ELEM* __restrict__ dy, const ELEM* __restrict__ w,
                          const float* __restrict__ mean, const float* __restrict__ rstd, long long rows, int cols) {
    LnbRegColumns cs;
    const bool vec = lnb_rowblock_rows(dx, s, dy, w, mean, rstd, rows, cols, cs);
    lnb_store_partial_row(part_g, part_b, cs, vec, cols);
}

// dgamma and dbeta: the column sums of the grid's partial rows.
extern "C" __global__ void __launch_bounds__(32 * LNB_COL_WARPS)
    lnb_partial_col_sums(ELEM* __restrict__ dgamma, ELEM* __restrict__ dbeta, const float* __restrict__ part_g,
                         const float* __restrict__ part_b, long long parts, int cols) {
    lnb_partial_column_sums(dgamma, dbeta, part_g, part_b, parts, cols);
}
