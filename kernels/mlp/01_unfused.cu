// Rung 1 - the MLP as a framework runs it: Linear, GeLU, Linear, three kernels.
//
// What changes: nothing yet; this is the baseline. The two products are cuBLAS (the
// `cublas_bf16_bf16out` and `cublas_bf16` builtins); this file is only the middle kernel: H =
// GeLU(U), elementwise, where U = X W1 is the first product's bf16 output.
// Why it is slow: U exists only to be read back once: T x F bf16 written by the first GEMM to DRAM,
// read again here, and H written. At 8192 x 16384 that is 256 MiB each way, about 0.2 ms at copy
// bandwidth on an H100, on top of two GEMMs of ~1.5 ms each.
// What to see: the GeLU kernel runs near the copy roof, and still costs its whole round trip; the
// next rung applies GeLU where U is born, in the GEMM's registers, and U never exists.
//
// Each thread takes 8 bf16 (one 16-byte load and store) when the vector lies inside the array;
// the last partial vector goes element by element.
// What it needs: any GPU the workbook runs on (sm_75 and newer); bf16 data.
#include <cuda_bf16.h>

#include "gelu.cuh"

#ifndef TPB
#error "TPB must be defined, e.g. -DTPB=256"
#endif

extern "C" __global__ void __launch_bounds__(TPB)
    mlp_gelu_bf16(__nv_bfloat16* __restrict__ h, const __nv_bfloat16* __restrict__ u, long long n) {
    const long long v = (long long)blockIdx.x * TPB + threadIdx.x, first = v * 8;
    if (first >= n) return;
    if (first + 8 <= n) {
        uint4 in = __ldcs(reinterpret_cast<const uint4*>(u) + v);  // read once: stream past L2
        __nv_bfloat162* p = reinterpret_cast<__nv_bfloat162*>(&in);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float2 f = __bfloat1622float2(p[i]);
            p[i] = __floats2bfloat162_rn(mlp_gelu(f.x), mlp_gelu(f.y));
        }
        __stcs(reinterpret_cast<uint4*>(h) + v, in);
    } else {
        for (long long i = first; i < n; ++i) h[i] = __float2bfloat16(mlp_gelu(__bfloat162float(u[i])));
    }
}
