// Rung 1: three stacked sigmoids as a framework runs them eagerly: one kernel per operation.
//
// What changes: nothing yet; this is the baseline. Forward: s1 = sigmoid(x), s2 = sigmoid(s1), y =
// s3 = sigmoid(s2), three launches, each a read and a write of a whole array. Backward (autograd's
// sigmoid_backward, once per sigmoid): d3 = g * s3(1 - s3), d2 = d3 * s2(1 - s2), dx = d2 * s1(1 -
// s1), three launches of two reads and a write.
// Why it is slow: 6 + 9 = 15 array accesses per element; the intermediates d3 and d2 exist only
// because each operation is its own kernel.
// What to see: about three times the time of rung 3, as the access count predicts, each kernel on
// its own near the copy roof.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.
#include "sigmoid.cuh"

// out = sigmoid(in)
extern "C" __global__ void sigmoid_forward(float* __restrict__ out, const float* __restrict__ in, long long n) {
    float v[EPT];
    kl_load(v, in, n);
#pragma unroll
    for (int j = 0; j < EPT; ++j) v[j] = kl_sigmoid(v[j]);
    kl_store(out, v, n);
}

// grad_in = grad_out * s (1 - s), s the sigmoid's saved output
extern "C" __global__ void sigmoid_backward(float* __restrict__ grad_in, const float* __restrict__ grad_out,
                                            const float* __restrict__ s, long long n) {
    float d[EPT], v[EPT];
    kl_load(d, grad_out, n);
    kl_load(v, s, n);
#pragma unroll
    for (int j = 0; j < EPT; ++j) d[j] *= v[j] * (1.0f - v[j]);
    kl_store(grad_in, d, n);
}
