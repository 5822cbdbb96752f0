// Rung 1: three stacked sigmoids as a framework runs them eagerly: one kernel per operation.
//
// Forward: s1 = sigmoid(x), s2 = sigmoid(s1), y = s3 = sigmoid(s2), three launches, each a
// read and a write of a whole array. Backward (autograd's sigmoid_backward, once per sigmoid):
// d3 = g * s3(1 - s3), d2 = d3 * s2(1 - s2), dx = d2 * s1(1 - s1), three launches of two reads
// and a write. 6 + 9 = 15 array accesses per element; the intermediates d3 and d2 exist only
// because each operation is its own kernel. What to see: about three times the time of rung 3,
// the same as the access count predicts, every kernel on its own near the copy roof.
#include "kl_common.cuh"

static_assert(TPB % 32 == 0, "threads per block must be a whole number of warps");

__device__ __forceinline__ float sigmoidf(float z) { return 1.0f / (1.0f + expf(-z)); }

// out = sigmoid(in)
extern "C" __global__ void sigmoid_forward(float* __restrict__ out, const float* __restrict__ in, long long n) {
    long long base = (long long)blockIdx.x * (TPB * EPT) + threadIdx.x;
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
        long long i = base + (long long)j * TPB;
        if (i < n) out[i] = sigmoidf(in[i]);
    }
}

// grad_in = grad_out * s (1 - s), s the sigmoid's saved output
extern "C" __global__ void sigmoid_backward(float* __restrict__ grad_in, const float* __restrict__ grad_out,
                                            const float* __restrict__ s, long long n) {
    long long base = (long long)blockIdx.x * (TPB * EPT) + threadIdx.x;
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
        long long i = base + (long long)j * TPB;
        if (i < n) {
            float v = s[i];
            grad_in[i] = grad_out[i] * v * (1.0f - v);
        }
    }
}
