// Rung 7: rung 4, with the L2 eviction priority of each stream as a parameter. The copy is the
// lesson: diff it against 04.
//
// What changes from rung 4: only the cache hints of the 16-byte loads and stores
// (ln_cache_policy.cuh); the arithmetic, the registers and the launch are rung 4's. By default x
// and r are loaded at normal priority (rung 4 loads them evict-first, `.cs`); s stays a write-back
// store and y a streaming store, as in rung 4. The other values let you try each stream's priority.
// The policies apply to the vector path; the scalar path (cols not a multiple of the vector width,
// or unaligned pointers) is rung 4's.
// Why it should be faster: this kernel streams 134 MB (16-bit, 4096 x 4096) through a 50 MB L2 that
// is write-back and, when the kernel starts, full of dirty lines (before every cold repetition the
// runner writes a 2 x L2 buffer; in a model, the previous kernel's outputs). Every line the kernel
// brings in evicts one, and which one decides when DRAM writes those dirty lines back: during the
// first microseconds, when the kernel only reads, or later, competing with its own stores.
// Evict-first loads make L2 recycle the kernel's own clean x and r lines and leave the dirty ones
// for later; normal-priority loads evict the oldest lines first.
// What to see: the same bytes and DRAM passes as rung 4, the time within a percent of it
// (normal-priority loads held a small gain in two device calls; no store policy did:
// docs/tuning/layernorm.md, third section); the policies change no value (a hint, never a result).
// What it needs: sm_80 (Ampere) or newer: L2 cache-policy hints (createpolicy, .L2::cache_hint) are
// Ampere instructions; fp32, bf16 or fp16 data; serves add_layernorm and, with RMS = 1, add_rmsnorm
// (rung 07b).
#include "ln_cache_policy.cuh"
#include "ln_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");
static_assert(MAXV >= 1 && MAXV <= 16, "1 to 16 vectors per thread");

#ifndef LOAD
#define LOAD 1
#endif
#ifndef SSTORE
#define SSTORE 0
#endif
#ifndef YSTORE
#define YSTORE 1
#endif

#define VEC (16 / (int)sizeof(ELEM))  // elements per 16-byte vector

union LnVec {
    uint4 raw;
    ELEM e[VEC];
};

extern "C" __global__ void __launch_bounds__(TPB)
    ln_row_regs_l2(ELEM* __restrict__ s, ELEM* __restrict__ y, const ELEM* __restrict__ x, const ELEM* __restrict__ r,
                   const ELEM* __restrict__ w, const ELEM* __restrict__ b, int cols) {
    __shared__ float sh[32];
    const long long o = (long long)blockIdx.x * cols;
    const bool vec = cols % VEC == 0 && (((unsigned long long)x | (unsigned long long)r | (unsigned long long)s |
                                          (unsigned long long)y | (unsigned long long)w | (unsigned long long)b) &
                                         15) == 0;
    float v[MAXV][VEC];
    float acc = 0.f;
    if (vec) {  // vector j of this thread covers columns (j * TPB + tid) * VEC ... + VEC - 1
        const uint4* x4 = reinterpret_cast<const uint4*>(x + o);
        const uint4* r4 = reinterpret_cast<const uint4*>(r + o);
        LnVec xa[MAXV], ra[MAXV];
#pragma unroll
        for (int j = 0; j < MAXV; ++j) {
            const int q = j * TPB + threadIdx.x;
            if (q * VEC < cols) {
                xa[j].raw = ln_ld16<LOAD>(x4 + q);
                ra[j].raw = ln_ld16<LOAD>(r4 + q);
            }
        }
#pragma unroll
        for (int j = 0; j < MAXV; ++j) {
            const int q = j * TPB + threadIdx.x;
            if (q * VEC < cols) {
                LnVec out;
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    v[j][k] = ln_residual(xa[j].e[k], ra[j].e[k]);
                    out.e[k] = kl_from_float<ELEM>(v[j][k]);
                    acc += v[j][k];
                }
                ln_st16<SSTORE>(reinterpret_cast<uint4*>(s + o) + q, out.raw);
            }
        }
    } else {  // element k of vector j of this thread is column (j * VEC + k) * TPB + tid
#pragma unroll
        for (int j = 0; j < MAXV; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const int c = (j * VEC + k) * TPB + threadIdx.x;
                if (c < cols) {
                    v[j][k] = ln_residual(x[o + c], r[o + c]);
                    s[o + c] = kl_from_float<ELEM>(v[j][k]);
                    acc += v[j][k];
                }
            }
    }
    const float mean = RMS ? 0.f : ln_block_sum(acc, sh, TPB) / cols;
    acc = 0.f;
#pragma unroll
    for (int j = 0; j < MAXV; ++j)
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = vec ? (j * TPB + threadIdx.x) * VEC + k : (j * VEC + k) * TPB + threadIdx.x;
            const float d = v[j][k] - mean;
            if (c < cols) acc += d * d;
        }
    const float rstd = rsqrtf(ln_block_sum(acc, sh, TPB) / cols + LN_EPS);
    if (vec) {
#pragma unroll
        for (int j = 0; j < MAXV; ++j) {
            const int q = j * TPB + threadIdx.x;
            if (q * VEC < cols) {
                LnVec wv, bv, out;
                wv.raw = reinterpret_cast<const uint4*>(w)[q];
                if (!RMS) bv.raw = reinterpret_cast<const uint4*>(b)[q];
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    const float n = (v[j][k] - mean) * rstd * kl_to_float(wv.e[k]);
                    out.e[k] = kl_from_float<ELEM>(RMS ? n : n + kl_to_float(bv.e[k]));
                }
                ln_st16<YSTORE>(reinterpret_cast<uint4*>(y + o) + q, out.raw);
            }
        }
    } else {
#pragma unroll
        for (int j = 0; j < MAXV; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const int c = (j * VEC + k) * TPB + threadIdx.x;
                if (c < cols) {
                    const float n = (v[j][k] - mean) * rstd * kl_to_float(w[c]);
                    y[o + c] = kl_from_float<ELEM>(RMS ? n : n + kl_to_float(b[c]));
                }
            }
    }
}
