// Rung 1: vector add, c = a + b. The first kernel of the workbook.
//
// What changes: nothing yet; this is the baseline every later rung is measured against. Each block
// covers TPB * EPT consecutive elements; thread t of the block handles elements t, t + TPB, t +
// 2*TPB, ... so that at every step the 32 threads of a warp touch 32 neighbouring floats (one
// 128-byte line): the accesses coalesce.
// Why it is fast: three arrays stream through DRAM once each, in whole lines; EPT > 1 gives every
// thread several independent loads to keep in flight, which hides DRAM latency with fewer blocks.
// What to see: with TPB = 32 the SMs run out of resident blocks before they run out of warps (too
// few bytes in flight); from TPB = 128 on, the kernel sits near the copy roof.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data.
#include "kl_common.cuh"

static_assert(TPB % 32 == 0, "threads per block must be a whole number of warps");
static_assert(EPT >= 1, "each thread handles at least one element");

extern "C" __global__ void vector_add(ELEM* __restrict__ c, const ELEM* __restrict__ a, const ELEM* __restrict__ b,
                                      long long n) {
    long long base = (long long)blockIdx.x * (TPB * EPT) + threadIdx.x;
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
        long long i = base + (long long)j * TPB;
        if (i < n) c[i] = kl_from_float<ELEM>(kl_to_float(a[i]) + kl_to_float(b[i]));
    }
}
