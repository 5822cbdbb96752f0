// The small PTX wrappers every generation of rung uses, written once (NVRTC include path:
// kernels/common): the shared-window address, cp.async (Ampere's asynchronous copies, 4 or 16
// bytes, with or without a source size that zero-fills), its group commit and wait, the 16-byte
// chunk the element-wise fallbacks build (pack8), ldmatrix, a 32-bit shared store and the SFU's
// exp2. Each wrapper is one PTX instruction, with the asm string, volatility and clobbers the
// rungs' own copies had, so a rung that uses it gets the machine code it had. The warp-level
// mma.sync stays in its two rungs (matmul 10, attention 4): one is volatile, the other not. The
// Hopper wrappers build on these: kl_tma.cuh (mbarriers, TMA, setmaxnreg, named barriers),
// kl_wgmma.cuh and kl_wgmma_fp8.cuh (wgmma), kl_cluster.cuh (clusters).
#pragma once

// The 32-bit shared-window address the PTX below takes (a generic pointer would need 64 bits
// and a conversion in every instruction).
__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------------------------------------
// cp.async: global -> shared without passing through registers (sm_80+)
// ---------------------------------------------------------------------------------------------
// 16 bytes, cached in L2 only (.cg: the tile is read once from shared memory, not again from L1).
// With src_bytes: that many bytes are read and the rest of the 16 written as zeros (0 = all
// zeros, nothing read), which is how the rungs guard edges and K tails without a branch.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
// 4 bytes (.ca: the only caching 4-byte copies allow), same src_bytes rule.
__device__ __forceinline__ void cp_async_4(unsigned dst, const void* src, int src_bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_4(unsigned dst, const void* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src));
}
// A bool would convert to a size of 0 or 1 byte: write `ok ? 16 : 0` (or `ok ? 4 : 0`).
__device__ void cp_async_16(unsigned, const void*, bool) = delete;
__device__ void cp_async_4(unsigned, const void*, bool) = delete;
// Closes this thread's group of copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Returns once at most kPending of this thread's groups are still in flight. The "memory"
// clobber keeps the compiler from reading the copied shared memory before the wait.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// The element-wise fallback of the bf16 GEMMs (rows not 16-byte aligned) builds by hand the
// 16-byte chunk a cp.async or TMA copy would have written: eight bf16 bit patterns -> one
// vector, lowest address first.
__device__ __forceinline__ uint4 pack8(const unsigned short (&v)[8]) {
    return make_uint4(v[0] | ((unsigned)v[1] << 16), v[2] | ((unsigned)v[3] << 16), v[4] | ((unsigned)v[5] << 16),
                      v[6] | ((unsigned)v[7] << 16));
}

// ---------------------------------------------------------------------------------------------
// Tensor-core operands from shared memory, and the warp-level MMA (sm_80+)
// ---------------------------------------------------------------------------------------------
// Four 8 x 8 matrices of 16-bit elements: lane i gives the address of row i % 8 of matrix i / 8,
// and each lane receives its fragment of all four (r[m] from matrix m). .trans delivers each
// matrix transposed (B stored K-major read as the mma's column operand).
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// A 32-bit store to the shared window: the epilogues that stage a tile for a TMA store address
// it as the swizzle dictates, in 32-bit window addresses (a generic pointer would take two
// registers per store).
__device__ __forceinline__ void st_shared_b32(unsigned addr, unsigned v) {
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

// exp2 on the SFU (MUFU.EX2), flushing denormals; exp2(-inf) = +0.
__device__ __forceinline__ float fast_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}
