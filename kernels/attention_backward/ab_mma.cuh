// The warp-level tensor-core product of the attention_backward tensor-core rungs (included from
// the rung's own folder): mma.sync.m16n8k16 with bf16 operands and fp32 accumulators, and the
// loads of its operand fragments from bf16 tiles in shared memory.
//
// Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16"), lane = 4 g + t:
//   A (16 x 16, rows x k): a[0] = (row g, k 2t, 2t + 1), a[1] = (row g + 8, same k),
//                          a[2] = (row g, k 2t + 8, 2t + 9), a[3] = (row g + 8, k 2t + 8, 2t + 9);
//   B (16 x 8, k x cols):  b0 = (k 2t, 2t + 1; col g), b1 = (k 2t + 8, 2t + 9; col g);
//   C (16 x 8):            c[0], c[1] = (row g; cols 2t, 2t + 1), c[2], c[3] = (row g + 8; same).
// The lower k (or column) of a pair sits in the register's low half. Two C tiles side by side
// (columns 0-7 and 8-15) are, packed to bf16, the A fragment of a 16 x 16 tile: a product's
// result feeds the next product from registers.
#pragma once
#include <cuda_bf16.h>

__device__ __forceinline__ void ab_mma(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Two floats -> one register of two bf16, the first in the low half.
__device__ __forceinline__ unsigned ab_pack(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned*>(&v);
}

// Two neighbours of one row (p[0] low, p[1] high): an A fragment's pair, or a B pair where the
// tile is stored with k along its rows.
__device__ __forceinline__ unsigned ab_ld_pair(const __nv_bfloat16* p) { return *reinterpret_cast<const unsigned*>(p); }

// The same column of two rows (p[0] low, p[ld] high): a B pair where the tile is stored with k
// down its columns.
__device__ __forceinline__ unsigned ab_ld_column_pair(const __nv_bfloat16* p, int ld) {
    const unsigned lo = *reinterpret_cast<const unsigned short*>(p);
    const unsigned hi = *reinterpret_cast<const unsigned short*>(p + ld);
    return lo | (hi << 16);
}

// The A fragment of the 16 x 16 tile at (row r0, column k0) of a row-major bf16 tile, stride ld.
__device__ __forceinline__ void ab_ld_a(unsigned (&a)[4], const __nv_bfloat16* tile, int ld, int r0, int k0) {
    const int g = (threadIdx.x % 32) / 4, t = threadIdx.x % 4;
    const __nv_bfloat16* p = tile + (r0 + g) * ld + k0 + 2 * t;
    a[0] = ab_ld_pair(p);
    a[1] = ab_ld_pair(p + 8 * ld);
    a[2] = ab_ld_pair(p + 8);
    a[3] = ab_ld_pair(p + 8 * ld + 8);
}
