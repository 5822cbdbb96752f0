// Engine helper, not a rung: seeded uniform random fill for any element type.
// A counter-based hash (splitmix64 of seed ^ index) makes the values independent of the
// launch shape, so the same seed gives the same inputs on every GPU and every run.
#include "kl_common.cuh"

__device__ __forceinline__ unsigned long long kl_mix(unsigned long long z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

extern "C" __global__ void kl_fill_uniform(ELEM* out, long long n, unsigned long long seed, float lo, float hi) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned long long r = kl_mix(seed * 0x2545f4914f6cdd1dull ^ (unsigned long long)i);
        float u = (float)(r >> 40) * (1.0f / 16777216.0f);  // 24 random bits in [0, 1)
        out[i] = kl_from_float<ELEM>(lo + (hi - lo) * u);
    }
}
