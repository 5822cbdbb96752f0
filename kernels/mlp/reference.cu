// Engine helpers for the mlp ladder's reference, not a rung: the exact fp32 copy of bf16 values,
// and the activation as the rungs' contract defines it: GeLU (tanh form) in double precision of
// an fp32 pre-activation, rounded once to bf16 (the intermediate every rung stores), kept as
// float so that the second product can run in fp32.
#include <cuda_bf16.h>

extern "C" __global__ void ref_bf16_to_f32(float* out, const __nv_bfloat16* in, long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = __bfloat162float(in[i]);
}

extern "C" __global__ void ref_gelu_bf16_rounded(float* h, long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const double x = h[i];
        const double g = 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
        h[i] = __bfloat162float(__double2bfloat16(g));
    }
}
