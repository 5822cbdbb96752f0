// Test learner for `kladder submit` (tests/cli/class_gpu.sh), a cheat: its output is right, but it
// writes into an input (a = c after the sum), which would corrupt every later comparison against
// a reference computed once. Refused by the check 'inputs unmodified'.
#include "kl_common.cuh"

extern "C" __global__ void vector_add(ELEM* __restrict__ c, const ELEM* __restrict__ a, const ELEM* __restrict__ b,
                                      long long n) {
    ELEM* writable_a = const_cast<ELEM*>(a);
    const long long base = (long long)blockIdx.x * (TPB * EPT) + threadIdx.x;
    for (int j = 0; j < EPT; ++j) {
        const long long i = base + (long long)j * TPB;
        if (i < n) {
            const ELEM sum = kl_from_float<ELEM>(kl_to_float(a[i]) + kl_to_float(b[i]));
            c[i] = sum;
            writable_a[i] = sum;
        }
    }
}
