// Reference solution of lesson 9's FlashAttention exercise (`kladder solution 09_attention/10`).
// This is the flash_fp32 rung's own kernel (kernels/attention/03_flash_fp32.cu): a block of 256
// threads per 64 query rows; K and V stream through shared memory in tiles of 64 keys; 16
// threads share a query row, each scoring 4 rows x 4 keys of the tile from registers. Each row
// keeps its running max m, running sum l and unnormalized output o; when a tile raises the max,
// l and o are multiplied by exp(m_old - m_new) first. Scores are in base 2 (Q scaled by
// log2(e) / sqrt(d) as it is loaded), so exp2f does the exponentials. Keys past N and, with
// causal, keys after the row are set to -inf; a row with nothing visible yet subtracts 0, not
// -inf, so no NaN is made. O = o / l and lse = (m + log2 l) ln 2 are written once at the end.

#include "kl_common.cuh"

#define BR 64
#define BC 64
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

template <int D, int ROWS, int STRIDE>
__device__ __forceinline__ void load_rows(float* dst, const float* src, int row0, int N, float scale) {
    for (int e = threadIdx.x; e < ROWS * D; e += THREADS) {
        const int r = e / D, c = e % D;
        dst[r * STRIDE + c] = row0 + r < N ? src[(long long)(row0 + r) * D + c] * scale : 0.f;
    }
}

template <int D>
__device__ __forceinline__ void flash_fp32(float* O, float* lse, const float* Q, const float* K, const float* V, int N,
                                           int causal) {
    extern __shared__ float smem[];
    float* sQ = smem;
    float* sK = sQ + BR * (D + 1);
    float* sV = sK + BC * (D + 1);
    float* sP = sV + BC * D;

    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int q0 = (gridDim.x - 1 - blockIdx.x) * BR;
    const long long head = (long long)blockIdx.y * N;
    Q += head * D;
    K += head * D;
    V += head * D;
    O += head * D;
    lse += head;

    load_rows<D, BR, D + 1>(sQ, Q, q0, N, LOG2E / sqrtf((float)D));
    const int key_end = causal ? min(N, q0 + BR) : N;
    const int tiles = (key_end + BC - 1) / BC;

    constexpr int OC = D / 16;
    float m[4], l[4], o[4][OC];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        m[i] = NEG_INF_F;
        l[i] = 0.f;
#pragma unroll
        for (int c = 0; c < OC; ++c) o[i][c] = 0.f;
    }

    for (int t = 0; t < tiles; ++t) {
        const int k0 = t * BC;
        __syncthreads();  // everybody is done with the previous K, V and P tiles
        load_rows<D, BC, D + 1>(sK, K, k0, N, 1.f);
        load_rows<D, BC, D>(sV, V, k0, N, 1.f);
        __syncthreads();

        float s[4][4];
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
        if (k0 + BC > N || (causal && k0 + BC - 1 > q0)) {  // edge and diagonal tiles only
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const int key = k0 + tx + 16 * j, row = q0 + ty + 16 * i;
                    if (key >= N || (causal && key > row)) s[i][j] = NEG_INF_F;
                }
        }

        // Online update: the row max over the 16 threads of the row group, then rescale.
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            float mx = fmaxf(fmaxf(s[i][0], s[i][1]), fmaxf(s[i][2], s[i][3]));
#pragma unroll
            for (int off = 8; off > 0; off /= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
            const float m_new = fmaxf(m[i], mx);
            // A row with no visible key so far keeps m = -inf; subtract 0 then, not -inf (NaN).
            const float base = m_new == NEG_INF_F ? 0.f : m_new;
            const float alpha = exp2f(m[i] - base);
            m[i] = m_new;
            l[i] *= alpha;
#pragma unroll
            for (int c = 0; c < OC; ++c) o[i][c] *= alpha;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const float p = exp2f(s[i][j] - base);
                l[i] += p;
                sP[(ty + 16 * i) * (BC + 1) + tx + 16 * j] = p;
            }
        }
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
#pragma unroll
        for (int off = 8; off > 0; off /= 2) l[i] += __shfl_xor_sync(0xffffffffu, l[i], off);
        const int row = q0 + ty + 16 * i;
        if (row >= N) continue;
        const float inv_l = 1.f / l[i];
#pragma unroll
        for (int c = 0; c < OC; ++c) O[(long long)row * D + tx + 16 * c] = o[i][c] * inv_l;
        if (tx == 0) lse[row] = (m[i] + log2f(l[i])) * LN2;
    }
}

// Grid: (ceil(N / BR), B * H). Shared memory: 4 * smem_floats<d>() bytes.
extern "C" __global__ void __launch_bounds__(THREADS)
    attention_flash_fp32(float* O, float* lse, const float* Q, const float* K, const float* V, int N, int d,
                         int causal) {
    if (d == 64)
        flash_fp32<64>(O, lse, Q, K, V, N, causal);
    else
        flash_fp32<128>(O, lse, Q, K, V, N, causal);
}
