// Test learner for `kladder submit` (tests/cli/class_gpu.sh), a cheat: it writes NaN everywhere
// (SGEMM_CUDA PR #20: NaN results passed a check that compared with NaN). Fast, and refused by the
// check 'correct'.
#include "kl_common.cuh"

extern "C" __global__ void vector_add(ELEM* __restrict__ c, const ELEM* __restrict__ a, const ELEM* __restrict__ b,
                                      long long n) {
    const long long base = (long long)blockIdx.x * (TPB * EPT) + threadIdx.x;
    for (int j = 0; j < EPT; ++j) {
        const long long i = base + (long long)j * TPB;
        if (i < n) c[i] = kl_from_float<ELEM>(__int_as_float(0x7fc00000));
    }
}
