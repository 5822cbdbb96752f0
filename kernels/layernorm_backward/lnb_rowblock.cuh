// The main loop of rungs 3, 4 and 5 (rungs 3 and 4 differ in what happens after it: rung 3 adds
// each block's dgamma and dbeta into fp32 totals with atomics, rung 4 writes them as a row of
// partial sums for a second kernel; rung 5 keeps w and the sums in shared memory instead of
// registers, LnbSmemColumns below; each file says so at its top). At the bottom, what the ends
// share: the walk over a thread's columns (lnb_each_column), and the two-stage end of
// rungs 4, 5 and 7 (lnb_store_partial_row, lnb_partial_column_sums).
//
// A block walks rows blockIdx.x, blockIdx.x + gridDim.x, ... (gridDim.x = BPS x SMs, persistent
// blocks). Each thread owns the same columns of every row: MAXP packs of 4 elements. So w is
// loaded once per block and kept in registers, and the
// thread's share of dgamma and dbeta (sums of dy * xhat and dy over the block's rows) stays in
// registers across rows: per row the block reads s and dy once and writes dx once, the floor.
// A thread holds MAXP packs of 4 elements (kl_vec.cuh's KlPack4: one 16-byte access in fp32, one
// 8-byte access in bf16/fp16), so that a thread holds as many elements, and as many registers,
// in every storage type (16-byte vectors would double both in 16 bits and halve the blocks that
// fit on an SM). Rung 8 (LNB_WIDE) takes that trade, where the per-pack instructions set the pace.
// The row statistics are read (STATS = 1: 8 bytes a row, issued with the row's loads) or
// recomputed from the row in registers (STATS = 0: two more block reductions, no more bytes).
// When cols is not a multiple of 4 (or a pointer is not aligned to a pack) the same registers are
// filled element by element. The row must fit: cols <= TPB * MAXP * 4.
#pragma once
#include "kl_vec.cuh"
#include "lnb_common.cuh"

static_assert(TPB % 32 == 0 && TPB <= 1024, "threads per block: whole warps, at most 1024");
static_assert(MAXP >= 1 && MAXP <= 16, "1 to 16 packs of 4 elements per thread");
static_assert(STATS == 0 || STATS == 1, "STATS: 0 recompute, 1 read the saved statistics");

// LNB_WIDE = 1 (rung 8): a pack is 16 bytes in every dtype, KL_VEC elements (8 in 16 bits), for
// rungs whose per-pack instructions, not their registers, set the pace.
#ifndef LNB_WIDE
#define LNB_WIDE 0
#endif
#if LNB_WIDE
#define VEC KL_VEC  // elements per pack: 16 bytes
typedef KlVecRaw LnbPackRaw;
typedef uint4 LnbPackBits;
#else
#define VEC 4  // elements per pack
typedef KlPack4Raw LnbPackRaw;
typedef KlPack4Bits LnbPackBits;
#endif
#define LNB_PACK_BYTES (VEC * (int)sizeof(ELEM))

// Column of element k of pack j of this thread: pack path (j * TPB + tid) * VEC + k,
// element path (j * VEC + k) * TPB + tid; every warp access is coalesced either way.
__device__ __forceinline__ int lnb_col(bool vec, int j, int k) {
    return vec ? (j * TPB + (int)threadIdx.x) * VEC + k : (j * VEC + k) * TPB + (int)threadIdx.x;
}

// This thread's share of a row of p, as floats; columns past the row read as 0. `stream`: data
// read once (s, dy) loads with evict-first (.cs), so it does not push w or the partials out of L2.
__device__ __forceinline__ void lnb_load_share(float (&v)[MAXP][VEC], const ELEM* __restrict__ p, bool vec, int cols,
                                               bool stream) {
    if (vec) {
#pragma unroll
        for (int j = 0; j < MAXP; ++j) {
            const int q = j * TPB + threadIdx.x;
            LnbPackRaw x;
            x.raw = LnbPackBits{};
            if (q * VEC < cols)
                x.raw = stream ? __ldcs(reinterpret_cast<const LnbPackBits*>(p) + q)
                               : reinterpret_cast<const LnbPackBits*>(p)[q];
#pragma unroll
            for (int k = 0; k < VEC; ++k) v[j][k] = kl_to_float(x.e[k]);
        }
    } else {
#pragma unroll
        for (int j = 0; j < MAXP; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const int c = lnb_col(false, j, k);
                v[j][k] = c < cols ? kl_to_float(p[c]) : 0.f;
            }
    }
}

// Mean and rstd of the row in registers: the exact two-pass formula, from registers.
__device__ __forceinline__ void lnb_share_stats(const float (&sv)[MAXP][VEC], bool vec, int cols, float* sh,
                                                float& mean, float& rstd) {
    float acc = 0.f;
    if (!RMS) {
#pragma unroll
        for (int j = 0; j < MAXP; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) acc += sv[j][k];  // columns past the row hold 0
        mean = lnb_block_sum(acc, sh, TPB) / cols;
        acc = 0.f;
    }
#pragma unroll
    for (int j = 0; j < MAXP; ++j)
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const float d = sv[j][k] - mean;
            if (lnb_col(vec, j, k) < cols) acc += d * d;
        }
    rstd = rsqrtf(lnb_block_sum(acc, sh, TPB) / cols + LNB_EPS);
}

// Where a thread keeps w and its sums of dy * xhat (g) and dy (b) for its columns: in registers
// (rungs 3 and 4: 3 of the 5 registers each element of the row costs), ...
struct LnbRegColumns {
    float wv[MAXP][VEC], pg[MAXP][VEC], pb[MAXP][VEC];
    __device__ __forceinline__ void begin(const ELEM* __restrict__ w, bool vec, int cols) {
        lnb_load_share(wv, w, vec, cols, false);
#pragma unroll
        for (int j = 0; j < MAXP; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) pg[j][k] = pb[j][k] = 0.f;
    }
    __device__ __forceinline__ float w(int j, int k) const { return wv[j][k]; }
    __device__ __forceinline__ void add(int j, int k, float g, float b) {
        pg[j][k] += g;
        pb[j][k] += b;
    }
    __device__ __forceinline__ float sum_g(int j, int k) const { return pg[j][k]; }
    __device__ __forceinline__ float sum_b(int j, int k) const { return pb[j][k]; }
};

// ... or in shared memory (rung 5): three arrays of TPB x MAXP x 4 floats, where element k of
// pack j of thread t has slot (j * 4 + k) * TPB + t: a warp's 32 threads touch 32 neighbouring
// floats (no bank conflict), and no thread reads another's slot (no barrier).
struct LnbSmemColumns {
    float *ws, *sg, *sb;
    __device__ __forceinline__ static int slot(int j, int k) { return (j * VEC + k) * TPB + (int)threadIdx.x; }
    __device__ __forceinline__ void begin(const ELEM* __restrict__ w, bool vec, int cols) {
#pragma unroll
        for (int j = 0; j < MAXP; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const int c = lnb_col(vec, j, k);
                ws[slot(j, k)] = c < cols ? kl_to_float(w[c]) : 0.f;
                sg[slot(j, k)] = sb[slot(j, k)] = 0.f;
            }
    }
    __device__ __forceinline__ float w(int j, int k) const { return ws[slot(j, k)]; }
    __device__ __forceinline__ void add(int j, int k, float g, float b) {
        sg[slot(j, k)] += g;
        sb[slot(j, k)] += b;
    }
    __device__ __forceinline__ float sum_g(int j, int k) const { return sg[slot(j, k)]; }
    __device__ __forceinline__ float sum_b(int j, int k) const { return sb[slot(j, k)]; }
};

// dx of the block's rows; `cs` comes back holding this thread's sums of dy * xhat and dy over
// those rows, for its columns (lnb_col). Returns whether the pack path ran.
template <class Columns>
__device__ __forceinline__ bool lnb_rowblock_rows(ELEM* __restrict__ dx, const ELEM* __restrict__ s,
                                                  const ELEM* __restrict__ dy, const ELEM* __restrict__ w,
                                                  const float* __restrict__ mean_in, const float* __restrict__ rstd_in,
                                                  long long rows, int cols, Columns& cs) {
    __shared__ float sh[32];
    __shared__ float2 sh2[32];
    const bool vec =
        cols % VEC == 0 &&
        (((unsigned long long)dx | (unsigned long long)s | (unsigned long long)dy | (unsigned long long)w) &
         (LNB_PACK_BYTES - 1)) == 0;
    cs.begin(w, vec, cols);
    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {  // uniform over the block
        const long long o = row * cols;
        float mean = 0.f, rstd = 0.f;
        if (STATS) {
            if (!RMS) mean = mean_in[row];
            rstd = rstd_in[row];
        }
        float sv[MAXP][VEC], dv[MAXP][VEC];
        lnb_load_share(sv, s + o, vec, cols, true);
        lnb_load_share(dv, dy + o, vec, cols, true);
        if (!STATS) lnb_share_stats(sv, vec, cols, sh, mean, rstd);
        float2 acc = make_float2(0.f, 0.f);  // columns past the row have dy = 0: they add nothing
#pragma unroll
        for (int j = 0; j < MAXP; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const float g = dv[j][k] * cs.w(j, k);
                acc.x += g;
                acc.y += g * (sv[j][k] - mean) * rstd;
            }
        acc = lnb_block_sum2(acc, sh2, TPB);
        const float a = RMS ? 0.f : acc.x / cols, b = acc.y / cols;
#pragma unroll
        for (int j = 0; j < MAXP; ++j) {
            LnbPackRaw out;
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const float xhat = (sv[j][k] - mean) * rstd;
                out.e[k] = kl_from_float<ELEM>(rstd * (dv[j][k] * cs.w(j, k) - a - xhat * b));
                cs.add(j, k, dv[j][k] * xhat, dv[j][k]);
            }
            if (vec) {
                const int q = j * TPB + threadIdx.x;
                if (q * VEC < cols) __stcs(reinterpret_cast<LnbPackBits*>(dx + o) + q, out.raw);
            } else {
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    const int c = lnb_col(false, j, k);
                    if (c < cols) dx[o + c] = out.e[k];
                }
            }
        }
    }
    return vec;
}

// The ends of rungs 3, 4, 5 and 7: f(c, j, k) for each column c of the row this thread holds
// sums for, element k of its pack j (cs.sum_g(j, k), cs.sum_b(j, k)). Rung 3 adds the sums with
// atomics, the others store them. `vec` is what lnb_rowblock_rows (or rung 7's loop) returned:
// the path it ran decides which columns the thread's sums belong to (lnb_col).
template <class EachColumn>
__device__ __forceinline__ void lnb_each_column(bool vec, int cols, EachColumn f) {
#pragma unroll
    for (int j = 0; j < MAXP; ++j)
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = lnb_col(vec, j, k);
            if (c < cols) f(c, j, k);
        }
}

// The two-stage end of rungs 4, 5 and 7 (rung 7 at END = 0), first stage: this thread's sums of
// dy * xhat and dy, for its columns, stored as its share of row blockIdx.x of part_g and part_b
// (grid x cols fp32 each). Plain stores: each block owns its row, so no atomics, and the second
// stage adds the rows in a fixed order (the same dgamma and dbeta on every run).
template <class Columns>
__device__ __forceinline__ void lnb_store_partial_row(float* __restrict__ part_g, float* __restrict__ part_b,
                                                      const Columns& cs, bool vec, int cols) {
    const long long o = (long long)blockIdx.x * cols;
    lnb_each_column(vec, cols, [&](int c, int j, int k) {
        part_g[o + c] = cs.sum_g(j, k);
        if (!RMS) part_b[o + c] = cs.sum_b(j, k);
    });
}

// Second stage, the body of each of those rungs' kernel lnb_partial_col_sums (its own launch, so
// every block's row is written before any is read): dgamma and dbeta as the column sums of the
// `parts` partial rows, rung 1's column reduction (lnb_column_sums: launch grid cdiv(cols, 32),
// block (32, LNB_COL_WARPS)). Under RMS = 1 part_b and dbeta are neither read nor written.
__device__ __forceinline__ void lnb_partial_column_sums(ELEM* __restrict__ dgamma, ELEM* __restrict__ dbeta,
                                                        const float* __restrict__ part_g,
                                                        const float* __restrict__ part_b, long long parts, int cols) {
    lnb_column_sums(dgamma, dbeta, parts, cols, [&](long long r, int c) {
        const long long i = r * cols + c;
        return make_float2(part_g[i], RMS ? 0.f : part_b[i]);
    });
}
