// Rung 7: rung 4 with the next rows' loads in flight while the block reduces and writes the
// current one: s and dy staged through shared memory, STAGES - 1 rows ahead (cp.async).
//
// What changes from rung 4: where a row's s and dy wait between their load and their use. In
// rung 4 a thread loads its share of the row into registers, then the block reduces and writes
// dx; from the reduction on the block has no load in flight, so an SM (2 blocks) has at most 2
// rows requested at a time, and often none. Here each block keeps STAGES slots of s and dy in
// shared memory and, before it works on a row, issues with cp.async (global to shared memory: no
// register held, no wait) the copies of the row STAGES - 1 of its rows ahead. A thread copies and
// reads only its own packs (its columns, the same in every row), so the stages need no barrier:
// cp_async_wait on the thread's own copies is enough. The next row's mean and rstd are loaded one
// row ahead. The end: END = 0 as rung 4 (partial rows, a column kernel); END = 1 adds each
// block's sums into fp32 totals (16-byte reductions in L2), and the last block to finish rounds
// the totals and clears them for the next run: one kernel, no second launch.
// Why it should be faster: the bytes in flight per SM. Little's law: 4.2 TB/s x ~1 us of DRAM
// latency over 132 SMs needs ~32 KB requested per SM at every moment; rung 4 has that only while
// it loads. At the defaults (2 blocks of 512 threads, 3 stages) an SM always has 4 rows on their
// way, 128 KiB in fp32 and 64 KiB in bf16, while it reduces and writes.
// What to see: against rung 4, the time in bf16 most (its rows are half the bytes for the same
// wait); STAGES = 1 is rung 4 through shared memory with no row ahead; END = 0 against 1 (the
// timeline's second kernel); the occupancy view: shared memory (8 x STAGES x TPB x MAXP x esize
// bytes a block) bounds the blocks per SM in fp32 before registers do.
// What it needs: sm_80 (cp.async); cols <= TPB * MAXP * 4 (the manifest checks); the statistics
// the forward saved (no recomputation); scratch of 2 x grid x cols fp32 and a ticket; END = 1
// uses Hopper's red.global.add.v4.f32 on sm_90 (four scalar atomics before it).
#define STATS 1  // the row statistics are read (rungs 3 to 5 can recompute them; this rung cannot)
#include "lnb_async.cuh"
#include "lnb_rowblock.cuh"

static_assert(STAGES >= 1 && STAGES <= 8, "1 to 8 row stages");
// Rung 8 names the blocks an SM must hold at once (its BPS), so that ptxas fits the registers to
// the persistent grid; this rung leaves ptxas its own choice (asking for 1 changes it).
#ifdef LNB_MIN_BLOCKS
#define LNB_LAUNCH_BOUNDS __launch_bounds__(TPB, LNB_MIN_BLOCKS)
#else
#define LNB_LAUNCH_BOUNDS __launch_bounds__(TPB)
#endif
static_assert(END == 0 || END == 1, "END: 0 partial rows and a column kernel, 1 atomics and the last block");

// Pack j of array a (0: s, 1: dy) of stage st, this thread's: 4 elements. Thread t's packs are
// neighbours of thread t - 1's (no bank conflict on the warp's reads).
__device__ __forceinline__ ELEM* lnb_stage_pack(ELEM* stages, int st, int a, int j) {
    return stages + ((((st * 2 + a) * MAXP + j) * TPB) + (int)threadIdx.x) * VEC;
}

// Start the copies of this thread's share of row r (s and dy) into stage st. Pack path: one
// cp.async per pack in the row; element path (cols not a multiple of 4, or a pointer not aligned
// to a pack): ordinary loads and stores, done by the time this returns. Slots past the row are
// zeroed once at the start (lnb_pipelined_rows) and never written.
__device__ __forceinline__ void lnb_issue_row(ELEM* stages, int st, const ELEM* __restrict__ s,
                                              const ELEM* __restrict__ dy, long long r, bool vec, int cols) {
    const long long o = r * cols;
#pragma unroll
    for (int a = 0; a < 2; ++a) {
        const ELEM* src = (a == 0 ? s : dy) + o;
#pragma unroll
        for (int j = 0; j < MAXP; ++j) {
            ELEM* slot = lnb_stage_pack(stages, st, a, j);
            if (vec) {
                const int q = j * TPB + threadIdx.x;
                if (q * VEC < cols) lnb_cp_async_pack<LNB_PACK_BYTES>(smem_addr(slot), src + q * VEC);
            } else {
#pragma unroll
                for (int k = 0; k < VEC; ++k) {
                    const int c = lnb_col(false, j, k);
                    if (c < cols) slot[k] = src[c];
                }
            }
        }
    }
}

// dx of the block's rows (blockIdx.x, + gridDim.x, ...), with the rows' copies STAGES - 1 rows
// ahead; `cs` comes back holding this thread's sums of dy * xhat and dy over those rows.
// Returns whether the pack path ran.
__device__ __forceinline__ bool lnb_pipelined_rows(ELEM* __restrict__ dx, const ELEM* __restrict__ s,
                                                   const ELEM* __restrict__ dy, const ELEM* __restrict__ w,
                                                   const float* __restrict__ mean_in, const float* __restrict__ rstd_in,
                                                   long long rows, int cols, LnbRegColumns& cs) {
    __shared__ float2 sh2[32];
    ELEM* stages = reinterpret_cast<ELEM*>(lnb_dynamic_smem());
    const bool vec =
        cols % VEC == 0 &&
        (((unsigned long long)dx | (unsigned long long)s | (unsigned long long)dy | (unsigned long long)w) &
         (LNB_PACK_BYTES - 1)) == 0;
    cs.begin(w, vec, cols);
#pragma unroll
    for (int st = 0; st < STAGES; ++st)
#pragma unroll
        for (int a = 0; a < 2; ++a)
#pragma unroll
            for (int j = 0; j < MAXP; ++j)
#pragma unroll
                for (int k = 0; k < VEC; ++k)
                    if (lnb_col(vec, j, k) >= cols) lnb_stage_pack(stages, st, a, j)[k] = kl_from_float<ELEM>(0.f);
    const long long grid = gridDim.x;
    // The prologue: the block's first STAGES - 1 rows, one group of copies each (empty past the
    // last row: every iteration then waits on the same count).
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        const long long r = blockIdx.x + st * grid;
        if (r < rows) lnb_issue_row(stages, st, s, dy, r, vec, cols);
        cp_async_commit();
    }
    float mean_next = 0.f, rstd_next = 0.f;
    if ((long long)blockIdx.x < rows) {
        if (!RMS) mean_next = mean_in[blockIdx.x];
        rstd_next = rstd_in[blockIdx.x];
    }
    int st = 0;                                                  // the stage of `row`
    for (long long row = blockIdx.x; row < rows; row += grid) {  // uniform over the block
        // The slot STAGES - 1 ahead held this thread's previous row, which it has finished reading.
        const long long ahead = row + (STAGES - 1) * grid;
        if (ahead < rows) lnb_issue_row(stages, st == 0 ? STAGES - 1 : st - 1, s, dy, ahead, vec, cols);
        cp_async_commit();
        const float mean = mean_next, rstd = rstd_next;
        if (row + grid < rows) {
            if (!RMS) mean_next = mean_in[row + grid];
            rstd_next = rstd_in[row + grid];
        }
        cp_async_wait<STAGES - 1>();  // this row's group has landed (the newer ones may not have)
        float sv[MAXP][VEC], dv[MAXP][VEC];
#pragma unroll
        for (int j = 0; j < MAXP; ++j) {
            LnbPackRaw ps, pd;
            ps.raw = *reinterpret_cast<const LnbPackBits*>(lnb_stage_pack(stages, st, 0, j));
            pd.raw = *reinterpret_cast<const LnbPackBits*>(lnb_stage_pack(stages, st, 1, j));
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                sv[j][k] = kl_to_float(ps.e[k]);
                dv[j][k] = kl_to_float(pd.e[k]);
            }
        }
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
        const long long o = row * cols;
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
        st = st + 1 == STAGES ? 0 : st + 1;
    }
    cp_async_wait<0>();  // only empty groups can remain; nothing may be in flight at exit
    return vec;
}

// The main kernel. END = 0: the block's sums as row blockIdx.x of part_g and part_b (rung 4's
// end, lnb_store_partial_row; ticket, dgamma and dbeta unused). END = 1: the sums added into
// part_g[0 .. cols) and part_b[0 .. cols) (the totals), then the last block to finish writes
// dgamma and dbeta and leaves the totals and the ticket at zero, as the scratch started.
extern "C" __global__ void LNB_LAUNCH_BOUNDS
lnb_rowblock_pipelined(ELEM* __restrict__ dx, float* __restrict__ part_g, float* __restrict__ part_b,
                       unsigned* __restrict__ ticket, ELEM* __restrict__ dgamma, ELEM* __restrict__ dbeta,
                       const ELEM* __restrict__ s, const ELEM* __restrict__ dy, const ELEM* __restrict__ w,
                       const float* __restrict__ mean, const float* __restrict__ rstd, long long rows, int cols) {
    LnbRegColumns cs;
    const bool vec = lnb_pipelined_rows(dx, s, dy, w, mean, rstd, rows, cols, cs);
    if (END == 0) {
        lnb_store_partial_row(part_g, part_b, cs, vec, cols);
        return;
    }
    const bool vec4 = vec && (((unsigned long long)part_g | (unsigned long long)part_b) & 15) == 0;
#pragma unroll
    for (int j = 0; j < MAXP; ++j) {
        if (vec4) {  // the pack's columns are neighbours: one 16-byte reduction per 4
#pragma unroll
            for (int k = 0; k < VEC; k += 4) {
                const int c = lnb_col(true, j, k);
                if (c < cols) {
                    lnb_red_add4(part_g + c, cs.sum_g(j, k), cs.sum_g(j, k + 1), cs.sum_g(j, k + 2),
                                 cs.sum_g(j, k + 3));
                    if (!RMS)
                        lnb_red_add4(part_b + c, cs.sum_b(j, k), cs.sum_b(j, k + 1), cs.sum_b(j, k + 2),
                                     cs.sum_b(j, k + 3));
                }
            }
        } else {  // the columns this thread's sums belong to: the pack path's when it ran
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const int c = lnb_col(vec, j, k);
                if (c < cols) {
                    atomicAdd(part_g + c, cs.sum_g(j, k));
                    if (!RMS) atomicAdd(part_b + c, cs.sum_b(j, k));
                }
            }
        }
    }
    // The last block: every block's additions are done before its ticket is taken (fence, then
    // barrier); the block that draws gridDim.x - 1 sees them all.
    __shared__ unsigned drawn;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) drawn = atomicAdd(ticket, 1u);
    __syncthreads();
    if (drawn != gridDim.x - 1) return;
    __threadfence();
    for (int c = threadIdx.x; c < cols; c += TPB) {
        dgamma[c] = kl_from_float<ELEM>(__ldcg(part_g + c));
        part_g[c] = 0.f;
        if (!RMS) {
            dbeta[c] = kl_from_float<ELEM>(__ldcg(part_b + c));
            part_b[c] = 0.f;
        }
    }
    if (threadIdx.x == 0) *ticket = 0u;
}

// dgamma and dbeta (END = 0): the column sums of the grid's partial rows (rung 4's second kernel).
extern "C" __global__ void __launch_bounds__(32 * LNB_COL_WARPS)
    lnb_partial_col_sums(ELEM* __restrict__ dgamma, ELEM* __restrict__ dbeta, const float* __restrict__ part_g,
                         const float* __restrict__ part_b, long long parts, int cols) {
    lnb_partial_column_sums(dgamma, dbeta, part_g, part_b, parts, cols);
}
