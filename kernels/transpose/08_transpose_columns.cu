// Rung 8 of the transpose ladder: the wide tile, with the blocks taken down the columns.
//
// What changes from rung 7: only the order in which blocks take tiles (this file includes rung
// 7's and calls its tile move, transpose_wide_tile, unchanged). The grid is one line of
// blocks; block b takes tile row b % (tiles down) of tile column b / (tiles down), so blocks that
// run at the same time hold tiles stacked in one column of the input (COLUMN_ORDER = 1), instead
// of tiles side by side in one row (COLUMN_ORDER = 0, rung 7's order).
// Why it is faster: a tile column of the input is a band of rows of the output. Blocks stacked
// down one input column write neighbouring 256-byte pieces of the same output rows, so together
// they write long runs of neighbouring addresses; their reads are now the shorter runs
// (neighbouring 64-row bands of the same columns). DRAM serves runs within an open page fastest,
// and on the H200 the writes gained more from long runs than the reads lost
// (docs/tuning/transpose.md has the measurements).
// What to see: at 8192 x 8192 the only change is the order, and the slider COLUMN_ORDER moves
// the rung from rung 7's time to the closest a transpose comes to the copy.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data; 16.6 KB of shared
// memory per block at TILE = 64. As rung 7, tiles that stick out of the matrix or unaligned rows
// take a scalar path through the same tile.

#ifndef COLUMN_ORDER
#define COLUMN_ORDER 1
#endif
#include "07_transpose_wide.cu"  // the tile's move, unchanged: transpose_wide_tile

// One line of blocks over tiles_down x tiles_across tiles; which tile is this block's.
extern "C" __global__ void __launch_bounds__(TX* ROWS_PER_PASS)
    transpose_columns(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    const int tiles_down = (rows + TILE - 1) / TILE, tiles_across = (cols + TILE - 1) / TILE;
    const int tile_down = COLUMN_ORDER ? blockIdx.x % tiles_down : blockIdx.x / tiles_across;
    const int tile_across = COLUMN_ORDER ? blockIdx.x / tiles_down : blockIdx.x % tiles_across;
    transpose_wide_tile(out, in, rows, cols, tile_down * TILE, tile_across * TILE);
}
