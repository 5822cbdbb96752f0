// Rung 2: GeLU as a framework runs it unfused: one kernel per primitive operation.
//
// What changes: 0.5*x * (1 + tanh(0.79788456 * (x + 0.044715*x*x*x))) becomes nine launches (see
// the manifest), each reading its operands from DRAM and writing its result back.
// Why it is slower: the chain moves 22 elements per element of output where a fused kernel moves 2:
// eleven times the traffic of rung 3 for the same arithmetic.
// What to see: effective GB/s (counted on the ideal 2 elements) an order of magnitude under the
// copy roof, though every single kernel runs near it.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.
#include "kl_common.cuh"

#define KL_ELEMENTWISE(NAME, EXPR)                                                                                     \
    extern "C" __global__ void NAME(float* __restrict__ out, const float* __restrict__ p, const float* __restrict__ q, \
                                    float s, long long n) {                                                            \
        long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;                                                \
        if (i < n) out[i] = (EXPR);                                                                                    \
    }

// The five primitive kernels the chain is built from (q or s unused where not named).
KL_ELEMENTWISE(ew_mul, p[i] * q[i])
KL_ELEMENTWISE(ew_add, p[i] + q[i])
KL_ELEMENTWISE(ew_mul_scalar, p[i] * s)
KL_ELEMENTWISE(ew_add_scalar, p[i] + s)
KL_ELEMENTWISE(ew_tanh, tanhf(p[i]))
