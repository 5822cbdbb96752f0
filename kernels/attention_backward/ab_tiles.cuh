// Pieces the recomputing attention_backward rungs share (rungs 2 and 3; included from the rung's
// own folder). The math: app/model/ops/attention_backward_ref.h.
//
// A block of AB_THREADS = 256 threads works on tiles held in shared memory as fp32 (converted
// from bf16 once on load), rows padded by one float so that 16 threads reading 16 different rows
// at the same column hit 16 different banks. Threads form a 16 x 16 grid (ty = tid / 16,
// tx = tid % 16); a thread owns rows ty, ty + 16, ... and columns tx, tx + 16, ... of every tile
// product, so a warp (two values of ty) reads two rows of one operand and 16 of the other.
// Plain fp32 FMAs: the rungs teach the recomputation and the dQ reduction, not tensor cores.
//
// Key tiles have AB_BN = 64 rows, query tiles BM (32 or 64: the rung's parameter); rows and
// keys past N are zero-filled and masked, so N may be anything >= 1.
#pragma once
#include "ab_common.cuh"

#ifndef BM
#error "BM must be defined, e.g. -DBM=64"
#endif
static_assert(BM == 32 || BM == 64, "BM: query rows per tile, 32 or 64");

#define AB_BN 64
#define AB_RM (BM / 16)     // query rows per thread in a tile product
#define AB_RN (AB_BN / 16)  // key rows per thread

// ROWS rows of a [N][D] head from row `first` into dst[ROWS][D + 1] as float; zeros past N.
template <int D, int ROWS>
__device__ __forceinline__ void ab_load_tile(float* dst, const ELEM* src, long long first, long long N) {
    for (int e = threadIdx.x; e < ROWS * D; e += AB_THREADS) {
        const int r = e / D, c = e % D;
        dst[r * (D + 1) + c] = first + r < N ? kl_to_float(src[(first + r) * D + c]) : 0.f;
    }
}

// acc[r][c] = sum_k A[ty + 16 r][k] B[tx + 16 c][k]: a BM x AB_BN tile of A B^T, both [rows][D + 1].
template <int D>
__device__ __forceinline__ void ab_tile_abt(float (&acc)[AB_RM][AB_RN], const float* A, const float* B) {
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
#pragma unroll
    for (int r = 0; r < AB_RM; ++r)
#pragma unroll
        for (int c = 0; c < AB_RN; ++c) acc[r][c] = 0.f;
#pragma unroll 4
    for (int k = 0; k < D; ++k) {
        float a[AB_RM], b[AB_RN];
#pragma unroll
        for (int r = 0; r < AB_RM; ++r) a[r] = A[(ty + 16 * r) * (D + 1) + k];
#pragma unroll
        for (int c = 0; c < AB_RN; ++c) b[c] = B[(tx + 16 * c) * (D + 1) + k];
#pragma unroll
        for (int r = 0; r < AB_RM; ++r)
#pragma unroll
            for (int c = 0; c < AB_RN; ++c) acc[r][c] += a[r] * b[c];
    }
}

// The recomputation of one (query tile, key tile) pair: P = exp(Q K^T / sqrt(d) - L) and
// dS = P * (dO V^T - D), both into [BM][AB_BN + 1] tiles (P only when P_out is not null); 0 for
// rows or keys past N and for keys the causal mask hides. i0, j0: the tiles' first rows.
template <int D>
__device__ __forceinline__ void ab_recompute(float* P_out, float* dS_out, const float* Qs, const float* dOs,
                                             const float* Ks, const float* Vs, const float* Ls, const float* Ds,
                                             long long i0, long long j0, long long N, int causal) {
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
    const float scale = 1.f / sqrtf((float)D);
    float s[AB_RM][AB_RN], dp[AB_RM][AB_RN];
    ab_tile_abt<D>(s, Qs, Ks);
    ab_tile_abt<D>(dp, dOs, Vs);
#pragma unroll
    for (int r = 0; r < AB_RM; ++r)
#pragma unroll
        for (int c = 0; c < AB_RN; ++c) {
            const int ir = ty + 16 * r, jc = tx + 16 * c;
            const long long i = i0 + ir, j = j0 + jc;
            const bool visible = i < N && j < N && (!causal || j <= i);
            const float p = visible ? expf(s[r][c] * scale - Ls[ir]) : 0.f;
            if (P_out) P_out[ir * (AB_BN + 1) + jc] = p;
            dS_out[ir * (AB_BN + 1) + jc] = visible ? p * (dp[r][c] - Ds[ir]) : 0.f;
        }
}

// acc[r][c] += sum_k T[k][ty + 16 r] X[k][tx + 16 c] over the BM rows k of a query tile:
// dV += P^T dO and dK += dS^T Q for the thread's key rows ty + 16 r (T is [BM][AB_BN + 1], X is
// [BM][D + 1]).
template <int D>
__device__ __forceinline__ void ab_accumulate_tn(float (&acc)[AB_RN][D / 16], const float* T, const float* X) {
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
#pragma unroll 2
    for (int k = 0; k < BM; ++k) {
        float t[AB_RN];
#pragma unroll
        for (int r = 0; r < AB_RN; ++r) t[r] = T[k * (AB_BN + 1) + ty + 16 * r];
#pragma unroll
        for (int c = 0; c < D / 16; ++c) {
            const float x = X[k * (D + 1) + tx + 16 * c];
#pragma unroll
            for (int r = 0; r < AB_RN; ++r) acc[r][c] += t[r] * x;
        }
    }
}

// acc[r][c] += sum_j dS[ty + 16 r][j] K[j][tx + 16 c] over the AB_BN keys of a tile: a share of
// dQ for the thread's query rows (dS is [BM][AB_BN + 1], K is [AB_BN][D + 1]).
template <int D>
__device__ __forceinline__ void ab_accumulate_nn(float (&acc)[AB_RM][D / 16], const float* dS, const float* K) {
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
#pragma unroll 2
    for (int j = 0; j < AB_BN; ++j) {
        float a[AB_RM];
#pragma unroll
        for (int r = 0; r < AB_RM; ++r) a[r] = dS[(ty + 16 * r) * (AB_BN + 1) + j];
#pragma unroll
        for (int c = 0; c < D / 16; ++c) {
            const float k = K[j * (D + 1) + tx + 16 * c];
#pragma unroll
            for (int r = 0; r < AB_RM; ++r) acc[r][c] += a[r] * k;
        }
    }
}

// One block per key tile of AB_BN keys (blockIdx.x) of head blockIdx.y: K and V stay in shared
// memory, dK and dV in registers, while the block walks the query tiles that can see its keys
// (under causal, from the tile holding its first key on). With ATOMIC_DQ each tile's share of
// dQ = dS K / sqrt(d) is added into the fp32 accumulator dq_acc by atomics (rung 2); without,
// dQ is left to a separate pass (rung 3). Dynamic shared memory: ab_kv_smem_floats(D) floats.
__host__ __device__ constexpr int ab_kv_smem_floats(int D) {
    return 2 * AB_BN * (D + 1) + 2 * BM * (D + 1) + 2 * BM * (AB_BN + 1) + 2 * BM;
}

template <int D, bool ATOMIC_DQ>
__device__ __forceinline__ void ab_kv_block(ELEM* dK, ELEM* dV, float* dq_acc, const ELEM* Q, const ELEM* K,
                                            const ELEM* V, const ELEM* dO, const float* L, const float* Dv, long long N,
                                            int causal) {
    extern __shared__ float ab_smem[];
    float* Ks = ab_smem;
    float* Vs = Ks + AB_BN * (D + 1);
    float* Qs = Vs + AB_BN * (D + 1);
    float* dOs = Qs + BM * (D + 1);
    float* Ps = dOs + BM * (D + 1);
    float* dSs = Ps + BM * (AB_BN + 1);
    float* Ls = dSs + BM * (AB_BN + 1);
    float* Ds = Ls + BM;

    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
    const long long head = (long long)blockIdx.y * N;  // first row of the head
    const long long j0 = (long long)blockIdx.x * AB_BN;
    const float scale = 1.f / sqrtf((float)D);
    ab_load_tile<D, AB_BN>(Ks, K + head * D, j0, N);
    ab_load_tile<D, AB_BN>(Vs, V + head * D, j0, N);

    float dk[AB_RN][D / 16] = {}, dv[AB_RN][D / 16] = {};
    for (long long i0 = causal ? (j0 / BM) * BM : 0; i0 < N; i0 += BM) {
        __syncthreads();  // the previous tile's readers are done with Qs, dOs, Ps, dSs
        ab_load_tile<D, BM>(Qs, Q + head * D, i0, N);
        ab_load_tile<D, BM>(dOs, dO + head * D, i0, N);
        for (int r = threadIdx.x; r < BM; r += AB_THREADS) {
            Ls[r] = i0 + r < N ? L[head + i0 + r] : 0.f;
            Ds[r] = i0 + r < N ? Dv[head + i0 + r] : 0.f;
        }
        __syncthreads();
        ab_recompute<D>(Ps, dSs, Qs, dOs, Ks, Vs, Ls, Ds, i0, j0, N, causal);
        __syncthreads();
        ab_accumulate_tn<D>(dv, Ps, dOs);
        ab_accumulate_tn<D>(dk, dSs, Qs);
        if (ATOMIC_DQ) {
            float dq[AB_RM][D / 16] = {};
            ab_accumulate_nn<D>(dq, dSs, Ks);
#pragma unroll
            for (int r = 0; r < AB_RM; ++r) {
                const long long i = i0 + ty + 16 * r;
                if (i >= N) continue;
#pragma unroll
                for (int c = 0; c < D / 16; ++c) atomicAdd(&dq_acc[(head + i) * D + tx + 16 * c], dq[r][c] * scale);
            }
        }
    }
#pragma unroll
    for (int r = 0; r < AB_RN; ++r) {
        const long long j = j0 + ty + 16 * r;
        if (j >= N) continue;
#pragma unroll
        for (int c = 0; c < D / 16; ++c) {
            dK[(head + j) * D + tx + 16 * c] = kl_from_float<ELEM>(dk[r][c] * scale);
            dV[(head + j) * D + tx + 16 * c] = kl_from_float<ELEM>(dv[r][c]);
        }
    }
}
