// Rung 1 of the transpose ladder: copy a rows x cols matrix, threads walking along rows.
//
// What changes: nothing yet; this is the baseline. out[r][c] = in[r][c] for a row-major matrix.
// Neighbouring threads of a warp take neighbouring columns of the same row, so the 32 loads
// of a warp touch 128 consecutive bytes: four 32-byte sectors, every byte of them used.
// Why it is fast: the memory system moves whole sectors; a coalesced warp wastes none of them.
// What to see: GB/s close to the measured copy bandwidth of the device. Every later rung is
// judged against this number, because a transpose moves exactly the same bytes as a copy.
//
// Grid: x covers the columns in blocks of TPB threads; y walks the rows (grid-stride loop,
// because the y dimension of a grid is limited to 65535 blocks).

#if !defined(ELEM_IS_FP32)
#error "the transpose ladder is written for fp32: compile with -DELEM=float -DELEM_IS_FP32=1"
#endif
#ifndef TPB
#define TPB 256
#endif
static_assert(TPB >= 32 && TPB <= 1024 && (TPB % 32) == 0, "TPB must be whole warps, 32..1024");

extern "C" __global__ void __launch_bounds__(TPB)
copy_row_walk(float* __restrict__ out, const float* __restrict__ in, int rows, int cols)
{
    const int col = blockIdx.x * TPB + threadIdx.x;    // consecutive threads: consecutive columns
    if (col >= cols) return;
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const size_t at = (size_t)row * cols + col;     // stride 1 across the warp: coalesced
        out[at] = in[at];
    }
}
