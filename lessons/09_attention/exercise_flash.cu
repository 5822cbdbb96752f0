// Exercise: FlashAttention forward from an empty body (lesson 9, step 11).
//
// For each of the B * H heads (Q, K, V, O contiguous [B, H, N, d], fp32):
//   S = Q K^T / sqrt(d)            (N x N, never stored: it does not fit)
//   O[i] = sum_j softmax_j(S[i]) V[j]
//   lse[i] = ln sum_j exp(S[i][j])  (natural log; fp32, [B, H, N]: the one number per row a
//                                    backward pass keeps)
// with causal = 1: row i sees keys 0..i only (key 0 always, so no row is empty).
//
// How it is launched (the flash_fp32 rung's launch):
//   grid  = (cdiv(N, 64), B * H)   block (x, y) owns 64 query rows of head y (which 64 is yours
//                                  to map, e.g. the heaviest causal blocks first)
//   block = 256 threads
//   dynamic shared memory = 4 * (128 * (d + 1) + 64 * d + 64 * 65) bytes, as
//     `extern __shared__ float smem[];` (16,576 floats at d = 64)
// What you may assume: d is 64 or 128 (template on it); N >= 1, any value; B, H >= 1.
// The hidden checks run odd shapes (N = 1000 with 3 heads, N = 33 at d = 128, N = 1, a causal
// N = 777, and the main size less one on each axis but d), poison O and lse with NaN before every
// run, plant NaN and Inf in Q, K and V (they must come out as the softmax formula carries them),
// and compare Q, K and V byte for byte after the last run.
// The goal: correct everywhere, and faster than fused_rowblock (two passes over K) on this GPU.
#include "kl_common.cuh"

extern "C" __global__ void attention_flash_fp32(float* O, float* lse, const float* Q, const float* K, const float* V,
                                                int N, int d, int causal) {
    // TODO: one pass over K and V per block of query rows, with online rescaling. As it stands
    // nothing is written: the check sees the NaN poison.
}
