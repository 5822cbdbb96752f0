// Rung 2 - the FlashAttention-2 backward: P recomputed per tile, dQ added by atomics.
//
// What changes from rung 1: P and dP never reach memory. A preprocess kernel computes
// D_i = rowsum(dO_i * O_i) (and zeroes an fp32 dQ accumulator); then one block per tile of 64
// keys keeps its K and V tile in shared memory and dK, dV in registers while it walks the query
// tiles that can see those keys (ab_tiles.cuh, ab_kv_block): for each, it recomputes
// S = Q K^T, P = exp(S / sqrt(d) - L) from the forward's log-sum-exp, dP = dO V^T and
// dS = P * (dP - D), adds P^T dO to dV and dS^T Q to dK, and adds its share dS K / sqrt(d) of
// dQ into the accumulator with fp32 atomicAdd: every key tile contributes to every query row,
// and no block owns a query row. A last kernel rounds the accumulator to bf16.
// Why it is faster: the N^2 traffic of rung 1 is gone; what is left per head is K and V read
// once, Q, dO, L and D read once per key tile (from L2 mostly), and the atomics: B H N d x
// ceil(N / 64) fp32 additions (half under causal), done by L2's atomic units.
// What to see: against rung 3 (dQ in a separate pass, no atomics, S and dP computed twice),
// what the atomics cost; against cuDNN's SDPA backward, what plain fp32 FMAs cost (the products
// run on the CUDA cores here, not the tensor cores).
// What it needs: d = 64 or 128 (one entry each); the shared memory of ab_kv_smem_floats (about
// 162 KB at d = 128 with BM = 64: sm_80 or newer; BM = 32 needs 113 KB); scratch: D and the
// B H N d fp32 accumulator.

#include "ab_tiles.cuh"

extern "C" __global__ void __launch_bounds__(AB_THREADS)
    ab_preprocess_zero(float* Dv, float* dq_acc, const ELEM* dO, const ELEM* O, long long rows, int d) {
    ab_preprocess_rows(Dv, dq_acc, dO, O, rows, d, true);
}

extern "C" __global__ void __launch_bounds__(AB_THREADS)
    ab_kv_atomic_d64(ELEM* dK, ELEM* dV, float* dq_acc, const ELEM* Q, const ELEM* K, const ELEM* V, const ELEM* dO,
                     const float* L, const float* Dv, long long N, int causal) {
    ab_kv_block<64, true>(dK, dV, dq_acc, Q, K, V, dO, L, Dv, N, causal);
}

extern "C" __global__ void __launch_bounds__(AB_THREADS)
    ab_kv_atomic_d128(ELEM* dK, ELEM* dV, float* dq_acc, const ELEM* Q, const ELEM* K, const ELEM* V, const ELEM* dO,
                      const float* L, const float* Dv, long long N, int causal) {
    ab_kv_block<128, true>(dK, dV, dq_acc, Q, K, V, dO, L, Dv, N, causal);
}

// dQ = the accumulator rounded to bf16 (already scaled by 1 / sqrt(d)).
extern "C" __global__ void __launch_bounds__(AB_THREADS) ab_convert_dq(ELEM* dQ, const float* dq_acc, long long n) {
    ab_convert_rows(dQ, dq_acc, n);
}
