// Engine helper for the attention ladder, not a rung: the reference every rung is checked
// against (app/model/ops/attention.cpp launches it and checks a few of its rows on the CPU).
//
// ref_attention: O = softmax(Q K^T / sqrt(d)) V and lse = ln(sum_j exp(s_j)) for every query
// row, with all arithmetic in double and one rounding to float at the end. Q, K, V are ELEM
// (float or bf16, upcast exactly) in [B*H][N][d] layout; O is float [B*H][N][d], lse float
// [B*H][N]. causal = 1 restricts query i to keys 0..i.
//
// One block of REF_THREADS threads serves REF_ROWS consecutive query rows of one head, so each
// key row read from global memory is used for REF_ROWS dot products. Two passes over the keys:
//   1. every thread keeps a running (max, sum) per row over its keys j = tid, tid + T, ...; the
//      pairs are merged over the block (the online-softmax merge, guarded for empty partials);
//   2. chunks of T keys: each thread scores one key and writes p = exp(s - max) / sum to shared
//      memory, then every thread accumulates its (row, column) outputs over the chunk.
// Slow by design (double precision, scores computed twice) but O(N) memory and simple.

#include "kl_common.cuh"

#define REF_THREADS 256
#define REF_ROWS 8
#define REF_MAX_D 256                                 // the operation's d axis ends here
#define REF_ACC (REF_ROWS * REF_MAX_D / REF_THREADS)  // outputs per thread at most
#define NEG_INF_D __longlong_as_double(0xfff0000000000000ll)

// Merges the partial softmax state (m2, l2) into (m, l): both are (max, sum of exp(s - max)).
// A NaN score makes the row NaN, as the math does (fmax would pass over it, and a row of NaN scores
// would read as an empty one: lse -inf, where the CPU check and any kernel's exp give NaN).
__device__ __forceinline__ void ref_merge(double& m, double& l, double m2, double l2) {
    if (m != m) return;
    if (m2 != m2) {
        m = l = m2;
        return;
    }
    const double mx = fmax(m, m2);
    if (mx == NEG_INF_D) return;              // both empty
    l = l * exp(m - mx) + l2 * exp(m2 - mx);  // exp(-inf) = 0 drops an empty side
    m = mx;
}

// Dynamic shared memory: (REF_ROWS * d + REF_ROWS * REF_THREADS) doubles.
extern "C" __global__ void __launch_bounds__(REF_THREADS)
    ref_attention(float* O, float* lse, const ELEM* Q, const ELEM* K, const ELEM* V, long long N, int d, int causal,
                  long long row_blocks) {
    extern __shared__ double ref_smem[];
    double* q = ref_smem;          // [REF_ROWS][d], pre-scaled by 1/sqrt(d)
    double* p = q + REF_ROWS * d;  // [REF_ROWS][REF_THREADS] probabilities of a chunk
    __shared__ double warp_m[REF_ROWS][REF_THREADS / 32], warp_l[REF_ROWS][REF_THREADS / 32];
    __shared__ double row_m[REF_ROWS], row_l[REF_ROWS];

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const long long bh = blockIdx.x / row_blocks;
    const long long i0 = (blockIdx.x % row_blocks) * REF_ROWS;
    const int rows = (int)min((long long)REF_ROWS, N - i0);
    const ELEM* Kh = K + bh * N * d;
    const ELEM* Vh = V + bh * N * d;
    const double scale = 1.0 / sqrt((double)d);

    for (int e = tid; e < REF_ROWS * d; e += REF_THREADS) {
        const int r = e / d, c = e % d;
        q[e] = r < rows ? (double)kl_to_float(Q[(bh * N + i0 + r) * d + c]) * scale : 0.0;
    }
    __syncthreads();

    const long long key_end = causal ? min(N, i0 + rows) : N;  // no row of the block sees beyond
    auto visible = [&](int r, long long j) { return r < rows && (!causal || j <= i0 + r); };

    // Pass 1: statistics.
    double m[REF_ROWS], l[REF_ROWS];
#pragma unroll
    for (int r = 0; r < REF_ROWS; ++r) {
        m[r] = NEG_INF_D;
        l[r] = 0.0;
    }
    for (long long j = tid; j < key_end; j += REF_THREADS) {
        double s[REF_ROWS] = {};
        for (int c = 0; c < d; ++c) {
            const double k = (double)kl_to_float(Kh[j * d + c]);
#pragma unroll
            for (int r = 0; r < REF_ROWS; ++r) s[r] += q[r * d + c] * k;
        }
#pragma unroll
        for (int r = 0; r < REF_ROWS; ++r)
            if (visible(r, j)) ref_merge(m[r], l[r], s[r], 1.0);
    }
#pragma unroll
    for (int r = 0; r < REF_ROWS; ++r) {
        for (int off = 16; off > 0; off /= 2) {
            const double m2 = __shfl_xor_sync(0xffffffffu, m[r], off);
            const double l2 = __shfl_xor_sync(0xffffffffu, l[r], off);
            ref_merge(m[r], l[r], m2, l2);
        }
        if (lane == 0) {
            warp_m[r][warp] = m[r];
            warp_l[r][warp] = l[r];
        }
    }
    __syncthreads();
    if (tid < REF_ROWS) {
        double mm = NEG_INF_D, ll = 0.0;
        for (int w = 0; w < REF_THREADS / 32; ++w) ref_merge(mm, ll, warp_m[tid][w], warp_l[tid][w]);
        row_m[tid] = mm;
        row_l[tid] = ll;
    }
    __syncthreads();

    // Pass 2: probabilities chunk by chunk, and the weighted sum of V rows.
    double acc[REF_ACC] = {};
    for (long long j0 = 0; j0 < key_end; j0 += REF_THREADS) {
        const long long j = j0 + tid;
        double s[REF_ROWS] = {};
        if (j < key_end)
            for (int c = 0; c < d; ++c) {
                const double k = (double)kl_to_float(Kh[j * d + c]);
#pragma unroll
                for (int r = 0; r < REF_ROWS; ++r) s[r] += q[r * d + c] * k;
            }
#pragma unroll
        for (int r = 0; r < REF_ROWS; ++r)
            p[r * REF_THREADS + tid] = (j < key_end && visible(r, j) && row_m[r] != NEG_INF_D)  // all -inf: O = 0
                                           ? exp(s[r] - row_m[r]) / row_l[r]
                                           : 0.0;
        __syncthreads();
        const int count = (int)min((long long)REF_THREADS, key_end - j0);
#pragma unroll
        for (int a = 0; a < REF_ACC; ++a) {
            const int e = tid + a * REF_THREADS;
            if (e >= REF_ROWS * d) break;
            const int r = e / d, c = e % d;
            for (int jj = 0; jj < count; ++jj)
                acc[a] += p[r * REF_THREADS + jj] * (double)kl_to_float(Vh[(j0 + jj) * d + c]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int a = 0; a < REF_ACC; ++a) {
        const int e = tid + a * REF_THREADS;
        if (e >= REF_ROWS * d) break;
        const int r = e / d, c = e % d;
        if (r < rows) O[(bh * N + i0 + r) * d + c] = (float)acc[a];
    }
    if (tid < rows) lse[bh * N + i0 + tid] = (float)(row_m[tid] + log(row_l[tid]));
}
