// Rung 7: rung 4 with the shortest path from a row's last load to its last store.
//
// What changes from rung 4 (same layout, same 16-byte loads, the row in registers):
//  - w and b are loaded together with x and r, at the block's start: every load of the row,
//    weights included, is in flight at once. Rung 4 fetched them from L2 after the statistics,
//    one more round trip between the reductions and the first store of y.
//  - Mean and variance in ONE block reduction: each thread takes the exact two-pass mean and
//    squared deviations (M2) of its own registers, and the (count, mean, M2) states are merged
//    with Chan's formula (ln_common.cuh) in a warp shuffle and one shared-memory step. Rung 4
//    summed, waited, then summed the deviations and waited again: two barrier pairs, now one.
//    (RMSNorm had only one reduction already.)
//  - y is stored write-back (STORE = 1, the default) instead of evict-first: the next layer
//    reads y at once, so it should stay in L2; s, the residual for later, streams as before.
// Why it should be faster: a 4096 x 4096 16-bit LayerNorm runs ~5 waves of blocks in 45 us; in
// the steady state other blocks keep DRAM busy while one reduces, but in the last wave nothing
// hides a block's path from its loads to its stores, and that path (plus the launch and the
// first wave's ramp) is the ~6 us fixed cost that kept rung 4 at 89-90% of the copy line
// (docs/tuning/layernorm.md). Rung 6 (persistent blocks) did not remove it; this shortens it.
// What to see: 16-bit storage over 90% of the copy line at 4096 x 4096; fp32 as rung 4.
#include "ln_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");
static_assert(MAXV >= 1 && MAXV <= 16, "1 to 16 vectors per thread");
#ifndef STORE
#define STORE 1
#endif

#define VEC (16 / (int)sizeof(ELEM))  // elements per 16-byte vector

union LnVec {
    uint4 raw;
    ELEM e[VEC];
};

// Column of element k of vector j of this thread (16-byte vectors side by side, or single
// elements TPB apart when the row is not 16-byte aligned).
__device__ __forceinline__ int ln_col(bool vec, int j, int k) {
    return vec ? (j * TPB + (int)threadIdx.x) * VEC + k : (j * VEC + k) * TPB + (int)threadIdx.x;
}

// The block's (count, mean, M2) from each thread's: warps by shuffles, then every warp merges the
// warp states (one barrier pair; `sh` holds 3 * 32 floats and is reused row after row).
__device__ __forceinline__ LnWelford ln_block_welford(LnWelford a, float* sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    a = ln_warp_welford(a);
    __syncthreads();
    if (lane == 0) {
        sh[warp] = a.n;
        sh[32 + warp] = a.mean;
        sh[64 + warp] = a.m2;
    }
    __syncthreads();
    LnWelford b = {0.f, 0.f, 0.f};
    if (lane < TPB / 32) b = {sh[lane], sh[32 + lane], sh[64 + lane]};
    return ln_warp_welford(b);
}

extern "C" __global__ void __launch_bounds__(TPB)
    ln_row_regs_tail(ELEM* __restrict__ s, ELEM* __restrict__ y, const ELEM* __restrict__ x, const ELEM* __restrict__ r,
                     const ELEM* __restrict__ w, const ELEM* __restrict__ b, int cols) {
    __shared__ float sh[96];
    const long long o = (long long)blockIdx.x * cols;
    const bool vec = cols % VEC == 0 && (((unsigned long long)x | (unsigned long long)r | (unsigned long long)s |
                                          (unsigned long long)y | (unsigned long long)w | (unsigned long long)b) &
                                         15) == 0;
    LnVec xa[MAXV], ra[MAXV], wa[MAXV], ba[MAXV];
    if (vec) {  // every load of the row first: x, r, and this thread's w and b
#pragma unroll
        for (int j = 0; j < MAXV; ++j) {
            const int q = j * TPB + threadIdx.x;
            if (q * VEC < cols) {
                xa[j].raw = __ldcs(reinterpret_cast<const uint4*>(x + o) + q);
                ra[j].raw = __ldcs(reinterpret_cast<const uint4*>(r + o) + q);
                wa[j].raw = reinterpret_cast<const uint4*>(w)[q];
                if (!RMS) ba[j].raw = reinterpret_cast<const uint4*>(b)[q];
            }
        }
    } else {
#pragma unroll
        for (int j = 0; j < MAXV; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const int c = ln_col(false, j, k);
                if (c < cols) {
                    xa[j].e[k] = x[o + c];
                    ra[j].e[k] = r[o + c];
                    wa[j].e[k] = w[c];
                    if (!RMS) ba[j].e[k] = b[c];
                }
            }
    }
    float v[MAXV][VEC];
    float sum = 0.f, cnt = 0.f;
#pragma unroll
    for (int j = 0; j < MAXV; ++j) {
        LnVec out;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = ln_col(vec, j, k);
            v[j][k] = c < cols ? ln_residual(xa[j].e[k], ra[j].e[k]) : 0.f;
            out.e[k] = kl_from_float<ELEM>(v[j][k]);
            if (c < cols) {
                sum += RMS ? v[j][k] * v[j][k] : v[j][k];
                cnt += 1.f;
                if (!vec) s[o + c] = out.e[k];
            }
        }
        const int q = j * TPB + threadIdx.x;
        if (vec && q * VEC < cols) reinterpret_cast<uint4*>(s + o)[q] = out.raw;
    }
    float mean = 0.f, rstd;
    if (RMS) {  // one sum of squares: already a single reduction
        rstd = rsqrtf(ln_block_sum(sum, sh, TPB) / cols + LN_EPS);
    } else {  // this thread's exact two-pass state, then one merged reduction
        const float m = cnt > 0.f ? sum / cnt : 0.f;
        float m2 = 0.f;
#pragma unroll
        for (int j = 0; j < MAXV; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const float d = v[j][k] - m;
                if (ln_col(vec, j, k) < cols) m2 += d * d;
            }
        const LnWelford t = ln_block_welford({cnt, m, m2}, sh);
        mean = t.mean;
        rstd = rsqrtf(t.m2 / cols + LN_EPS);
    }
#pragma unroll
    for (int j = 0; j < MAXV; ++j) {
        LnVec out;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = ln_col(vec, j, k);
            const float n = (v[j][k] - mean) * rstd * kl_to_float(wa[j].e[k]);
            out.e[k] = kl_from_float<ELEM>(RMS ? n : n + kl_to_float(ba[j].e[k]));
            if (!vec && c < cols) y[o + c] = out.e[k];
        }
        const int q = j * TPB + threadIdx.x;
        if (vec && q * VEC < cols) {
            if (STORE)
                reinterpret_cast<uint4*>(y + o)[q] = out.raw;
            else
                __stcs(reinterpret_cast<uint4*>(y + o) + q, out.raw);
        }
    }
}
