// Small helpers shared by rung kernels (NVRTC include path: kernels/common).
// ELEM is the storage type of the problem (-DELEM=float / __nv_bfloat16 / __half).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>  // __nv_fp8_e4m3: the matmul ladder's fp8 GEMM

#ifndef ELEM
#define ELEM float
#endif

__device__ __forceinline__ float kl_to_float(float x) { return x; }
__device__ __forceinline__ float kl_to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float kl_to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float kl_to_float(__nv_fp8_e4m3 x) { return float(x); }

template <class T>
__device__ __forceinline__ T kl_from_float(float x);
template <>
__device__ __forceinline__ float kl_from_float<float>(float x) {
    return x;
}
template <>
__device__ __forceinline__ __nv_bfloat16 kl_from_float<__nv_bfloat16>(float x) {
    return __float2bfloat16(x);
}
template <>
__device__ __forceinline__ __half kl_from_float<__half>(float x) {
    return __float2half(x);
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 kl_from_float<__nv_fp8_e4m3>(float x) {
    return __nv_fp8_e4m3(x);  // round to nearest even, saturating to +-448
}

// Ceiling division for index arithmetic (one definition for every rung).
__host__ __device__ __forceinline__ constexpr int kl_cdiv(int a, int b) { return (a + b - 1) / b; }
