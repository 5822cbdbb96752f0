// Rung 1: the natural mapping: thread i computes element i, and the branch on i's parity splits
// every warp in two.
//
// What changes: nothing yet; this is the rung the next one is measured against. Element i takes
// one series when i is even and another when i is odd (series.cuh), and thread i handles
// element i, so the 32 lanes of every warp alternate even, odd, even, odd.
// Why it is slow: a warp issues one instruction for all its lanes. When its lanes disagree on a
// branch, the warp runs the even side with the odd lanes masked off, then the odd side with the
// even lanes masked off: every warp pays for both series, each instruction doing work in only
// half its lanes. The loads and stores are perfectly coalesced (4 sectors per request); they are
// not what costs here, the arithmetic is (terms steps per element against 8 bytes).
// What to see: the time against rung 2 (the same arithmetic and bytes), and the counter
// threads_per_inst (active threads per executed warp instruction, 32 when no lane is ever
// masked): it sits near 16 inside the series, a little higher overall for the shared code
// around them.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data; any n (a guard
// stops the last block's threads past the end).
#include "series.cuh"

extern "C" __global__ void branch_lanes(float* __restrict__ y, const float* __restrict__ x, long long n, int terms) {
    const long long i = (long long)blockIdx.x * TPB + threadIdx.x;
    if (i >= n) return;
    const float xi = x[i];
    if ((i & 1) == 0)
        y[i] = kl_series_even(xi, terms);
    else
        y[i] = kl_series_odd(xi, terms);
}
