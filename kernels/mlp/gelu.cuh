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
