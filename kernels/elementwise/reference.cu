// Engine reference for the elementwise ladder, not a rung: the same math in double precision
// from the stored inputs (ELEM: fp32, bf16 or fp16, converted exactly), rounded once to float at
// the end, so the only error left in a rung's output is its own (and its storage rounding).
#include "kl_common.cuh"

extern "C" __global__ void ref_vector_add(float* c, const ELEM* a, const ELEM* b, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = (float)((double)kl_to_float(a[i]) + (double)kl_to_float(b[i]));
}

extern "C" __global__ void ref_gelu_tanh(float* y, const ELEM* x, long long n) {
    const double k = 0.79788456080286535588;  // sqrt(2 / pi)
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double v = kl_to_float(x[i]);
        y[i] = (float)(0.5 * v * (1.0 + tanh(k * (v + 0.044715 * v * v * v))));
    }
}
