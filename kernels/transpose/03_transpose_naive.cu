// Rung 3 of the transpose ladder: the naive transpose, out[c][r] = in[r][c].
//
// What changes from rung 1: the index of the store. The input is rows x cols, the output
// cols x rows. Threads walk along a row of the input, so the loads coalesce exactly as in
// rung 1, but consecutive columns of the input are consecutive *rows* of the output: the
// stores of a warp land `rows * 4` bytes apart, the column walk of rung 2 on one side.
// Why it is no faster than that: a transpose cannot be coalesced on both sides by choosing
// which thread takes which element; one side always walks a column.
// What to see: about as slow as rung 2, although only one side is strided: one uncoalesced
// side is enough to lose most of the bandwidth.
// Like rung 1, each thread handles EPT rows, loads first.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#if !defined(ELEM_IS_FP32)
#error "the transpose ladder is written for fp32: compile with -DELEM=float -DELEM_IS_FP32=1"
#endif
#ifndef TPB
#define TPB 256
#endif
#ifndef EPT
#define EPT 4
#endif
static_assert(EPT >= 1 && EPT <= 8, "EPT (elements each thread copies) must be 1..8");
static_assert(TPB >= 32 && TPB <= 1024 && (TPB % 32) == 0, "TPB must be whole warps, 32..1024");

extern "C" __global__ void __launch_bounds__(TPB)
    transpose_naive(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    const int col = blockIdx.x * TPB + threadIdx.x;
    if (col >= cols) return;
    for (int row0 = blockIdx.y * EPT; row0 < rows; row0 += gridDim.y * EPT) {
        float v[EPT];
#pragma unroll
        for (int k = 0; k < EPT; ++k)
            if (row0 + k < rows) v[k] = in[(size_t)(row0 + k) * cols + col];  // coalesced: along a row
#pragma unroll
        for (int k = 0; k < EPT; ++k)
            if (row0 + k < rows) out[(size_t)col * rows + row0 + k] = v[k];  // strided: down a column of out
    }
}
