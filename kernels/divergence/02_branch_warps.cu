// Rung 2: the same branch, with the threads remapped so that every warp takes one side only.
//
// What changes from rung 1: only which element a thread handles. A block still covers TPB
// consecutive elements, but its first TPB/64 warps take the block's even elements and the rest
// its odd ones: lane l of the s-th even warp handles element 2 (32 s + l), of the s-th odd warp
// element 2 (32 s + l) + 1. The branch, the series and the outputs are rung 1's.
// Why it is faster: the test (i & 1) now gives the same answer in all 32 lanes of a warp, so no
// warp diverges: each runs one series with every lane active, and the GPU issues about half the
// warp instructions of rung 1 for the same elements.
// What it costs: the access pattern. A warp's 32 lanes now read every other float of a 256-byte
// span: 8 sectors per request instead of 4, half of each sector unused by that warp. The odd
// warps of the same block read the other halves of the same sectors (from L1, or L2), and their
// stores fill the other halves in L2, so DRAM still sees each byte once; L1 and L2 handle twice
// the sectors. The series make the kernel compute-bound (terms steps per element against 8
// bytes), so that costs little here; on a memory-bound kernel the same remap would not pay.
// What to see: the time against rung 1; threads_per_inst near 32 (no masked lanes); sectors per
// request 8 for loads and stores against rung 1's 4, with DRAM bytes unchanged.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data; TPB a multiple of 64
// (an even number of warps, half for each side: the manifest's constraint); any n.
#include "series.cuh"

extern "C" __global__ void branch_warps(float* __restrict__ y, const float* __restrict__ x, long long n, int terms) {
    constexpr int kHalfWarps = TPB / 64;  // warps per side
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int odd = warp >= kHalfWarps ? 1 : 0;  // the same in every lane of a warp
    const int slot = (warp - odd * kHalfWarps) * 32 + lane;
    const long long i = (long long)blockIdx.x * TPB + 2 * slot + odd;
    if (i >= n) return;
    const float xi = x[i];
    if ((i & 1) == 0)
        y[i] = kl_series_even(xi, terms);
    else
        y[i] = kl_series_odd(xi, terms);
}
