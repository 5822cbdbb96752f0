// Exercise: a tiled SGEMM from an empty body (lesson 6, step 5).
//
// C = A * B in fp32: A is M x K, B is K x N, C is M x N, all row-major:
//   C[m * N + n] = sum over k of A[m * K + k] * B[k * N + n]
//
// How it is launched (the reg_2d rung's launch; BM, BN, BK, TM, TN arrive as macros, 128, 128,
// 8, 4, 4 unless you change the parameters):
//   grid  = (cdiv(N, BN), cdiv(M, BM))     block (x, y) owns the BM x BN tile of C at rows
//                                          y * BM.., columns x * BN..
//   block = (BM / TM) * (BN / TN) threads  1,024 at the defaults: each thread owns TM x TN
//                                          outputs of the tile (16 at the defaults)
// Static shared memory: up to 48 KB (BM * BK + BK * BN floats is 8 KB at the defaults).
// What you may assume: M, N, K >= 1; nothing about them being multiples of the tiles.
// NaN and Inf in A or B must reach C as IEEE arithmetic carries them (0 * Inf is NaN), as the
// reference (cuBLAS fp32) computes them: pad the tiles' edges with zeros on both A's and B's side.
// The hidden checks run odd shapes (1000 x 999 x 37, 33 x 4097 x 129, 1 x 1 x 1 and the main size
// less one on each axis), poison C with NaN before every run, plant NaN and Inf in A and B, and
// compare A and B byte for byte after the last run.
// The goal: correct everywhere, and faster than reg_1d (a column of TM outputs per thread) on
// this GPU at 4096^3.
#include "kl_common.cuh"

extern "C" __global__ void matmul_reg_2d(float* C, const float* A, const float* B, int M, int N, int K) {
    // TODO: your tiled SGEMM. As it stands nothing is written: the check sees the NaN poison.
}
