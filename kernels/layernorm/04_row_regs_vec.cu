// Rung 4: the row in registers, with 16-byte loads and stores.
//
// What changes from rung 3: each thread loads its share of x and r (MAXV vectors of 16 bytes each:
// 4 fp32 or 8 bf16/fp16 elements) before doing anything else; it keeps s in registers, stores it
// once, and computes the mean and then the variance from registers (the exact two-pass formula, now
// free: no memory is read twice), then writes y. When cols is not a multiple of the vector width
// (or a pointer is not 16-byte aligned) the same registers are filled element by element.
// Why it is faster: every load of the row is in flight at once; DRAM and L2 each see the 4 passes
// the work needs and nothing more; a quarter (fp32) or an eighth (16-bit) of the memory
// instructions of rung 3.
// What to see: close to the copy roof.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data; the row
// must fit: cols <= TPB * MAXV * VEC (the manifest checks). Serves add_layernorm and, with RMS = 1,
// add_rmsnorm (rung 04b).
#include "ln_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");
static_assert(MAXV >= 1 && MAXV <= 16, "1 to 16 vectors per thread");

#define VEC (16 / (int)sizeof(ELEM))  // elements per 16-byte vector

union LnVec {
    uint4 raw;
    ELEM e[VEC];
};

extern "C" __global__ void __launch_bounds__(TPB)
    ln_row_regs_vec(ELEM* __restrict__ s, ELEM* __restrict__ y, const ELEM* __restrict__ x, const ELEM* __restrict__ r,
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
                xa[j].raw = __ldcs(x4 + q);
                ra[j].raw = __ldcs(r4 + q);
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
                reinterpret_cast<uint4*>(s + o)[q] = out.raw;
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
                __stcs(reinterpret_cast<uint4*>(y + o) + q, out.raw);
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
