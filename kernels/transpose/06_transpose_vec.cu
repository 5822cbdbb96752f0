// Rung 6 of the transpose ladder: 16-byte accesses, several elements per thread.
//
// What changes from rung 5: each thread loads a float4 (four neighbouring columns of one
// input row) instead of a float, and stores a float4 (four neighbouring columns of one output
// row, gathered from four rows of the padded tile). The tile stays 32 x 32 with a pitch of 33;
// a block is 8 x ROWS_PER_PASS threads and each thread moves 32 / ROWS_PER_PASS float4 each way.
// Why it is faster: a quarter of the load and store instructions and of the address
// arithmetic for the same bytes; each warp request still covers whole 32-byte sectors
// (8 threads x 16 bytes = one 128-byte row segment, four segments per request).
// Bank check: a warp is 8 (x) by 4 (y) threads. Scattering a float4 into the tile writes
// tile[y + j][4x + i]: bank (y + j + 4x + i) % 32, 32 different banks for each i. Gathering
// reads tile[4x + i][y + j]: bank (4x + i + y + j) % 32, again 32 different banks.
// What to see: on an H100 this rung lands level with rung 5, both about 92% of the copy line
// at 8192 x 8192 (ROWS_PER_PASS = 32 is ~1.5% better than 8). Once the bank conflicts are
// gone, instruction count is not what limits a transpose: a quarter of the memory
// instructions changes little. What costs the last ~7% is not settled here; it is not the
// block order either (renumbering blocks into square patches of tiles, so that both reads
// and writes form longer runs, did not help; see docs/tuning/transpose.md).
// Tiles that stick out of the matrix, or sizes whose rows are not 16-byte aligned (cols or
// rows not a multiple of 4), take a scalar path through the same tile: correct, slower.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#if !defined(ELEM_IS_FP32)
#error "the transpose ladder is written for fp32: compile with -DELEM=float -DELEM_IS_FP32=1"
#endif
#ifndef ROWS_PER_PASS
#define ROWS_PER_PASS 8
#endif
#define TILE 32          // tile edge in elements
#define VEC 4            // elements per 16-byte access
#define TX (TILE / VEC)  // threads across a tile row: 8
static_assert(ROWS_PER_PASS >= 4 && ROWS_PER_PASS <= TILE && TILE % ROWS_PER_PASS == 0,
              "ROWS_PER_PASS must divide 32 and be >= 4 so that a warp spans 4 tile rows "
              "(the bank check above assumes it)");

extern "C" __global__ void __launch_bounds__(TX* ROWS_PER_PASS)
    transpose_vec(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];

    const int tile_row0 = blockIdx.y * TILE;
    const int tile_col0 = blockIdx.x * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;

    // The vector path needs the whole tile inside the matrix and every row start of both
    // matrices 16-byte aligned (row pitches cols and rows multiples of 4, aligned bases).
    // The test is uniform across the block, so the __syncthreads() below are safe.
    const bool aligned_bases =
        ((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) & 15ull) == 0;
    const bool vector_path =
        aligned_bases && (cols % VEC) == 0 && (rows % VEC) == 0 && tile_row0 + TILE <= rows && tile_col0 + TILE <= cols;

    if (vector_path) {
#pragma unroll
        for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
            const int k = pass + ty;
            const float4 v =
                *reinterpret_cast<const float4*>(in + (size_t)(tile_row0 + k) * cols + tile_col0 + VEC * tx);
            tile[k][VEC * tx + 0] = v.x;
            tile[k][VEC * tx + 1] = v.y;
            tile[k][VEC * tx + 2] = v.z;
            tile[k][VEC * tx + 3] = v.w;
        }
        __syncthreads();
#pragma unroll
        for (int pass = 0; pass < TILE; pass += ROWS_PER_PASS) {
            const int k = pass + ty;
            // Output row tile_col0 + k holds input column tile_col0 + k; its four columns
            // 4tx..4tx+3 are input rows 4tx..4tx+3 of the tile.
            float4 v;
            v.x = tile[VEC * tx + 0][k];
            v.y = tile[VEC * tx + 1][k];
            v.z = tile[VEC * tx + 2][k];
            v.w = tile[VEC * tx + 3][k];
            *reinterpret_cast<float4*>(out + (size_t)(tile_col0 + k) * rows + tile_row0 + VEC * tx) = v;
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
