// Rung 5 - rung 4 with every operand fragment loaded by ldmatrix. The copy is the lesson: diff it against 04.
//
// What changes from rung 4: nothing in the plan; only how fragments leave shared memory. Rung 4
// read each register of a B operand stored with k down its columns (dO and Q for dV and dK, K for
// dQ) as two 16-bit loads, and every other fragment register as one 32-bit load: about 3 shared
// loads per mma. ldmatrix.x4 (kl_ptx.cuh) loads four 8 x 8 matrices in one instruction, each lane
// giving one row address, and .trans delivers them transposed: one instruction gives the b0, b1
// of two n-tiles (or an A fragment), about 0.6 loads per mma. The lane-to-row addresses are in
// ab_ldsm.cuh.
// Why it is faster: rung 4 issues more shared-memory instructions than tensor-core ones, so the
// load/store unit, not the tensor cores, sets its pace; the 16-bit loads also conflict in banks.
// What to see: the TFLOP/s against rung 4's at d = 64 and 128; what is left is the atomics of dQ
// (timeline: the key-tile kernel alone) and the missing Hopper features.
// What it needs: sm_80 (mma.sync with bf16 operands, ldmatrix); bf16 data; d = 64 or 128 (one
// entry each); scratch: D and the B H N d fp32 accumulator.

#include "ab_common.cuh"
#include "ab_ldsm.cuh"

#define MMA_THREADS 128  // 4 warps
#define MMA_BN 64        // keys per block, 16 per warp
#define MMA_BM 64        // query rows per step
#define MMA_LDS (MMA_BN + 8)

typedef __nv_bfloat16 bf16;

extern "C" __global__ void __launch_bounds__(AB_THREADS)
    ab_preprocess_zero(float* Dv, float* dq_acc, const ELEM* dO, const ELEM* O, long long rows, int d) {
    ab_preprocess_rows(Dv, dq_acc, dO, O, rows, d, true);
}

extern "C" __global__ void __launch_bounds__(AB_THREADS) ab_convert_dq(ELEM* dQ, const float* dq_acc, long long n) {
    ab_convert_rows(dQ, dq_acc, n);
}

// ROWS rows of a [N][D] bf16 head from row `first` into dst (rows of D + 8), 16 bytes at a time;
// zeros past N.
template <int D, int ROWS>
__device__ __forceinline__ void mma_load_tile(bf16* dst, const bf16* src, long long first, long long N) {
    constexpr int VPR = D / 8;
    for (int e = threadIdx.x; e < ROWS * VPR; e += MMA_THREADS) {
        const int r = e / VPR, v = e % VPR;
        uint4 val = make_uint4(0u, 0u, 0u, 0u);
        if (first + r < N) val = *reinterpret_cast<const uint4*>(src + (first + r) * D + v * 8);
        *reinterpret_cast<uint4*>(dst + r * (D + 8) + v * 8) = val;
    }
}

// Dynamic shared memory: (2 MMA_BN + 2 MMA_BM) (D + 8) + MMA_BM MMA_LDS bf16, then 2 MMA_BM floats.
template <int D>
__device__ __forceinline__ void ab_kv_ldsm(bf16* dK, bf16* dV, float* dq_acc, const bf16* Q, const bf16* K,
                                           const bf16* V, const bf16* dO, const float* L, const float* Dv, long long N,
                                           int causal) {
    constexpr int LD = D + 8;
    extern __shared__ __align__(16) unsigned char ab_mma_smem[];
    bf16* Ks = reinterpret_cast<bf16*>(ab_mma_smem);
    bf16* Vs = Ks + MMA_BN * LD;
    bf16* Qs = Vs + MMA_BN * LD;
    bf16* dOs = Qs + MMA_BM * LD;
    bf16* dSs = dOs + MMA_BM * LD;  // [query][key]
    float* Ls = reinterpret_cast<float*>(dSs + MMA_BM * MMA_LDS);
    float* Ds = Ls + MMA_BM;

    const int warp = threadIdx.x / 32, g = (threadIdx.x % 32) / 4, t = threadIdx.x % 4;
    const int kr = 16 * warp;  // the warp's first key row in the tile, and its first query row for dQ
    const long long head = (long long)blockIdx.y * N;
    const long long j0 = (long long)blockIdx.x * MMA_BN;
    const float scale = 1.f / sqrtf((float)D);
    mma_load_tile<D, MMA_BN>(Ks, K + head * D, j0, N);
    mma_load_tile<D, MMA_BN>(Vs, V + head * D, j0, N);

    float dk[D / 8][4] = {}, dv[D / 8][4] = {};
    for (long long i0 = causal ? j0 : 0; i0 < N; i0 += MMA_BM) {  // MMA_BM == MMA_BN: j0 starts a tile
        __syncthreads();  // the previous step's readers are done with Qs, dOs, dSs
        mma_load_tile<D, MMA_BM>(Qs, Q + head * D, i0, N);
        mma_load_tile<D, MMA_BM>(dOs, dO + head * D, i0, N);
        for (int r = threadIdx.x; r < MMA_BM; r += MMA_THREADS) {
            Ls[r] = i0 + r < N ? L[head + i0 + r] : 0.f;
            Ds[r] = i0 + r < N ? Dv[head + i0 + r] : 0.f;
        }
        __syncthreads();
        // S^T and dP^T of the warp's 16 keys against the 64 queries: 8 tiles of 8 queries.
        float st[8][4] = {}, dpt[8][4] = {};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            unsigned ka[4], va[4];
            ldsm_a(ka, Ks, LD, kr, 16 * kk);
            ldsm_a(va, Vs, LD, kr, 16 * kk);
#pragma unroll
            for (int nt = 0; nt < 8; nt += 2) {  // query rows are the n index, d runs along them
                unsigned qb[4], gb[4];
                ldsm_b_rows(qb, Qs, LD, 8 * nt, 16 * kk);
                ldsm_b_rows(gb, dOs, LD, 8 * nt, 16 * kk);
                ab_mma(st[nt], ka, qb[0], qb[1]);
                ab_mma(st[nt + 1], ka, qb[2], qb[3]);
                ab_mma(dpt[nt], va, gb[0], gb[1]);
                ab_mma(dpt[nt + 1], va, gb[2], gb[3]);
            }
        }
        // P^T and dS^T in place; dS^T also to shared memory as dS for the dQ product.
#pragma unroll
        for (int nt = 0; nt < 8; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int key = kr + g + (e >= 2 ? 8 : 0), qc = 8 * nt + 2 * t + (e & 1);
                const long long i = i0 + qc, j = j0 + key;
                const bool visible = i < N && j < N && (!causal || j <= i);
                const float p = visible ? expf(st[nt][e] * scale - Ls[qc]) : 0.f;
                const float ds = visible ? p * (dpt[nt][e] - Ds[qc]) : 0.f;
                st[nt][e] = p;
                dpt[nt][e] = ds;
                dSs[qc * MMA_LDS + key] = __float2bfloat16(ds);
            }
            // dV_w += P^T dO and dK_w += dS^T Q over the 64 queries, 16 at a time.
#pragma unroll
        for (int kq = 0; kq < 4; ++kq) {
            const unsigned pa[4] = {ab_pack(st[2 * kq][0], st[2 * kq][1]), ab_pack(st[2 * kq][2], st[2 * kq][3]),
                                    ab_pack(st[2 * kq + 1][0], st[2 * kq + 1][1]),
                                    ab_pack(st[2 * kq + 1][2], st[2 * kq + 1][3])};
            const unsigned sa[4] = {ab_pack(dpt[2 * kq][0], dpt[2 * kq][1]), ab_pack(dpt[2 * kq][2], dpt[2 * kq][3]),
                                    ab_pack(dpt[2 * kq + 1][0], dpt[2 * kq + 1][1]),
                                    ab_pack(dpt[2 * kq + 1][2], dpt[2 * kq + 1][3])};
#pragma unroll
            for (int nd = 0; nd < D / 8; nd += 2) {  // query rows are the k index: transposed loads
                unsigned gb[4], qb[4];
                ldsm_b_cols(gb, dOs, LD, 16 * kq, 8 * nd);
                ldsm_b_cols(qb, Qs, LD, 16 * kq, 8 * nd);
                ab_mma(dv[nd], pa, gb[0], gb[1]);
                ab_mma(dv[nd + 1], pa, gb[2], gb[3]);
                ab_mma(dk[nd], sa, qb[0], qb[1]);
                ab_mma(dk[nd + 1], sa, qb[2], qb[3]);
            }
        }
        __syncthreads();  // the dS tile is whole
        // dQ of query rows kr .. kr + 15 over the block's 64 keys, added by atomics.
        float dq[D / 8][4] = {};
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
            unsigned a[4];
            ldsm_a(a, dSs, MMA_LDS, kr, 16 * kk);
#pragma unroll
            for (int nd = 0; nd < D / 8; nd += 2) {  // keys are the k index: transposed loads
                unsigned kb[4];
                ldsm_b_cols(kb, Ks, LD, 16 * kk, 8 * nd);
                ab_mma(dq[nd], a, kb[0], kb[1]);
                ab_mma(dq[nd + 1], a, kb[2], kb[3]);
            }
        }
#pragma unroll
        for (int nd = 0; nd < D / 8; ++nd)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const long long i = i0 + kr + g + (e >= 2 ? 8 : 0);
                if (i < N) atomicAdd(&dq_acc[(head + i) * D + 8 * nd + 2 * t + (e & 1)], dq[nd][e] * scale);
            }
    }
#pragma unroll
    for (int nd = 0; nd < D / 8; ++nd)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const long long j = j0 + kr + g + (e >= 2 ? 8 : 0);
            if (j >= N) continue;
            const long long at = (head + j) * D + 8 * nd + 2 * t + (e & 1);
            dK[at] = __float2bfloat16(dk[nd][e] * scale);
            dV[at] = __float2bfloat16(dv[nd][e]);
        }
}

extern "C" __global__ void __launch_bounds__(MMA_THREADS)
    ab_kv_ldsm_d64(bf16* dK, bf16* dV, float* dq_acc, const bf16* Q, const bf16* K, const bf16* V, const bf16* dO,
                   const float* L, const float* Dv, long long N, int causal) {
    ab_kv_ldsm<64>(dK, dV, dq_acc, Q, K, V, dO, L, Dv, N, causal);
}

extern "C" __global__ void __launch_bounds__(MMA_THREADS)
    ab_kv_ldsm_d128(bf16* dK, bf16* dV, float* dq_acc, const bf16* Q, const bf16* K, const bf16* V, const bf16* dO,
                    const float* L, const float* Dv, long long N, int causal) {
    ab_kv_ldsm<128>(dK, dV, dq_acc, Q, K, V, dO, L, Dv, N, causal);
}
