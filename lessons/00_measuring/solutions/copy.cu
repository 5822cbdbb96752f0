// Reference solution of lesson 0's copy exercise (`kladder solution 00_measuring/9`).
// Thread x of a block takes one column, so a warp's 32 loads of a row fall on 128 consecutive
// bytes: four whole sectors, nothing wasted. Each thread loads its EPT rows before storing any,
// so EPT requests per thread are in flight at once, which is what it takes to keep enough bytes
// moving to reach the copy line. The grid's y dimension stops at 65535 blocks, so the rows are
// covered by a grid-stride loop; every access is guarded for the partial edges of odd shapes.
#ifndef TPB
#define TPB 256
#endif
#ifndef EPT
#define EPT 4
#endif

extern "C" __global__ void __launch_bounds__(TPB)
    copy_row_walk(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    const int col = blockIdx.x * TPB + threadIdx.x;
    if (col >= cols) return;
    for (int row0 = blockIdx.y * EPT; row0 < rows; row0 += gridDim.y * EPT) {
        float v[EPT];
#pragma unroll
        for (int k = 0; k < EPT; ++k)
            if (row0 + k < rows) v[k] = in[(size_t)(row0 + k) * cols + col];
#pragma unroll
        for (int k = 0; k < EPT; ++k)
            if (row0 + k < rows) out[(size_t)(row0 + k) * cols + col] = v[k];
    }
}
