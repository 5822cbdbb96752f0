// Rung 3 - the FlashAttention-2 backward with dQ in a separate pass: no atomics.
//
// What changes from rung 2: the key-tile kernel (ab_kv_block without ATOMIC_DQ) writes only dK
// and dV; dQ gets a kernel of its own, one block per tile of BM query rows, which keeps Q, dO, L
// and D in shared memory and dQ in registers while it walks the key tiles its rows can see,
// recomputing S, P, dP and dS for each (ab_recompute) and adding dS K. Each dQ element is
// written once, in bf16, by the block that owns its row: no fp32 accumulator, no atomics, no
// convert kernel, and the same sum every run.
// Why it is faster (where it is): the atomics of rung 2 (B H N d x ceil(N / 64) fp32 additions)
// are gone, but S = Q K^T and dP = dO V^T are computed twice, once per pass: 7 products of
// 2 N^2 d per head instead of 5. Which costs more is the measurement: on the CUDA cores the
// products dominate, so expect this rung to lose to rung 2 by up to 7/5.
// What to see: the time against rung 2's; the timeline (three kernels, the dQ pass about 3/5 of
// the key-tile kernel's time).
// What it needs: d = 64 or 128 (one entry each); shared memory as rung 2 (the dQ pass needs
// less); scratch: D only.

#include "ab_tiles.cuh"

extern "C" __global__ void __launch_bounds__(AB_THREADS)
    ab_preprocess(float* Dv, const ELEM* dO, const ELEM* O, long long rows, int d) {
    ab_preprocess_rows(Dv, nullptr, dO, O, rows, d, false);
}

extern "C" __global__ void __launch_bounds__(AB_THREADS)
    ab_kv_d64(ELEM* dK, ELEM* dV, const ELEM* Q, const ELEM* K, const ELEM* V, const ELEM* dO, const float* L,
              const float* Dv, long long N, int causal) {
    ab_kv_block<64, false>(dK, dV, nullptr, Q, K, V, dO, L, Dv, N, causal);
}

extern "C" __global__ void __launch_bounds__(AB_THREADS)
    ab_kv_d128(ELEM* dK, ELEM* dV, const ELEM* Q, const ELEM* K, const ELEM* V, const ELEM* dO, const float* L,
               const float* Dv, long long N, int causal) {
    ab_kv_block<128, false>(dK, dV, nullptr, Q, K, V, dO, L, Dv, N, causal);
}

// One block per query tile (blockIdx.x) of head blockIdx.y. Dynamic shared memory:
// ab_q_smem_floats(D) floats.
__host__ __device__ constexpr int ab_q_smem_floats(int D) {
    return 2 * BM * (D + 1) + 2 * AB_BN * (D + 1) + BM * (AB_BN + 1) + 2 * BM;
}

template <int D>
__device__ __forceinline__ void ab_q_block(ELEM* dQ, const ELEM* Q, const ELEM* K, const ELEM* V, const ELEM* dO,
                                           const float* L, const float* Dv, long long N, int causal) {
    extern __shared__ float ab_smem[];
    float* Qs = ab_smem;
    float* dOs = Qs + BM * (D + 1);
    float* Ks = dOs + BM * (D + 1);
    float* Vs = Ks + AB_BN * (D + 1);
    float* dSs = Vs + AB_BN * (D + 1);
    float* Ls = dSs + BM * (AB_BN + 1);
    float* Ds = Ls + BM;

    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
    const long long head = (long long)blockIdx.y * N;
    const long long i0 = (long long)blockIdx.x * BM;
    ab_load_tile<D, BM>(Qs, Q + head * D, i0, N);
    ab_load_tile<D, BM>(dOs, dO + head * D, i0, N);
    for (int r = threadIdx.x; r < BM; r += AB_THREADS) {
        Ls[r] = i0 + r < N ? L[head + i0 + r] : 0.f;
        Ds[r] = i0 + r < N ? Dv[head + i0 + r] : 0.f;
    }
    // Under causal the last key any row of the tile sees is its last row.
    const long long key_end = causal ? min(N, i0 + BM) : N;
    float dq[AB_RM][D / 16] = {};
    for (long long j0 = 0; j0 < key_end; j0 += AB_BN) {
        __syncthreads();  // Qs ... loaded, or the previous tile's readers done with Ks, Vs, dSs
        ab_load_tile<D, AB_BN>(Ks, K + head * D, j0, N);
        ab_load_tile<D, AB_BN>(Vs, V + head * D, j0, N);
        __syncthreads();
        ab_recompute<D>(nullptr, dSs, Qs, dOs, Ks, Vs, Ls, Ds, i0, j0, N, causal);
        __syncthreads();
        ab_accumulate_nn<D>(dq, dSs, Ks);
    }
    const float scale = 1.f / sqrtf((float)D);
#pragma unroll
    for (int r = 0; r < AB_RM; ++r) {
        const long long i = i0 + ty + 16 * r;
        if (i >= N) continue;
#pragma unroll
        for (int c = 0; c < D / 16; ++c) dQ[(head + i) * D + tx + 16 * c] = kl_from_float<ELEM>(dq[r][c] * scale);
    }
}

extern "C" __global__ void __launch_bounds__(AB_THREADS)
    ab_q_d64(ELEM* dQ, const ELEM* Q, const ELEM* K, const ELEM* V, const ELEM* dO, const float* L, const float* Dv,
             long long N, int causal) {
    ab_q_block<64>(dQ, Q, K, V, dO, L, Dv, N, causal);
}

extern "C" __global__ void __launch_bounds__(AB_THREADS)
    ab_q_d128(ELEM* dQ, const ELEM* Q, const ELEM* K, const ELEM* V, const ELEM* dO, const float* L, const float* Dv,
              long long N, int causal) {
    ab_q_block<128>(dQ, Q, K, V, dO, L, Dv, N, causal);
}
