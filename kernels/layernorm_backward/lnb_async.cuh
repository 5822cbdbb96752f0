// The three machine-level pieces of rung 7 (07_rowblock_pipelined.cu), apart from its logic: the
// dynamic shared memory the row stages live in, a copy of one pack of 4 elements from global to
// shared memory that does not wait (cp.async; rung 8 shares it), and a 16-byte atomic addition in L2 (the atomic
// end). Ampere's cp.async wrappers, commit and wait come from kl_ptx.cuh; this file adds the
// 8-byte copy those lack (a pack of 4 bf16 or fp16 elements) and Hopper's vector reduction.
#pragma once
#include "kl_ptx.cuh"
#include "kl_vec.cuh"

// The block's dynamic shared memory (the manifest's `smem`), 16-byte aligned for the copies.
__device__ __forceinline__ unsigned char* lnb_dynamic_smem() {
    extern __shared__ __align__(16) unsigned char lnb_smem[];
    return lnb_smem;
}

// One pack of BYTES (rung 7: 4 elements, 16 bytes in fp32 and 8 in 16 bits; rung 8: always 16)
// from global `src` to the shared address `dst`, asynchronously; it lands by this thread's
// cp_async_wait of its group. 16 bytes go as .cg (L2 only: the stage is read from shared memory,
// never again from L1); 8-byte copies allow .ca only.
template <int BYTES>
__device__ __forceinline__ void lnb_cp_async_pack(unsigned dst, const ELEM* src) {
    static_assert(BYTES == 8 || BYTES == 16, "a pack copy is 8 or 16 bytes");
    if (BYTES == 16)
        cp_async_16(dst, src);
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(src) : "memory");
}

// p[0..3] += v, one 16-byte reduction in L2 on Hopper (red.global.add.v4.f32, sm_90: a quarter of
// the atomic operations); four scalar atomics before it. p is 16-byte aligned.
__device__ __forceinline__ void lnb_red_add4(float* p, float a, float b, float c, float d) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
#else
    atomicAdd(p, a);
    atomicAdd(p + 1, b);
    atomicAdd(p + 2, c);
    atomicAdd(p + 3, d);
#endif
}
