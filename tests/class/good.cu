// Test learner for `kladder submit` (tests/cli/class_gpu.sh): a good vector add. Thread t of a block
// handles elements t, t + TPB, ... of the block's TPB * EPT, so every warp reads whole lines and
// each thread keeps EPT loads in flight. Correct, accepted, ranked above slow.cu.
#include "kl_common.cuh"

extern "C" __global__ void vector_add(ELEM* __restrict__ c, const ELEM* __restrict__ a, const ELEM* __restrict__ b,
                                      long long n) {
    const long long base = (long long)blockIdx.x * (TPB * EPT) + threadIdx.x;
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
        const long long i = base + (long long)j * TPB;
        if (i < n) c[i] = kl_from_float<ELEM>(kl_to_float(a[i]) + kl_to_float(b[i]));
    }
}
