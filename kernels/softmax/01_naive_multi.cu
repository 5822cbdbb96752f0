// Rung 1 of the softmax ladder: softmax over each row of an m x n matrix as five kernels, the way a
// chain of library calls computes it:
//   row_max[r]   = max_c in[r][c]                  (reduction)
//   shifted      = in - row_max                    (elementwise, broadcast per row)
//   out          = exp(shifted)                    (elementwise)
//   row_sum[r]   = sum_c out[r][c]                 (reduction)
//   out          = out / row_sum                   (elementwise, in place)
//
// What changes: nothing yet; this is the baseline. Each kernel on its own is reasonable (coalesced,
// the reductions use one block per row and a shared-memory tree).
// Why it is slow: every launch reads its inputs from DRAM and writes its output back: 5mn + 2m
// elements read and 3mn + 2m written, about four times the 2mn a fused kernel needs.
// What to see: GB/s measured against the ideal bytes (2mn) lands near a fifth of the copy line,
// while GB/s against this rung's own model (8mn + 4m), four times more bytes, is well over half of
// it: the kernels are reasonable, the traffic is not. Rung 2 fuses them.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.
//
// Subtracting the row maximum first keeps exp() from overflowing (rows holding 1e4). A row that is
// entirely -inf has no maximum to subtract; we define its softmax as all zeros (torch gives NaN):
// the max is replaced by 0, so exp(-inf) = 0, and the division by a zero sum is skipped.

#if !defined(ELEM_IS_FP32)
#error "the softmax ladder is written for fp32: compile with -DELEM=float -DELEM_IS_FP32=1"
#endif
#ifndef TPB
#define TPB 256
#endif
static_assert(TPB >= 32 && TPB <= 1024 && (TPB & (TPB - 1)) == 0,
              "TPB must be a power of two (the tree reduction halves it), 32..1024");

#define NEG_INF __int_as_float(0xff800000)
#define LOG2E 1.4426950408889634f

// Shared-memory tree reduction of one value per thread; every thread gets the result.
// IS_MAX picks max, else sum. The trailing barrier lets the caller reuse `scratch`.
template <bool IS_MAX>
__device__ float block_reduce(float value, float* scratch) {
    scratch[threadIdx.x] = value;
    __syncthreads();
    for (int half = TPB / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            const float other = scratch[threadIdx.x + half];
            scratch[threadIdx.x] = IS_MAX ? fmaxf(scratch[threadIdx.x], other) : scratch[threadIdx.x] + other;
        }
        __syncthreads();
    }
    const float result = scratch[0];
    __syncthreads();
    return result;
}

// Kernel 1: one block per row, row_max[r] = max of the row.
extern "C" __global__ void __launch_bounds__(TPB)
    softmax_row_max(float* __restrict__ row_max, const float* __restrict__ in, int rows, int cols) {
    __shared__ float scratch[TPB];
    const float* row = in + (size_t)blockIdx.x * cols;
    float m = NEG_INF;
    for (int c = threadIdx.x; c < cols; c += TPB) m = fmaxf(m, row[c]);
    m = block_reduce<true>(m, scratch);
    if (threadIdx.x == 0) row_max[blockIdx.x] = m;
}

// Kernel 2: shifted[r][c] = in[r][c] - row_max[r]. Grid x covers columns, y walks rows.
extern "C" __global__ void __launch_bounds__(TPB)
    softmax_subtract_max(float* __restrict__ shifted, const float* __restrict__ in, const float* __restrict__ row_max,
                         int rows, int cols) {
    const int c = blockIdx.x * TPB + threadIdx.x;
    if (c >= cols) return;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const float m = row_max[r];
        const float safe_m = (m == NEG_INF) ? 0.f : m;  // all -inf row: exp(-inf) = 0
        const size_t at = (size_t)r * cols + c;
        shifted[at] = in[at] - safe_m;
    }
}

// Kernel 3: out = exp(shifted), elementwise.
extern "C" __global__ void __launch_bounds__(TPB)
    softmax_exp(float* __restrict__ out, const float* __restrict__ shifted, int rows, int cols) {
    const int c = blockIdx.x * TPB + threadIdx.x;
    if (c >= cols) return;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const size_t at = (size_t)r * cols + c;
        out[at] = exp2f(shifted[at] * LOG2E);  // exp(x) = 2^(x log2 e)
    }
}

// Kernel 4: one block per row, row_sum[r] = sum of the row of exps.
extern "C" __global__ void __launch_bounds__(TPB)
    softmax_row_sum(float* __restrict__ row_sum, const float* __restrict__ exps, int rows, int cols) {
    __shared__ float scratch[TPB];
    const float* row = exps + (size_t)blockIdx.x * cols;
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += TPB) s += row[c];
    s = block_reduce<false>(s, scratch);
    if (threadIdx.x == 0) row_sum[blockIdx.x] = s;
}

// Kernel 5: out[r][c] /= row_sum[r], in place. A zero sum (all -inf row) leaves zeros.
extern "C" __global__ void __launch_bounds__(TPB)
    softmax_divide(float* __restrict__ out, const float* __restrict__ row_sum, int rows, int cols) {
    const int c = blockIdx.x * TPB + threadIdx.x;
    if (c >= cols) return;
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const float s = row_sum[r];
        const size_t at = (size_t)r * cols + c;
        out[at] = (s > 0.f) ? out[at] / s : 0.f;
    }
}
