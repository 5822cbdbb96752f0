// Rung 3: GeLU fused into one kernel.
//
// What changes from rung 2: the whole formula runs in registers: x is read once and y written once.
// Storage is ELEM (fp32, bf16 or fp16); the formula always runs in float.
// Why it is faster: 2 elements of traffic instead of 22 (rung 2). The arithmetic is unchanged and
// still far below what the SMs can do, so the kernel is limited by DRAM alone.
// What to see: a jump of about ten times in time and GB/s; the rung now sits close to the copy
// roof.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data.
#include "kl_common.cuh"

static_assert(TPB % 32 == 0, "threads per block must be a whole number of warps");

__device__ __forceinline__ float gelu_tanh(float x) {
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

extern "C" __global__ void gelu_fused(ELEM* __restrict__ y, const ELEM* __restrict__ x, long long n) {
    long long i = (long long)blockIdx.x * TPB + threadIdx.x;
    if (i < n) y[i] = kl_from_float<ELEM>(gelu_tanh(kl_to_float(x[i])));
}
