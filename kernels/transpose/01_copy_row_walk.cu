// Rung 1 of the transpose ladder: copy a rows x cols matrix, threads walking along rows.
//
// What changes: nothing yet; this is the baseline. out[r][c] = in[r][c] for a row-major matrix.
// Neighbouring threads of a warp take neighbouring columns of the same row, so the 32 loads
// of a warp touch 128 consecutive bytes: four 32-byte sectors, every byte of them used.
// Why it is fast: the memory system moves whole sectors; a coalesced warp wastes none of them.
// What to see: GB/s close to the measured copy bandwidth of the device. Every later rung is
// judged against this number, because a transpose moves exactly the same bytes as a copy.
//
// Each thread copies EPT elements, one per row, from EPT consecutive rows: it issues all EPT
// loads before the first store, so EPT loads per thread are in flight at once. With one
// element per thread (EPT = 1) a thread waits a full DRAM round trip for 4 bytes and the
// SMs cannot keep enough requests in flight to reach the copy line; try it.
//
// Grid: x covers the columns in blocks of TPB threads; y covers the rows in groups of EPT
// (a grid-stride loop, because the y dimension of a grid is limited to 65535 blocks).
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
    copy_row_walk(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    const int col = blockIdx.x * TPB + threadIdx.x;  // consecutive threads: consecutive columns
    if (col >= cols) return;
    for (int row0 = blockIdx.y * EPT; row0 < rows; row0 += gridDim.y * EPT) {
        float v[EPT];
#pragma unroll
        for (int k = 0; k < EPT; ++k)                                         // all loads first: EPT in flight
            if (row0 + k < rows) v[k] = in[(size_t)(row0 + k) * cols + col];  // stride 1 across the warp
#pragma unroll
        for (int k = 0; k < EPT; ++k)
            if (row0 + k < rows) out[(size_t)(row0 + k) * cols + col] = v[k];
    }
}
