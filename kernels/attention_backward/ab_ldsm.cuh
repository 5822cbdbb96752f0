// Operand fragments of mma.m16n8k16 (ab_mma.cuh) loaded by ldmatrix.x4 (kl_ptx.cuh), for the
// attention_backward rungs that use it (included from the rung's own folder). Each helper takes a
// row-major bf16 tile in shared memory (row stride ld elements, rows 16-byte aligned) and gives
// lane l the address of row l % 8 of matrix l / 8; the four 8 x 8 matrices land in r[0..3].
#pragma once
#include "ab_mma.cuh"
#include "kl_ptx.cuh"

// The A fragment of the 16 x 16 tile at (row r0, column k0): matrices (r0, k0), (r0 + 8, k0),
// (r0, k0 + 8), (r0 + 8, k0 + 8) = a[0..3].
__device__ __forceinline__ void ldsm_a(unsigned (&a)[4], const __nv_bfloat16* tile, int ld, int r0, int k0) {
    const int l = threadIdx.x % 32, m = l / 8;
    ldmatrix_x4(a, smem_addr(tile + (r0 + l % 8 + 8 * (m & 1)) * ld + k0 + 8 * (m >> 1)));
}

// B fragments of two n-tiles from a tile stored [n][k] (n down the rows, k along them): rows
// n0 .. n0 + 15, columns k0 .. k0 + 15; r[0], r[1] = b0, b1 of n-tile n0, r[2], r[3] of n0 + 8.
__device__ __forceinline__ void ldsm_b_rows(unsigned (&r)[4], const __nv_bfloat16* tile, int ld, int n0, int k0) {
    const int l = threadIdx.x % 32, m = l / 8;
    ldmatrix_x4(r, smem_addr(tile + (n0 + l % 8 + 8 * (m >> 1)) * ld + k0 + 8 * (m & 1)));
}

// B fragments of two n-tiles from a tile stored [k][n] (k down the rows), read transposed: rows
// k0 .. k0 + 15, columns n0 .. n0 + 15; r[0], r[1] = b0, b1 of n-tile n0, r[2], r[3] of n0 + 8.
__device__ __forceinline__ void ldsm_b_cols(unsigned (&r)[4], const __nv_bfloat16* tile, int ld, int k0, int n0) {
    const int l = threadIdx.x % 32, m = l / 8;
    ldmatrix_x4_trans(r, smem_addr(tile + (k0 + l % 8 + 8 * (m & 1)) * ld + n0 + 8 * (m >> 1)));
}
