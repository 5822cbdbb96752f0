// Reference solution of lesson 3's transpose exercise (`kladder solution 03_coalescing/9`).
// A TILE x TILE tile of `in` is read along its rows (coalesced), turned in shared memory, and
// written along the rows of `out` (coalesced again). The tile's pitch is TILE + 1 words, so that
// the column a warp reads in the second phase falls in 32 different banks: without it every such
// read is a 32-way bank conflict, which is what keeps the transpose_smem rung short of the copy.
// Each thread handles TILE / ROWS_PER_PASS rows of the tile; every access is guarded, because
// the last tile of each edge is partial at odd sizes.
#include "kl_common.cuh"

extern "C" __global__ void __launch_bounds__(TILE* ROWS_PER_PASS)
    transpose_smem(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    const int tile_row0 = blockIdx.y * TILE, tile_col0 = blockIdx.x * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;

    const int in_col = tile_col0 + tx;
    for (int k = ty; k < TILE; k += ROWS_PER_PASS) {
        const int in_row = tile_row0 + k;
        if (in_row < rows && in_col < cols) tile[k][tx] = in[(size_t)in_row * cols + in_col];
    }
    __syncthreads();

    const int out_col = tile_row0 + tx;  // out is cols x rows: its columns are in's rows
    for (int k = ty; k < TILE; k += ROWS_PER_PASS) {
        const int out_row = tile_col0 + k;
        if (out_row < cols && out_col < rows) out[(size_t)out_row * rows + out_col] = tile[tx][k];
    }
}
