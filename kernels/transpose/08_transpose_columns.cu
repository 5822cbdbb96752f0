// Rung 8 of the transpose ladder: the wide tile, with the blocks taken down the columns.
//
// What changes from rung 7: only the order in which blocks take tiles. The grid is one line of
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

#if !defined(ELEM_IS_FP32)
#error "the transpose ladder is written for fp32: compile with -DELEM=float -DELEM_IS_FP32=1"
#endif
#ifndef TILE
#define TILE 64
#endif
#ifndef COLUMN_ORDER
#define COLUMN_ORDER 1
#endif
#ifndef ROWS_PER_PASS
#define ROWS_PER_PASS 8
#endif
#define VEC 4                 // elements per 16-byte access
#define TX 8                  // threads across 32 columns of the tile
#define SEGMENTS (TILE / 32)  // 128-byte segments per tile row
static_assert(TILE == 32 || TILE == 64, "TILE must be 32 or 64");
static_assert(ROWS_PER_PASS >= 4 && ROWS_PER_PASS <= TILE && TILE % ROWS_PER_PASS == 0,
              "ROWS_PER_PASS must divide TILE and be >= 4 so that a warp spans 4 tile rows "
              "(the bank check above assumes it)");

extern "C" __global__ void __launch_bounds__(TX* ROWS_PER_PASS)
    transpose_columns(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];

    // One line of blocks over tiles_down x tiles_across tiles; which tile is this block's.
    const int tiles_down = (rows + TILE - 1) / TILE, tiles_across = (cols + TILE - 1) / TILE;
    const int tile_down = COLUMN_ORDER ? blockIdx.x % tiles_down : blockIdx.x / tiles_across;
    const int tile_across = COLUMN_ORDER ? blockIdx.x / tiles_down : blockIdx.x % tiles_across;
    const int tile_row0 = tile_down * TILE;
    const int tile_col0 = tile_across * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;

    // As rungs 6 and 7: the vector path needs the whole tile inside the matrix and 16-byte aligned row
    // starts in both matrices. Uniform across the block, so the __syncthreads() are safe.
    const bool aligned_bases =
        ((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15ull) == 0;
    const bool vector_path =
        aligned_bases && (cols % VEC) == 0 && (rows % VEC) == 0 && tile_row0 + TILE <= rows && tile_col0 + TILE <= cols;

    if (vector_path) {
        // Every load of the tile is issued before the first shared-memory store, so a thread has
        // (TILE / ROWS_PER_PASS) x SEGMENTS float4 in flight.
        float4 v[TILE / ROWS_PER_PASS][SEGMENTS];
#pragma unroll
        for (int p = 0; p < TILE / ROWS_PER_PASS; ++p)
#pragma unroll
            for (int s = 0; s < SEGMENTS; ++s) {
                const int k = p * ROWS_PER_PASS + ty;
                v[p][s] = *reinterpret_cast<const float4*>(in + (size_t)(tile_row0 + k) * cols + tile_col0 + 32 * s +
                                                           VEC * tx);
            }
#pragma unroll
        for (int p = 0; p < TILE / ROWS_PER_PASS; ++p)
#pragma unroll
            for (int s = 0; s < SEGMENTS; ++s) {
                const int k = p * ROWS_PER_PASS + ty, c = 32 * s + VEC * tx;
                tile[k][c + 0] = v[p][s].x;
                tile[k][c + 1] = v[p][s].y;
                tile[k][c + 2] = v[p][s].z;
                tile[k][c + 3] = v[p][s].w;
            }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < TILE / ROWS_PER_PASS; ++p)
#pragma unroll
            for (int s = 0; s < SEGMENTS; ++s) {
                // Output row tile_col0 + k holds input column tile_col0 + k; its four columns
                // r..r+3 are input rows r..r+3 of the tile.
                const int k = p * ROWS_PER_PASS + ty, r = 32 * s + VEC * tx;
                const float4 w = make_float4(tile[r + 0][k], tile[r + 1][k], tile[r + 2][k], tile[r + 3][k]);
                *reinterpret_cast<float4*>(out + (size_t)(tile_col0 + k) * rows + tile_row0 + r) = w;
            }
    } else {
        // Scalar path: the block's threads walk the tile as a flat range of elements.
        const int thread = ty * TX + tx;
        for (int e = thread; e < TILE * TILE; e += TX * ROWS_PER_PASS) {
            const int r = e / TILE, c = e % TILE;  // consecutive threads: along a row
            if (tile_row0 + r < rows && tile_col0 + c < cols)
                tile[r][c] = in[(size_t)(tile_row0 + r) * cols + tile_col0 + c];
        }
        __syncthreads();
        for (int e = thread; e < TILE * TILE; e += TX * ROWS_PER_PASS) {
            const int out_r = e / TILE, out_c = e % TILE;  // output row = input column
            if (tile_col0 + out_r < cols && tile_row0 + out_c < rows)
                out[(size_t)(tile_col0 + out_r) * rows + tile_row0 + out_c] = tile[out_c][out_r];
        }
    }
}
