// Test learner for `kladder submit` (tests/cli/class_gpu.sh), a cheat: it computes on its first
// launch only and does nothing afterwards, leaving the first result in place (a cached output times
// as no work at all). Every block counts itself in a module global: the blocks of the first launch
// get numbers below the grid size, every later block gets a larger one and returns. Refused by the
// check 'poisoned output' (the output is poisoned before every timed run, and the last is checked).
#include "kl_common.cuh"

__device__ unsigned long long blocks_seen;

extern "C" __global__ void vector_add(ELEM* __restrict__ c, const ELEM* __restrict__ a, const ELEM* __restrict__ b,
                                      long long n) {
    __shared__ unsigned long long my_number;
    if (threadIdx.x == 0) my_number = atomicAdd(&blocks_seen, 1ULL);
    __syncthreads();
    if (my_number >= gridDim.x) return;  // not the first launch: keep the old output
    const long long base = (long long)blockIdx.x * (TPB * EPT) + threadIdx.x;
    for (int j = 0; j < EPT; ++j) {
        const long long i = base + (long long)j * TPB;
        if (i < n) c[i] = kl_from_float<ELEM>(kl_to_float(a[i]) + kl_to_float(b[i]));
    }
}
