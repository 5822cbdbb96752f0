// Test learner for `kladder submit` (tests/cli/class_gpu.sh): a correct vector add written the slow
// way. Each thread handles EPT neighbouring elements, so at each step the 32 threads of a warp touch
// 32 addresses EPT floats apart: the accesses do not coalesce. Correct, accepted, ranked low.
#include "kl_common.cuh"

extern "C" __global__ void vector_add(ELEM* __restrict__ c, const ELEM* __restrict__ a, const ELEM* __restrict__ b,
                                      long long n) {
    const long long first = ((long long)blockIdx.x * TPB + threadIdx.x) * EPT;
    for (int j = 0; j < EPT; ++j) {
        const long long i = first + j;
        if (i < n) c[i] = kl_from_float<ELEM>(kl_to_float(a[i]) + kl_to_float(b[i]));
    }
}
