// Rung 2 of the transpose ladder: the same copy, threads walking down columns.
//
// What changes from rung 1: only which index a thread's position picks. Neighbouring threads
// now take neighbouring *rows* of one column, so the addresses of a warp are `cols * 4` bytes
// apart: 32 different sectors per load, of which the warp uses 4 bytes each.
// Why it is slower: every warp request now costs 32 sector transactions instead of 4, an 8x
// larger load on L1 and L2. The unused bytes of each sector may still be used by other
// warps if the line survives in L2 until they come, which is why DRAM traffic can stay close
// to ideal while time does not: the bottleneck moves from DRAM to the number of transactions.
// What to see: several times the time of rung 1 for the very same bytes; in the traffic plot,
// L2 sectors per request jump from 4 to 32.
//
// Each thread copies EPT elements of its row, from EPT consecutive columns, loads first, as
// in rung 1: the two rungs differ only in which index follows the thread.
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
    copy_col_walk(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    const int row = blockIdx.x * TPB + threadIdx.x;  // consecutive threads: consecutive rows
    if (row >= rows) return;
    for (int col0 = blockIdx.y * EPT; col0 < cols; col0 += gridDim.y * EPT) {
        float v[EPT];
#pragma unroll
        for (int k = 0; k < EPT; ++k)
            if (col0 + k < cols) v[k] = in[(size_t)row * cols + col0 + k];  // stride `cols` across the warp
#pragma unroll
        for (int k = 0; k < EPT; ++k)
            if (col0 + k < cols) out[(size_t)row * cols + col0 + k] = v[k];
    }
}
