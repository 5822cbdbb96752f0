// Flags between blocks of one grid, for the stream-K rungs (matmul 13, 14, 18, 19): a flag in
// global memory, read and written with GPU-scope acquire / release, so that what a block wrote
// before raising a flag is visible to a block that saw it raised (NVRTC include path:
// kernels/common).
#pragma once

__device__ __forceinline__ int flag_acquire(const int* p) {
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void flag_release(int* p, int v) {
    asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}
