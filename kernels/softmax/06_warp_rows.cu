// Rung 6 of the softmax ladder: short rows, one warp per row, the row's size known at compile
// time.
//
// What changes from rung 5:
//  - A warp owns a whole row (several rows, RPW, at once); a block is just TPB / 32
//    independent warps. No shared memory and no barrier anywhere.
//  - The number of float4 each lane holds is a template constant K = 1, 2, 4 or 8, picked per
//    launch from cols (cols <= 128 K). Rung 5 sized its register array by the VPT parameter and
//    filled the unused slots with -inf, still paying an exp for each of them; here every
//    register holds data (except the last partial float4 of the row) and the loops unroll
//    completely.
//  - All loads of all RPW rows are issued before the first reduction, and the RPW rows' shuffle
//    reductions interleave, so a warp has RPW independent chains to hide latency with
//    (at most 8 float4 per lane in all: RPW is cut to 8 / K when K is large).
//  - The row is in registers whole, so the statistics need no online rescaling: a max
//    (shuffles), then x -> exp(x - max) in place and a sum (shuffles), then one multiply per
//    element on the way out. One exp per element, one DRAM read, one write.
// Why it should be faster at short rows: at 4096 x 256 the whole problem is 8.4 MB, about
// 2.8 us at the copy line, so fixed costs dominate: instructions between the kernel's start and
// its first load, the loads' round trip, the tail of the last warps. This rung keeps that path
// as short as it can be. At 32768 x 1024 rung 5 spreads a row over two warps joined by a barrier;
// here one warp holds all 1,024 elements (32 registers per lane).
// What to see: at 4096 x 256 it runs within a few percent of a plain copy of the same bytes
// (transpose/copy_row_walk), ahead of online_vec and torch.softmax: at this size the copy itself,
// not the softmax, sets the ceiling (docs/tuning/softmax.md). At 32768 x 1024 it is level with
// rung 5 and the copy. Rows longer than 1,024 are
// not what this rung is for: they take a plain two-pass loop (online statistics, then a second
// read from L2 for the output), correct at any length but slower than rung 5 there.
//
// Layout: if cols % 4 == 0 and both buffers are 16-byte aligned, every row is, and lanes hold
// float4 (lane l takes float4 l, l + 32, ...: each warp load covers 512 consecutive bytes).
// Otherwise lanes hold 4K single floats the same way (128-byte warp loads). Any n >= 1 works.
// A row of all -inf gives all zeros (defined; torch gives NaN).
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data.

// Storage: ELEM (fp32, bf16 or fp16). A "float4" below is a packet of four elements (kl_load4 /
// kl_store4 of kl_vec.cuh: 16 bytes in fp32, 8 in 16 bits) held as a float4 in registers, so K,
// RPW and the manifest's grid mean the same in every dtype; the output is rounded once to ELEM.
#include "kl_vec.cuh"
#ifndef TPB
#define TPB 128
#endif
#ifndef RPW
#define RPW 1
#endif
static_assert(TPB >= 32 && TPB <= 1024 && (TPB % 32) == 0, "TPB must be whole warps, 32..1024");
static_assert(RPW >= 1 && RPW <= 4, "RPW (rows a warp handles at once) must be 1..4");

#define NEG_INF __int_as_float(0xff800000)
#define LOG2E 1.4426950408889634f
#define MAX_REG_FLOAT4 8  // float4 per lane over all rows held at once: rows * K <= 8
// Registers are allocated per kernel, at the maximum over all K paths. Capping rows * K at 8
// float4 (32 floats) and asking for 1024 / TPB blocks per SM (<= 64 registers per thread)
// keeps 32 warps per SM resident: 4,224 warps on 132 SMs, enough for 4,096 rows in one wave.
#define MIN_BLOCKS_PER_SM (1024 / TPB)

// [SECTION] helpers ------------------------------------------------------------------------

__device__ __forceinline__ float fast_exp(float d) { return exp2f(d * LOG2E); }

// exp(a - b) for a <= b, with the -inf - -inf case (nothing seen yet) defined as 0.
__device__ __forceinline__ float exp_below(float a, float b) { return (b == NEG_INF) ? 0.f : fast_exp(a - b); }

__device__ __forceinline__ float max4(float4 q) { return fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w)); }

// Rows warp-reduced side by side: the R shuffle chains are independent.
template <int R>
__device__ __forceinline__ void warp_max_rows(float (&v)[R]) {
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) {
#pragma unroll
        for (int r = 0; r < R; ++r) v[r] = fmaxf(v[r], __shfl_xor_sync(0xffffffffu, v[r], lane_mask));
    }
}
template <int R>
__device__ __forceinline__ void warp_sum_rows(float (&v)[R]) {
#pragma unroll
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) {
#pragma unroll
        for (int r = 0; r < R; ++r) v[r] += __shfl_xor_sync(0xffffffffu, v[r], lane_mask);
    }
}

struct RowGeometry {
    int rows, cols, warp, warps, lane;
};

// [SECTION] rows in registers, float4 ---------------------------------------------------------

// R rows per warp step, K float4 per lane per row (cols <= 128 K).
template <int K, int R>
__device__ __forceinline__ void rows_float4(ELEM* __restrict__ out, const ELEM* __restrict__ in, RowGeometry g) {
    const int vecs = g.cols / 4;
    for (long long row0 = (long long)g.warp * R; row0 < g.rows; row0 += (long long)g.warps * R) {
        float4 v[R][K];
#pragma unroll
        for (int r = 0; r < R; ++r) {  // every load first
            const bool row_ok = row0 + r < g.rows;
            const ELEM* x = in + (row_ok ? row0 + r : 0) * (long long)g.cols;
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const int i = k * 32 + g.lane;
                v[r][k] = (row_ok && i < vecs) ? kl_load4(x, i) : make_float4(NEG_INF, NEG_INF, NEG_INF, NEG_INF);
            }
        }
        float m[R], s[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            m[r] = NEG_INF;
#pragma unroll
            for (int k = 0; k < K; ++k) m[r] = fmaxf(m[r], max4(v[r][k]));
        }
        warp_max_rows<R>(m);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const float base = (m[r] == NEG_INF) ? 0.f : m[r];  // all -inf: every exp is 0
            s[r] = 0.f;
#pragma unroll
            for (int k = 0; k < K; ++k) {
                v[r][k].x = fast_exp(v[r][k].x - base);
                v[r][k].y = fast_exp(v[r][k].y - base);
                v[r][k].z = fast_exp(v[r][k].z - base);
                v[r][k].w = fast_exp(v[r][k].w - base);
                s[r] += (v[r][k].x + v[r][k].y) + (v[r][k].z + v[r][k].w);
            }
        }
        warp_sum_rows<R>(s);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (row0 + r >= g.rows) break;
            const float inv = (s[r] > 0.f) ? 1.f / s[r] : 0.f;
            ELEM* y = out + (row0 + r) * (long long)g.cols;
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const int i = k * 32 + g.lane;
                if (i < vecs)
                    kl_store4(y, i, make_float4(v[r][k].x * inv, v[r][k].y * inv, v[r][k].z * inv, v[r][k].w * inv));
            }
        }
    }
}

// [SECTION] rows in registers, single floats ------------------------------------------------

// Unaligned rows (cols % 4 != 0): the same with E = 4K floats per lane, element l + 32 e.
template <int E, int R>
__device__ __forceinline__ void rows_scalar(ELEM* __restrict__ out, const ELEM* __restrict__ in, RowGeometry g) {
    for (long long row0 = (long long)g.warp * R; row0 < g.rows; row0 += (long long)g.warps * R) {
        float v[R][E];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const bool row_ok = row0 + r < g.rows;
            const ELEM* x = in + (row_ok ? row0 + r : 0) * (long long)g.cols;
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const int c = e * 32 + g.lane;
                v[r][e] = (row_ok && c < g.cols) ? kl_to_float(x[c]) : NEG_INF;
            }
        }
        float m[R], s[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            m[r] = NEG_INF;
#pragma unroll
            for (int e = 0; e < E; ++e) m[r] = fmaxf(m[r], v[r][e]);
        }
        warp_max_rows<R>(m);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const float base = (m[r] == NEG_INF) ? 0.f : m[r];
            s[r] = 0.f;
#pragma unroll
            for (int e = 0; e < E; ++e) {
                v[r][e] = fast_exp(v[r][e] - base);
                s[r] += v[r][e];
            }
        }
        warp_sum_rows<R>(s);
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (row0 + r >= g.rows) break;
            const float inv = (s[r] > 0.f) ? 1.f / s[r] : 0.f;
            ELEM* y = out + (row0 + r) * (long long)g.cols;
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const int c = e * 32 + g.lane;
                if (c < g.cols) y[c] = kl_from_float<ELEM>(v[r][e] * inv);
            }
        }
    }
}

// [SECTION] long rows: two passes per warp --------------------------------------------------

// cols > 1024: online (max, sum) per lane, merged across the warp, then a second read (from L2
// if the row is still there) for the output. Correct at any length; rung 5 is faster here.
__device__ void rows_streamed(ELEM* __restrict__ out, const ELEM* __restrict__ in, RowGeometry g, bool use_float4) {
    for (long long row = g.warp; row < g.rows; row += g.warps) {
        const ELEM* x = in + row * (long long)g.cols;
        ELEM* y = out + row * (long long)g.cols;
        float m = NEG_INF, s = 0.f;
        if (use_float4) {
            for (int i = g.lane; i < g.cols / 4; i += 32) {
                const float4 q = kl_load4(x, i);
                const float m_new = fmaxf(m, max4(q));
                const float base = (m_new == NEG_INF) ? 0.f : m_new;
                s = s * exp_below(m, m_new) + fast_exp(q.x - base) + fast_exp(q.y - base) + fast_exp(q.z - base) +
                    fast_exp(q.w - base);
                m = m_new;
            }
        } else {
            for (int c = g.lane; c < g.cols; c += 32) {
                const float xc = kl_to_float(x[c]);
                if (xc > m) {
                    s = s * exp_below(m, xc) + 1.f;
                    m = xc;
                } else
                    s += exp_below(xc, m);
            }
        }
        float row_m[1] = {m};
        warp_max_rows<1>(row_m);  // then one rescale per lane, then a sum
        float row_s[1] = {s * exp_below(m, row_m[0])};
        warp_sum_rows<1>(row_s);
        const float shift = (row_m[0] == NEG_INF) ? 0.f : row_m[0];
        const float inv = (row_s[0] > 0.f) ? 1.f / row_s[0] : 0.f;
        if (use_float4) {
            for (int i = g.lane; i < g.cols / 4; i += 32) {
                const float4 q = kl_load4(x, i);
                kl_store4(y, i,
                          make_float4(fast_exp(q.x - shift) * inv, fast_exp(q.y - shift) * inv,
                                      fast_exp(q.z - shift) * inv, fast_exp(q.w - shift) * inv));
            }
        } else {
            for (int c = g.lane; c < g.cols; c += 32)
                y[c] = kl_from_float<ELEM>(fast_exp(kl_to_float(x[c]) - shift) * inv);
        }
    }
}

// [SECTION] kernel -------------------------------------------------------------------------

// Rows handled at once for K float4 per lane: RPW, but no more than the register budget allows.
template <int K>
struct RowsAtOnce {
    static constexpr int value = (RPW * K <= MAX_REG_FLOAT4) ? RPW : (MAX_REG_FLOAT4 / K);
};

template <int K>
__device__ __forceinline__ void rows_fitting(ELEM* out, const ELEM* in, RowGeometry g, bool use_float4) {
    if (use_float4)
        rows_float4<K, RowsAtOnce<K>::value>(out, in, g);
    else
        rows_scalar<4 * K, RowsAtOnce<K>::value>(out, in, g);
}

extern "C" __global__ void __launch_bounds__(TPB, MIN_BLOCKS_PER_SM)
    softmax_warp_rows(ELEM* __restrict__ out, const ELEM* __restrict__ in, int rows, int cols) {
    RowGeometry g;
    g.rows = rows;
    g.cols = cols;
    g.lane = threadIdx.x % 32;
    g.warp = blockIdx.x * (TPB / 32) + threadIdx.x / 32;
    g.warps = gridDim.x * (TPB / 32);
    // Uniform over the grid: cols and the buffer addresses decide the path.
    const bool use_float4 =
        (cols % 4) == 0 && ((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) &
                            (KL_PACK_BYTES - 1)) == 0;
    if (cols <= 128)
        rows_fitting<1>(out, in, g, use_float4);
    else if (cols <= 256)
        rows_fitting<2>(out, in, g, use_float4);
    else if (cols <= 512)
        rows_fitting<4>(out, in, g, use_float4);
    else if (cols <= 1024)
        rows_fitting<8>(out, in, g, use_float4);
    else
        rows_streamed(out, in, g, use_float4);
}
