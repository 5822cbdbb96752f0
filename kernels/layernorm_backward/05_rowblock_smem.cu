// Rung 5: rung 4 with w and the block's dgamma and dbeta sums in shared memory, so that more rows
// are in flight per SM.
//
// What changes from rung 4: where a thread keeps w and its sums of dy * xhat and dy: three
// shared-memory arrays (LnbSmemColumns, lnb_rowblock.cuh) instead of registers. The main loop and
// the two-stage end are rung 4's (diff the files: only `LnbSmemColumns` and the shared memory).
// Why it should be faster: in rung 4 each element of the row a thread holds costs 5 registers
// (s, dy, w and the two sums): at 64 registers and 512 threads, 2 blocks fit on an SM, so at most
// 2 rows' loads are in flight per SM, and a block issues nothing while it reduces. Here an
// element costs 2 registers (s and dy): at the defaults (256 threads, 16 elements each) about
// 4 blocks fit by registers and 4 by shared memory (48 KiB each), twice the bytes in flight,
// which the 16-bit types need most (half the bytes per row for the same wait). The price: 6
// shared-memory accesses per element and row (w twice, each sum read and written), well under
// the shared memory's bandwidth at these rates (docs/tuning/layernorm_backward.md).
// What to see: the blocks per SM the occupancy view shows, against rung 4's; the time in bf16.
// What it needs: cols <= TPB * MAXP * 4 (the manifest checks); 12 x TPB x MAXP x 4 bytes of
// shared memory per block (48 KiB at the defaults; above 48 KiB opted into, up to the device's
// per-block limit); scratch of 2 x grid x cols fp32.
#include "lnb_rowblock.cuh"

extern "C" __global__ void __launch_bounds__(TPB)
    lnb_rowblock_smem(ELEM* __restrict__ dx, float* __restrict__ part_g, float* __restrict__ part_b,
                      const ELEM* __restrict__ s, const ELEM* __restrict__ dy, const ELEM* __restrict__ w,
                      const float* __restrict__ mean, const float* __restrict__ rstd, long long rows, int cols) {
    extern __shared__ float lnb_columns[];  // 3 x TPB x MAXP x 4 floats: w, sums of dy * xhat, sums of dy
    LnbSmemColumns cs{lnb_columns, lnb_columns + TPB * MAXP * VEC, lnb_columns + 2 * TPB * MAXP * VEC};
    const bool vec = lnb_rowblock_rows(dx, s, dy, w, mean, rstd, rows, cols, cs);
    lnb_store_partial_row(part_g, part_b, cs, vec, cols);
}

// dgamma and dbeta: the column sums of the grid's partial rows (rung 4's second kernel).
extern "C" __global__ void __launch_bounds__(32 * LNB_COL_WARPS)
    lnb_partial_col_sums(ELEM* __restrict__ dgamma, ELEM* __restrict__ dbeta, const float* __restrict__ part_g,
                         const float* __restrict__ part_b, long long parts, int cols) {
    lnb_partial_column_sums(dgamma, dbeta, part_g, part_b, parts, cols);
}
