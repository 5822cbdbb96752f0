// Rung 4 of the transpose ladder: stage a TILE x TILE tile in shared memory.
//
// What changes from rung 3: a block first copies a tile of the input into shared memory with
// threads walking along its rows (coalesced loads), waits, then writes the tile's *columns*
// out, again with threads walking along a row of the output (coalesced stores). The turn
// happens in shared memory, where any access pattern is cheap compared with DRAM... almost.
// Why it is faster: both global sides are now coalesced; only 2 * rows * cols * 4 bytes move
// and each warp request touches the fewest sectors possible.
// What to see: a large step towards the copy line. Not all the way: reading a column of the
// tile, tile[tx][ty], puts all 32 threads of a warp in the same shared-memory bank (the row
// pitch, TILE floats, is a multiple of the 32 banks), so each such read is replayed up to 32
// times. The profiler's shared-memory bank-conflict counter shows it; rung 5 removes it.
//
// Block: TILE x ROWS_PER_PASS threads; each thread handles TILE / ROWS_PER_PASS elements.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#if !defined(ELEM_IS_FP32)
#error "the transpose ladder is written for fp32: compile with -DELEM=float -DELEM_IS_FP32=1"
#endif
#ifndef TILE
#define TILE 32
#endif
#ifndef ROWS_PER_PASS
#define ROWS_PER_PASS 8
#endif
static_assert(TILE == 16 || TILE == 32, "TILE must be 16 or 32");
static_assert(TILE % ROWS_PER_PASS == 0,
              "ROWS_PER_PASS must divide TILE: each thread handles TILE / ROWS_PER_PASS rows");

extern "C" __global__ void __launch_bounds__(TILE* ROWS_PER_PASS)
    transpose_smem(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    __shared__ float tile[TILE][TILE];  // no padding: column reads conflict (see above)

    const int tile_row0 = blockIdx.y * TILE;  // first input row of this tile
    const int tile_col0 = blockIdx.x * TILE;  // first input column of this tile
    const int tx = threadIdx.x, ty = threadIdx.y;

    // Load: threads walk along input rows (coalesced).
    const int in_col = tile_col0 + tx;
#pragma unroll
    for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
        const int k = pass + ty;
        const int in_row = tile_row0 + k;
        if (in_row < rows && in_col < cols) tile[k][tx] = in[(size_t)in_row * cols + in_col];
    }
    __syncthreads();

    // Store: output row = input column. Threads walk along output rows (coalesced), reading
    // a column of the tile.
    const int out_col = tile_row0 + tx;  // = input row
#pragma unroll
    for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
        const int k = pass + ty;
        const int out_row = tile_col0 + k;  // = input column
        if (out_row < cols && out_col < rows) out[(size_t)out_row * rows + out_col] = tile[tx][k];
    }
}
