// GeLU in its tanh form, as the mlp ladder's rungs apply it (kernels/mlp; cuBLASLt's GELU
// epilogue computes the same form). tanh comes from the SFU's tanh.approx.f32, one instruction
// with a relative error near 2^-11: far below the bf16 rounding of the result (2^-9), and cheap
// enough that an epilogue applying it to every element of a GEMM tile stays a few percent of
// the tile's time.
#pragma once

#include <cuda_bf16.h>

__device__ __forceinline__ float mlp_tanh(float x) {
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float mlp_gelu(float x) {
    const float k0 = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * x * (1.f + mlp_tanh(k0 * (x + 0.044715f * x * x * x)));
}

// GeLU of two values with one packed half-precision tanh (tanh.approx.f16x2: one SFU instruction
// for both, where mlp_gelu spends one each). The SFU is what an epilogue applying GeLU to a whole
// tile waits on (one tanh per element, 16 per clock per SM); halving its instructions halves that
// wait. The argument is rounded to fp16 (relative 2^-11) and tanh.approx.f16x2's own error is
// about 2^-10.7; arguments past fp16's range become +-inf, whose tanh is +-1, as it should be.
// Measured (mlp rung 5, TANH = 16, H100 2026-11-24, docs/tuning/mlp.md): the MLP's rel L2 rose
// from 1.6e-4 to 9.4e-4 (unfused: 3.2e-3), and the epilogue got slower, not faster: the packing
// conversions cost more issue slots than the halved tanh saved. The SFU was not the bottleneck.
__device__ __forceinline__ void mlp_gelu2_f16_tanh(float x0, float x1, float& g0, float& g1) {
    const float k0 = 0.7978845608028654f;  // sqrt(2 / pi)
    const float a0 = k0 * (x0 + 0.044715f * x0 * x0 * x0), a1 = k0 * (x1 + 0.044715f * x1 * x1 * x1);
    unsigned packed, t;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(a1), "f"(a0));  // a1 in the upper half
    asm("tanh.approx.f16x2 %0, %1;" : "=r"(t) : "r"(packed));
    float t0, t1;
    asm("{\n.reg .f16 lo, hi;\nmov.b32 {lo, hi}, %2;\ncvt.f32.f16 %0, lo;\ncvt.f32.f16 %1, hi;\n}"
        : "=f"(t0), "=f"(t1)
        : "r"(t));
    g0 = 0.5f * x0 * (1.f + t0);
    g1 = 0.5f * x1 * (1.f + t1);
}

// The register epilogue of mlp rungs 2-4: a warpgroup's 64 x N accumulator tile (N = 2 * kN) as
// H = GeLU(acc) in bf16 (M x ldh, row-major) at (row0, col0), with bounds checks. Same register
// layout as kl_wgmma.cuh's store_accumulators: in 8-column slice j, thread (warp w, lane l) holds
// rows w*16 + l/4 (+8) and columns 8j + 2*(l%4) (+1) in d[4j .. 4j+3]; each pair goes out as one
// __nv_bfloat162.
template <int kN>
__device__ __forceinline__ void store_gelu_bf16(const float (&d)[kN], __nv_bfloat16* H, int M, int ldh, int row0,
                                                int col0) {
    const int lane = threadIdx.x % 32, warp_in_wg = (threadIdx.x % 128) / 32;
    const bool pairs_ok = (ldh % 2 == 0) && (reinterpret_cast<size_t>(H) % 4 == 0);
#pragma unroll
    for (int j = 0; j < kN / 4; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = row0 + warp_in_wg * 16 + lane / 4 + h * 8;
            const int col = col0 + j * 8 + (lane % 4) * 2;
            if (row >= M) continue;
            const float g0 = mlp_gelu(d[4 * j + 2 * h]), g1 = mlp_gelu(d[4 * j + 2 * h + 1]);
            __nv_bfloat16* p = H + (size_t)row * ldh + col;
            if (pairs_ok && col + 1 < ldh) {
                *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(g0, g1);
            } else {
                if (col < ldh) p[0] = __float2bfloat16(g0);
                if (col + 1 < ldh) p[1] = __float2bfloat16(g1);
            }
        }
}
