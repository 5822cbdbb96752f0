// Shared by the recompute rungs (included from the rung's own folder): the sigmoid and the access
// pattern every kernel of the ladder uses, so that the rungs differ only in what they store.
//
// Each thread handles EPT elements TPB apart (a warp touches 32 neighbouring floats: coalesced)
// and issues all its loads before any arithmetic: EPT loads per input array in flight per
// thread, which is what keeps DRAM busy when the arithmetic between load and store is long
// (three sigmoids). Every array is far larger than L2 and touched once per kernel: stores are
// streaming (__stcs, evict-first); loads are plain. An evict-first load cost GeLU's rung 2.7% in
// fp32 after the stopwatch's L2 flush, and this ladder's fused_recompute 2.1% against Nsight
// Compute's own flush (H200, 2026-11-30; docs/tuning/timing.md, "What is left of the gap").
#pragma once
#include "kl_common.cuh"

static_assert(TPB % 32 == 0, "threads per block must be a whole number of warps");
static_assert(EPT >= 1 && EPT <= 16, "1 to 16 elements per thread");

// 1 / (1 + e^-z) with the fast exponential (ex2.approx) and reciprocal: about 1e-6 relative,
// well inside the ladder's tolerance, and a third of the instructions of expf and a division.
__device__ __forceinline__ float kl_sigmoid(float z) { return __frcp_rn(1.0f + __expf(-z)); }

// Element j of this thread, and whether it exists.
#define KL_INDEX(j) ((long long)blockIdx.x * (TPB * EPT) + threadIdx.x + (long long)(j)*TPB)

// v[j] = p[element j] for the EPT elements of this thread (0 past the end), all loads first.
__device__ __forceinline__ void kl_load(float (&v)[EPT], const float* __restrict__ p, long long n) {
#pragma unroll
    for (int j = 0; j < EPT; ++j) v[j] = KL_INDEX(j) < n ? p[KL_INDEX(j)] : 0.f;
}

__device__ __forceinline__ void kl_store(float* __restrict__ p, const float (&v)[EPT], long long n) {
#pragma unroll
    for (int j = 0; j < EPT; ++j)
        if (KL_INDEX(j) < n) __stcs(p + KL_INDEX(j), v[j]);
}
