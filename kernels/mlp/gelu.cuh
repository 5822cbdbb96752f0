// GeLU in its tanh form, as the mlp ladder's rungs apply it (kernels/mlp; cuBLASLt's GELU
// epilogue computes the same form). tanh comes from the SFU's tanh.approx.f32, one instruction
// with a relative error near 2^-11: far below the bf16 rounding of the result (2^-9), and cheap
// enough that an epilogue applying it to every element of a GEMM tile stays a few percent of
// the tile's time.
#pragma once

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
