// Rung 5 of the transpose ladder: pad the shared tile by one column.
//
// What changes from rung 4: one word. The tile is declared [TILE][TILE + 1]. Shared memory
// has 32 banks of 4 bytes; element [i][j] lives in bank (i * pitch + j) % 32. With a pitch of
// TILE (16 or 32) a column, fixed j and i = 0..31, maps to one or two banks only, so a warp
// reading a column waits for 16 or 32 serialized accesses. With a pitch of TILE + 1 the bank
// is (i + j) % 32 for TILE = 32: a column spreads over all 32 banks, one access per warp.
// Why it is faster: the store phase no longer replays shared-memory reads; the copy of the
// tile through shared memory costs about as much as its load.
// What to see: bank conflicts drop to about zero in the counters; time moves closer to the
// copy line of rung 1. The remaining gap is instruction overhead: one element per load.
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
    transpose_padded(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];  // +1: a column of the tile hits every bank once

    const int tile_row0 = blockIdx.y * TILE;
    const int tile_col0 = blockIdx.x * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;

    const int in_col = tile_col0 + tx;
#pragma unroll
    for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
        const int k = pass + ty;
        const int in_row = tile_row0 + k;
        if (in_row < rows && in_col < cols) tile[k][tx] = in[(size_t)in_row * cols + in_col];
    }
    __syncthreads();

    const int out_col = tile_row0 + tx;
#pragma unroll
    for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
        const int k = pass + ty;
        const int out_row = tile_col0 + k;
        if (out_row < cols && out_col < rows) out[(size_t)out_row * rows + out_col] = tile[tx][k];
    }
}
