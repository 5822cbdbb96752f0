// Engine reference for the sin^2 + cos^2 rungs of the elementwise ladder, not a rung: the same
// expression in double precision from the stored x (ELEM, converted exactly), rounded once to
// float. (It is 1 up to rounding for every x; neither the reference nor the rungs are allowed to
// know that.)
#include "kl_common.cuh"

extern "C" __global__ void ref_sin2_cos2(float* y, const ELEM* x, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const double v = kl_to_float(x[i]);
        const double s = sin(v), c = cos(v);
        y[i] = (float)(s * s + c * c);
    }
}
