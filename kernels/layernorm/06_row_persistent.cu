// Rung 6: the row in registers (rung 4), in persistent blocks that load the next row while they
// reduce this one.
//
// What changes from rung 4: the grid is no longer one block per row but BPS blocks per SM, each
// walking the rows blockIdx.x, blockIdx.x + gridDim.x, ... At the top of every row a block issues
// the 16-byte loads of its NEXT row's x and r into a second set of registers, and only then adds,
// reduces (two block sums with their barriers), normalizes and stores the current row. w and b, the
// same for every row, are staged once per block in shared memory. STORE picks the cache hint of the
// two stores (for the tuning notes): 0 s write-back, y streaming (rung 4's choice); 1 both
// streaming (evict-first); 2 both write-back.
// Why it should be faster (the prediction): in rung 4 a block's loads are all issued at its start
// and none while it reduces and stores; DRAM stays busy only because other blocks are at other
// phases, and at the kernel's start and end it is not. Here every block always has a row in flight,
// and 4,096 block launches become BPS x 132.
// What to see: the prediction fails, and why: the grid is a fixed list of rows per block, so blocks
// that do not fit on the SMs at once (registers for two rows) run their whole share at the end, a
// tail of their own, and a block that waits on its reductions delays its next row however early its
// loads were issued. Rung 4's dynamic scheduling of one-row blocks balances better. The
// counter-example of the ladder, kept for that; the measurements are in docs/tuning/layernorm.md.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data; serves
// add_layernorm and, with RMS = 1, add_rmsnorm (rung 06b).
#include "ln_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");
static_assert(MAXV >= 1 && MAXV <= 16, "1 to 16 vectors per thread");
#ifndef STORE
#define STORE 0
#endif

#define VEC (16 / (int)sizeof(ELEM))  // elements per 16-byte vector

union LnVec {
    uint4 raw;
    ELEM e[VEC];
};

struct LnRow {  // one row's share of this thread: MAXV vectors of x and of r, as stored
    LnVec x[MAXV], r[MAXV];
};

// Column of element k of vector j of this thread: 16-byte vectors side by side, or (rows that
// are not 16-byte aligned) single elements side by side, TPB apart.
__device__ __forceinline__ int ln_col(bool vec, int j, int k) {
    return vec ? (j * TPB + (int)threadIdx.x) * VEC + k : (j * VEC + k) * TPB + (int)threadIdx.x;
}

__device__ __forceinline__ void ln_load_row(LnRow& a, const ELEM* x, const ELEM* r, long long o, int cols, bool vec) {
    if (vec) {
#pragma unroll
        for (int j = 0; j < MAXV; ++j) {
            const int q = j * TPB + threadIdx.x;
            if (q * VEC < cols) {
                a.x[j].raw = __ldcs(reinterpret_cast<const uint4*>(x + o) + q);
                a.r[j].raw = __ldcs(reinterpret_cast<const uint4*>(r + o) + q);
            }
        }
    } else {
#pragma unroll
        for (int j = 0; j < MAXV; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const int c = ln_col(false, j, k);
                if (c < cols) {
                    a.x[j].e[k] = x[o + c];
                    a.r[j].e[k] = r[o + c];
                }
            }
    }
}

__device__ __forceinline__ void ln_store_vec(ELEM* p, long long i, uint4 v, bool streaming) {
    if (streaming)
        __stcs(reinterpret_cast<uint4*>(p) + i, v);
    else
        reinterpret_cast<uint4*>(p)[i] = v;
}

// s = x + r (stored), the statistics from registers, y = norm(s) * w + b (w, b from `wb`).
__device__ __forceinline__ void ln_row(const LnRow& a, ELEM* s, ELEM* y, const ELEM* wb, long long o, int cols,
                                       bool vec, float* sh) {
    float v[MAXV][VEC];
    float acc = 0.f;
#pragma unroll
    for (int j = 0; j < MAXV; ++j) {
        LnVec out;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = ln_col(vec, j, k);
            v[j][k] = c < cols ? ln_residual(a.x[j].e[k], a.r[j].e[k]) : 0.f;
            out.e[k] = kl_from_float<ELEM>(v[j][k]);
            acc += v[j][k];
            if (!vec && c < cols) s[o + c] = out.e[k];
        }
        const int q = j * TPB + threadIdx.x;
        if (vec && q * VEC < cols) ln_store_vec(s + o, q, out.raw, STORE == 1);
    }
    const float mean = RMS ? 0.f : ln_block_sum(acc, sh, TPB) / cols;
    acc = 0.f;
#pragma unroll
    for (int j = 0; j < MAXV; ++j)
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const float d = v[j][k] - mean;
            if (ln_col(vec, j, k) < cols) acc += d * d;
        }
    const float rstd = rsqrtf(ln_block_sum(acc, sh, TPB) / cols + LN_EPS);
    const ELEM* w = wb;
    const ELEM* b = wb + cols;
#pragma unroll
    for (int j = 0; j < MAXV; ++j) {
        const int q = j * TPB + threadIdx.x;
        LnVec wv, bv, out;
        if (vec && q * VEC < cols) {
            wv.raw = reinterpret_cast<const uint4*>(w)[q];
            if (!RMS) bv.raw = reinterpret_cast<const uint4*>(b)[q];
        }
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = ln_col(vec, j, k);
            if (c >= cols) continue;
            const float n = (v[j][k] - mean) * rstd * kl_to_float(vec ? wv.e[k] : w[c]);
            out.e[k] = kl_from_float<ELEM>(RMS ? n : n + kl_to_float(vec ? bv.e[k] : b[c]));
            if (!vec) y[o + c] = out.e[k];
        }
        if (vec && q * VEC < cols) ln_store_vec(y + o, q, out.raw, STORE != 2);
    }
}

// Dynamic shared memory: 2 * cols elements (w, then b; b unused under RMS = 1).
extern "C" __global__ void __launch_bounds__(TPB)
    ln_row_persistent(ELEM* __restrict__ s, ELEM* __restrict__ y, const ELEM* __restrict__ x,
                      const ELEM* __restrict__ r, const ELEM* __restrict__ w, const ELEM* __restrict__ b, int rows,
                      int cols) {
    extern __shared__ uint4 wb_raw[];  // uint4: 16-byte aligned for the vector reads
    ELEM* wb = reinterpret_cast<ELEM*>(wb_raw);
    __shared__ float sh[32];
    const bool vec = cols % VEC == 0 && (((unsigned long long)x | (unsigned long long)r | (unsigned long long)s |
                                          (unsigned long long)y | (unsigned long long)w | (unsigned long long)b) &
                                         15) == 0;
    long long row = blockIdx.x;  // the block's rows: row, row + gridDim.x, ... (uniform over the block)
    LnRow cur;
    if (row < rows) ln_load_row(cur, x, r, row * cols, cols, vec);  // first: the row's loads
    for (int c = threadIdx.x; c < cols; c += TPB) {                 // then w and b, once per block
        wb[c] = w[c];
        if (!RMS) wb[cols + c] = b[c];
    }
    __syncthreads();
    for (; row < rows; row += gridDim.x) {
        const long long next = row + gridDim.x;
        LnRow nxt;
        if (next < rows) ln_load_row(nxt, x, r, next * cols, cols, vec);  // in flight meanwhile
        ln_row(cur, s, y, wb, row * cols, cols, vec, sh);
        cur = nxt;
    }
}
