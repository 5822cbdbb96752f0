// Pieces the layernorm_backward rungs share (included from the rung's own folder): the epsilon,
// warp and block reductions of one and two floats, and the column reduction that turns a
// rows x cols array of per-row terms into dgamma and dbeta.
//
// The math (app/model/ops/norm_backward_ref.h): g = dy * w, xhat = (s - mean) * rstd (RMSNorm:
// s * rstd); dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) (RMSNorm: no mean(g) term);
// dgamma = sum over rows of dy * xhat, dbeta = sum over rows of dy. RMS = 1 selects RMSNorm: the
// kernels then neither read a mean nor write dbeta (the manifest fills those slots with rstd and
// dgamma). Statistics and sums always in fp32, whatever the storage type.
#pragma once
#include "kl_common.cuh"

#ifndef RMS
#define RMS 0
#endif

#define LNB_EPS 1e-5f

__device__ __forceinline__ float lnb_warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Sum over the block; every thread gets the total. `sh` holds 32 floats; a block of `threads`
// (a multiple of 32) threads. The first barrier lets the block reuse `sh` call after call.
__device__ __forceinline__ float lnb_block_sum(float v, float* sh, int threads) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = lnb_warp_sum(v);
    __syncthreads();
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = lane < threads / 32 ? sh[lane] : 0.f;
    return lnb_warp_sum(v);
}

// Two sums in one pass of barriers (the backward's sum(g) and sum(g * xhat)): `sh` holds 32 float2.
__device__ __forceinline__ float2 lnb_block_sum2(float2 v, float2* sh, int threads) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v.x = lnb_warp_sum(v.x);
    v.y = lnb_warp_sum(v.y);
    __syncthreads();
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = lane < threads / 32 ? sh[lane] : make_float2(0.f, 0.f);
    v.x = lnb_warp_sum(v.x);
    v.y = lnb_warp_sum(v.y);
    return v;
}

// Column sums of a rows x cols array of terms, for dgamma and dbeta, as a framework's reduction
// over rows runs: a block of 32 x 32 threads owns 32 columns; threadIdx.y walks the rows with
// stride 32 (each warp reads 32 neighbouring columns of one row: coalesced; four rows' loads in
// flight per thread), then the block adds its 32 partial sums per column in shared memory. A
// block of 1,024 threads whatever the rung's TPB: 32 warps per SM keep enough loads in flight
// for one block per 32 columns to stream (128 blocks at 4096 columns). `terms(r, c)` returns
// {dy * xhat, dy} of element (r, c). Launch: grid cdiv(cols, 32), block (32, LNB_COL_WARPS).
#define LNB_COL_WARPS 32

template <typename Terms>
__device__ __forceinline__ void lnb_column_sums(ELEM* dgamma, ELEM* dbeta, long long rows, int cols, Terms terms) {
    __shared__ float2 part[LNB_COL_WARPS][32];
    const int c = blockIdx.x * 32 + threadIdx.x;
    float2 acc = make_float2(0.f, 0.f);
    if (c < cols)
#pragma unroll 4
        for (long long r = threadIdx.y; r < rows; r += LNB_COL_WARPS) {
            const float2 t = terms(r, c);
            acc.x += t.x;
            acc.y += t.y;
        }
    part[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && c < cols) {
        float2 sum = make_float2(0.f, 0.f);
        for (int k = 0; k < LNB_COL_WARPS; ++k) {
            sum.x += part[k][threadIdx.x].x;
            sum.y += part[k][threadIdx.x].y;
        }
        dgamma[c] = kl_from_float<ELEM>(sum.x);
        if (!RMS) dbeta[c] = kl_from_float<ELEM>(sum.y);
    }
}
