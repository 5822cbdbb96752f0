// Rung 7 of the transpose ladder: a 64 x 64 tile, so both sides move runs of 256 bytes.
//
// What changes from rung 6: the tile's edge doubles (TILE = 64 by default; 32 gives rung 6's
// tile). A warp is still 8 (x) by 4 (y) threads moving float4, but a thread now moves one float4
// per 32 columns of the tile, so one input row of the tile is two neighbouring 128-byte segments
// read by the same block at the same time, and one output row is two neighbouring segments
// written together. The pitch stays the tile's edge + 1.
// Why it is faster: DRAM serves long runs of neighbouring addresses best. With a 32 x 32 tile
// the blocks running together read neighbouring segments of the same input rows, but each writes
// its own 32 output rows, 128 bytes to each, far from any other block's. A 64 x 64 tile doubles
// every run on the write side (and on the read side), and each block keeps 16 KB in flight
// instead of 4 KB, so fewer blocks are needed to cover DRAM's latency.
// Bank check (pitch TILE + 1, which is 1 modulo 32): writing tile[y + j][32h + 4x + i] hits bank
// (y + j + 4x + i) % 32, 32 different banks for each i and h; reading tile[32h + 4x + i][y + j]
// hits (4x + i + y + j) % 32, again 32 different banks.
// What to see: the transpose closest to the copy line at 8192 x 8192; at TILE = 32 it is rung 6
// again, so the TILE slider shows what the longer runs alone are worth.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data; 16.6 KB of shared
// memory per block at TILE = 64. Tiles that stick out of the matrix, or sizes whose rows are not
// 16-byte aligned, take a scalar path through the same tile: correct, slower.

#if !defined(ELEM_IS_FP32)
#error "the transpose ladder is written for fp32: compile with -DELEM=float -DELEM_IS_FP32=1"
#endif
#ifndef TILE
#define TILE 64
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

// One block moves the tile whose top-left input element is (tile_row0, tile_col0). Rung 8
// includes this file and calls it with another choice of tile.
__device__ __forceinline__ void transpose_wide_tile(float* __restrict__ out, const float* __restrict__ in, int rows,
                                                    int cols, int tile_row0, int tile_col0) {
    __shared__ float tile[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;

    // As rung 6: the vector path needs the whole tile inside the matrix and 16-byte aligned row
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

// Blocks are numbered along the rows of tiles, as the launch's grid numbers them.
extern "C" __global__ void __launch_bounds__(TX* ROWS_PER_PASS)
    transpose_wide(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    transpose_wide_tile(out, in, rows, cols, blockIdx.y * TILE, blockIdx.x * TILE);
}
