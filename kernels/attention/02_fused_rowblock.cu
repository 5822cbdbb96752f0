// Rung 2 - fused row block: one kernel, scores never leave the chip, two passes over K.
//
// What changes from rung 1: a block owns BR = 64 query rows of one head and walks the keys in
// tiles of BC = 64, with Q, the K tile, the V tile and a tile of probabilities in shared memory.
// Nothing of size N^2 is ever stored. A row's softmax weights exp(s - m) / l need the row's max
// m and sum l over all keys, which are only known at the end, so the block walks K twice:
//   pass 1: score each K tile, fold the scores into a running (m, l) per row, discard them;
//   pass 2: score each K tile again, p = exp(s - m) / l is now final, accumulate O += P V_tile.
// Why it should be faster than rung 1: per head it reads Q once, K twice and V once per query block and
// writes O once, instead of 4 N^2 elements of S and P. The price: Q K^T is computed twice,
// 6 N^2 d FLOPs instead of 4 N^2 d (the TFLOP/s shown use the 4 N^2 d count of every rung).
// Causal: a query block stops at its diagonal tile; only that tile (and a partial last tile)
// needs the element mask. Blocks are launched heaviest first (the last query block first).
// What to see: far less memory than rung 1 at large N (nothing of size N^2), and a time that
// shows the second pass over K: the price rung 3 removes.
//
// Threads: 256 = 16 x 16; thread (ty, tx) owns rows ty + 16 i and score columns tx + 16 j
// (i, j < 4), and output columns tx + 16 c. Strided ownership keeps shared-memory reads
// conflict-free: the rows of Q and K are padded to d + 1 floats. Math is fp32 on CUDA cores;
// bf16 inputs are converted when loaded. d is 64 or 128 (two instantiations, picked at run time).
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 or bf16 data.

#include "kl_common.cuh"

#define BR 64  // query rows per block
#define BC 64  // keys per tile
#define THREADS 256
#define NEG_INF_F __int_as_float(0xff800000)
#define LOG2E 1.4426950408889634f
#define LN2 0.6931471805599453f

// Shared memory in floats: Q [BR][D+1] (pre-scaled to log2 units), K [BC][D+1], V [BC][D],
// P [BR][BC+1]. The manifest's smem expression is 4 times this.
template <int D>
__host__ __device__ constexpr int smem_floats() {
    return BR * (D + 1) + BC * (D + 1) + BC * D + BR * (BC + 1);
}

__device__ __forceinline__ void merge_state(float& m, float& l, float m2, float l2) {
    const float mx = fmaxf(m, m2);
    if (mx == NEG_INF_F) return;
    l = l * exp2f(m - mx) + l2 * exp2f(m2 - mx);
    m = mx;
}

// rows [row0, row0 + ROWS) of a [N][D] matrix -> shared [ROWS][STRIDE] floats, zeros past N.
template <int D, int ROWS, int STRIDE>
__device__ __forceinline__ void load_rows(float* dst, const ELEM* src, int row0, int N, float scale) {
    for (int e = threadIdx.x; e < ROWS * D; e += THREADS) {
        const int r = e / D, c = e % D;
        dst[r * STRIDE + c] = row0 + r < N ? kl_to_float(src[(long long)(row0 + r) * D + c]) * scale : 0.f;
    }
}

// s[i][j] = score of row ty + 16 i against key tx + 16 j of the tile, in log2 units, masked to
// -inf for keys past N and (causal) keys after the query.
template <int D>
__device__ __forceinline__ void tile_scores(float (&s)[4][4], const float* sQ, const float* sK, int ty, int tx, int q0,
                                            int k0, int N, int causal) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) s[i][j] = 0.f;
#pragma unroll 8
    for (int k = 0; k < D; ++k) {
        float q[4], kv[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) q[i] = sQ[(ty + 16 * i) * (D + 1) + k];
#pragma unroll
        for (int j = 0; j < 4; ++j) kv[j] = sK[(tx + 16 * j) * (D + 1) + k];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) s[i][j] = fmaf(q[i], kv[j], s[i][j]);
    }
    if (k0 + BC > N || (causal && k0 + BC - 1 > q0)) {  // only edge and diagonal tiles
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int key = k0 + tx + 16 * j, row = q0 + ty + 16 * i;
                if (key >= N || (causal && key > row)) s[i][j] = NEG_INF_F;
            }
    }
}

template <int D>
__device__ __forceinline__ void fused_rowblock(ELEM* O, float* lse, const ELEM* Q, const ELEM* K, const ELEM* V, int N,
                                               int causal) {
    extern __shared__ float smem[];
    float* sQ = smem;
    float* sK = sQ + BR * (D + 1);
    float* sV = sK + BC * (D + 1);
    float* sP = sV + BC * D;

    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int q0 = (gridDim.x - 1 - blockIdx.x) * BR;  // heaviest (causal) query blocks first
    const long long head = (long long)blockIdx.y * N;
    Q += head * D;
    K += head * D;
    V += head * D;
    O += head * D;
    lse += head;

    load_rows<D, BR, D + 1>(sQ, Q, q0, N, LOG2E / sqrtf((float)D));
    const int key_end = causal ? min(N, q0 + BR) : N;
    const int tiles = (key_end + BC - 1) / BC;

    // Pass 1: per-thread running (max, sum) over its own columns, merged across the 16 threads
    // of each row group at the end.
    float m[4], l[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        m[i] = NEG_INF_F;
        l[i] = 0.f;
    }
    for (int t = 0; t < tiles; ++t) {
        __syncthreads();  // previous tile consumed (and, for t = 0, sQ written)
        load_rows<D, BC, D + 1>(sK, K, t * BC, N, 1.f);
        __syncthreads();
        float s[4][4];
        tile_scores<D>(s, sQ, sK, ty, tx, q0, t * BC, N, causal);
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float mx = fmaxf(fmaxf(s[i][0], s[i][1]), fmaxf(s[i][2], s[i][3]));
            if (mx == NEG_INF_F) continue;
            const float m_new = fmaxf(m[i], mx);
            l[i] = l[i] * exp2f(m[i] - m_new) + exp2f(s[i][0] - m_new) + exp2f(s[i][1] - m_new) +
                   exp2f(s[i][2] - m_new) + exp2f(s[i][3] - m_new);
            m[i] = m_new;
        }
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
        for (int off = 8; off > 0; off /= 2) {  // the 16 threads of a row group share ty: lanes differ in bits 0-3
            const float m2 = __shfl_xor_sync(0xffffffffu, m[i], off);
            const float l2 = __shfl_xor_sync(0xffffffffu, l[i], off);
            merge_state(m[i], l[i], m2, l2);
        }

    // Pass 2: final probabilities, O += P V.
    constexpr int OC = D / 16;  // output columns per thread
    float o[4][OC];
    float inv_l[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        inv_l[i] = 1.f / l[i];
#pragma unroll
        for (int c = 0; c < OC; ++c) o[i][c] = 0.f;
    }
    for (int t = 0; t < tiles; ++t) {
        __syncthreads();
        load_rows<D, BC, D + 1>(sK, K, t * BC, N, 1.f);
        load_rows<D, BC, D>(sV, V, t * BC, N, 1.f);
        __syncthreads();
        float s[4][4];
        tile_scores<D>(s, sQ, sK, ty, tx, q0, t * BC, N, causal);
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) sP[(ty + 16 * i) * (BC + 1) + tx + 16 * j] = exp2f(s[i][j] - m[i]) * inv_l[i];
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < BC; ++kk) {
            float v[OC];
#pragma unroll
            for (int c = 0; c < OC; ++c) v[c] = sV[kk * D + tx + 16 * c];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const float p = sP[(ty + 16 * i) * (BC + 1) + kk];
#pragma unroll
                for (int c = 0; c < OC; ++c) o[i][c] = fmaf(p, v[c], o[i][c]);
            }
        }
    }

#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int row = q0 + ty + 16 * i;
        if (row >= N) continue;
#pragma unroll
        for (int c = 0; c < OC; ++c) O[(long long)row * D + tx + 16 * c] = kl_from_float<ELEM>(o[i][c]);
        if (tx == 0) lse[row] = (m[i] + log2f(l[i])) * LN2;
    }
}

// Grid: (ceil(N / BR), B * H). Shared memory: 4 * smem_floats<d>() bytes.
extern "C" __global__ void __launch_bounds__(THREADS)
    attention_fused_rowblock(ELEM* O, float* lse, const ELEM* Q, const ELEM* K, const ELEM* V, int N, int d,
                             int causal) {
    if (d == 64)
        fused_rowblock<64>(O, lse, Q, K, V, N, causal);
    else
        fused_rowblock<128>(O, lse, Q, K, V, N, causal);
}
