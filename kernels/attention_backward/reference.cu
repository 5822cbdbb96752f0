// Engine helper for the attention_backward ladder, not a rung: the reference for problems too
// large for the CPU (app/model/ops/attention_backward.cpp launches it above B H N^2 d = 2^26 and
// checks a few of its rows on the CPU). The math: app/model/ops/attention_backward_ref.h.
//
// All arithmetic in double, one rounding to float at the end. Q, K, V, O, dO are ELEM (bf16,
// upcast exactly) in [B*H][N][d] layout, L float [B*H][N]; dQ, dK, dV float [B*H][N][d].
// causal = 1 restricts query i to keys 0..i.
//
// One block of REF_THREADS threads serves REF_ROWS consecutive rows of one head (query rows for
// ref_attention_dq, key rows for ref_attention_dkdv), held in shared memory, so each row of the
// other side read from global memory is used for REF_ROWS dot products. In chunks of
// REF_THREADS rows of the other side: a warp per row of the chunk computes its dot products with
// the block's rows (lanes along d, coalesced, then a warp sum) and writes P and dS to shared
// memory; then every thread accumulates its (row, column) outputs over the chunk. Slow by design
// (double precision, dot products recomputed by both kernels) but O(N) memory and simple.

#include "kl_common.cuh"

#define REF_THREADS 128
#define REF_WARPS (REF_THREADS / 32)
#define REF_ROWS 8
#define REF_MAX_D 256                                 // the operation's d axis ends here
#define REF_ACC (REF_ROWS * REF_MAX_D / REF_THREADS)  // outputs per thread at most

__device__ __forceinline__ double ref_warp_sum(double v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Which head and which REF_ROWS rows of it (query rows for dq, key rows for dkdv) this block
// serves; `rows` is less than REF_ROWS only in a head's last block.
struct RefRowBlock {
    long long bh, first, head;  // head: the offset of the head's [N][d] rows
    int rows;
};

__device__ __forceinline__ RefRowBlock ref_row_block(long long N, int d, long long row_blocks) {
    RefRowBlock b;
    b.bh = blockIdx.x / row_blocks;
    b.first = (blockIdx.x % row_blocks) * REF_ROWS;
    b.rows = (int)min((long long)REF_ROWS, N - b.first);
    b.head = b.bh * N * d;
    return b;
}

// The block's rows of two [N][d] tensors, upcast to double in shared memory ([REF_ROWS][d]
// each); rows past the head's end are zeros.
__device__ __forceinline__ void ref_stage_rows(double* a, double* b, const ELEM* A, const ELEM* B,
                                               const RefRowBlock& blk, int d) {
    for (int e = threadIdx.x; e < REF_ROWS * d; e += REF_THREADS) {
        const int r = e / d, c = e % d;
        const long long at = blk.head + (blk.first + r) * d + c;
        a[e] = r < blk.rows ? (double)kl_to_float(A[at]) : 0.0;
        b[e] = r < blk.rows ? (double)kl_to_float(B[at]) : 0.0;
    }
}

// dQ_i = scale sum_j P_ij (dO_i . v_j - D_i) k_j. Dynamic shared memory: 2 * REF_ROWS * d doubles.
extern "C" __global__ void __launch_bounds__(REF_THREADS)
    ref_attention_dq(float* dQ, const ELEM* Q, const ELEM* K, const ELEM* V, const ELEM* O, const ELEM* dO,
                     const float* L, long long N, int d, int causal, long long row_blocks) {
    extern __shared__ double ref_smem[];
    double* q = ref_smem;          // [REF_ROWS][d]
    double* g = q + REF_ROWS * d;  // [REF_ROWS][d] the rows of dO
    __shared__ double ds[REF_ROWS][REF_THREADS];
    __shared__ double row_d[REF_ROWS], row_l[REF_ROWS];

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const RefRowBlock blk = ref_row_block(N, d, row_blocks);
    const long long bh = blk.bh, i0 = blk.first, head = blk.head;
    const int rows = blk.rows;
    const double scale = 1.0 / sqrt((double)d);

    ref_stage_rows(q, g, Q, dO, blk, d);
    __syncthreads();
    for (int r = warp; r < REF_ROWS; r += REF_WARPS) {
        double s = 0.0;
        if (r < rows)
            for (int c = lane; c < d; c += 32) s += g[r * d + c] * (double)kl_to_float(O[head + (i0 + r) * d + c]);
        s = ref_warp_sum(s);
        if (lane == 0) {
            row_d[r] = s;
            row_l[r] = r < rows ? (double)L[bh * N + i0 + r] : 0.0;
        }
    }
    __syncthreads();

    const long long key_end = causal ? min(N, i0 + rows) : N;
    double acc[REF_ACC] = {};
    for (long long j0 = 0; j0 < key_end; j0 += REF_THREADS) {
        for (int jj = warp; jj < REF_THREADS; jj += REF_WARPS) {  // a warp per key of the chunk
            const long long j = j0 + jj;
            double qk[REF_ROWS] = {}, gv[REF_ROWS] = {};
            if (j < key_end)
                for (int c = lane; c < d; c += 32) {
                    const double k = (double)kl_to_float(K[head + j * d + c]);
                    const double v = (double)kl_to_float(V[head + j * d + c]);
#pragma unroll
                    for (int r = 0; r < REF_ROWS; ++r) {
                        qk[r] += q[r * d + c] * k;
                        gv[r] += g[r * d + c] * v;
                    }
                }
#pragma unroll
            for (int r = 0; r < REF_ROWS; ++r) {
                const double s = ref_warp_sum(qk[r]), dp = ref_warp_sum(gv[r]);
                double v = 0.0;
                if (j < key_end && r < rows && (!causal || j <= i0 + r))
                    v = exp(scale * s - row_l[r]) * (dp - row_d[r]);
                if (lane == 0) ds[r][jj] = v;
            }
        }
        __syncthreads();
        const int count = (int)min((long long)REF_THREADS, key_end - j0);
#pragma unroll
        for (int a = 0; a < REF_ACC; ++a) {
            const int e = tid + a * REF_THREADS;
            if (e >= REF_ROWS * d) break;
            const int r = e / d, c = e % d;
            for (int jj = 0; jj < count; ++jj) acc[a] += ds[r][jj] * (double)kl_to_float(K[head + (j0 + jj) * d + c]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int a = 0; a < REF_ACC; ++a) {
        const int e = tid + a * REF_THREADS;
        if (e >= REF_ROWS * d) break;
        const int r = e / d, c = e % d;
        if (r < rows) dQ[head + (i0 + r) * d + c] = (float)(scale * acc[a]);
    }
}

// dV_j = sum_i P_ij dO_i, dK_j = scale sum_i dS_ij q_i. Dynamic shared memory: 2 * REF_ROWS * d
// doubles.
extern "C" __global__ void __launch_bounds__(REF_THREADS)
    ref_attention_dkdv(float* dK, float* dV, const ELEM* Q, const ELEM* K, const ELEM* V, const ELEM* O, const ELEM* dO,
                       const float* L, long long N, int d, int causal, long long row_blocks) {
    extern __shared__ double ref_smem[];
    double* k = ref_smem;          // [REF_ROWS][d]
    double* v = k + REF_ROWS * d;  // [REF_ROWS][d]
    __shared__ double pr[REF_ROWS][REF_THREADS], ds[REF_ROWS][REF_THREADS];

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const RefRowBlock blk = ref_row_block(N, d, row_blocks);
    const long long bh = blk.bh, j0 = blk.first, head = blk.head;
    const int rows = blk.rows;
    const double scale = 1.0 / sqrt((double)d);

    ref_stage_rows(k, v, K, V, blk, d);
    __syncthreads();

    const long long query_begin = causal ? j0 : 0;  // no earlier query sees the block's keys
    double acc_k[REF_ACC] = {}, acc_v[REF_ACC] = {};
    for (long long c0 = query_begin; c0 < N; c0 += REF_THREADS) {
        for (int ii = warp; ii < REF_THREADS; ii += REF_WARPS) {  // a warp per query of the chunk
            const long long i = c0 + ii;
            double qk[REF_ROWS] = {}, gv[REF_ROWS] = {}, dd = 0.0;
            if (i < N)
                for (int c = lane; c < d; c += 32) {
                    const double qc = (double)kl_to_float(Q[head + i * d + c]);
                    const double gc = (double)kl_to_float(dO[head + i * d + c]);
                    dd += gc * (double)kl_to_float(O[head + i * d + c]);
#pragma unroll
                    for (int r = 0; r < REF_ROWS; ++r) {
                        qk[r] += qc * k[r * d + c];
                        gv[r] += gc * v[r * d + c];
                    }
                }
            dd = ref_warp_sum(dd);
            const double l_i = i < N ? (double)L[bh * N + i] : 0.0;
#pragma unroll
            for (int r = 0; r < REF_ROWS; ++r) {
                const double s = ref_warp_sum(qk[r]), dp = ref_warp_sum(gv[r]);
                double p = 0.0, sd = 0.0;
                if (i < N && r < rows && (!causal || j0 + r <= i)) {
                    p = exp(scale * s - l_i);
                    sd = p * (dp - dd);
                }
                if (lane == 0) {
                    pr[r][ii] = p;
                    ds[r][ii] = sd;
                }
            }
        }
        __syncthreads();
        const int count = (int)min((long long)REF_THREADS, N - c0);
#pragma unroll
        for (int a = 0; a < REF_ACC; ++a) {
            const int e = tid + a * REF_THREADS;
            if (e >= REF_ROWS * d) break;
            const int r = e / d, c = e % d;
            for (int ii = 0; ii < count; ++ii) {
                const long long row = head + (c0 + ii) * d + c;
                acc_v[a] += pr[r][ii] * (double)kl_to_float(dO[row]);
                acc_k[a] += ds[r][ii] * (double)kl_to_float(Q[row]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int a = 0; a < REF_ACC; ++a) {
        const int e = tid + a * REF_THREADS;
        if (e >= REF_ROWS * d) break;
        const int r = e / d, c = e % d;
        if (r < rows) {
            dK[head + (j0 + r) * d + c] = (float)(scale * acc_k[a]);
            dV[head + (j0 + r) * d + c] = (float)(acc_v[a]);
        }
    }
}
