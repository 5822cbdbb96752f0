// Rung 1 - naive: one thread per output element, everything from global memory.
//
// What changes: nothing yet; this is the baseline. Thread (x, y) computes C[row][col] as a K-long dot product,
// reading a row of A and a column of B straight from global memory and keeping nothing on chip.
// Why it is slow: the thread-to-element mapping is the one that looks natural on paper (row from
// the x index), and it is the wrong one: threadIdx.x varies fastest inside a warp, so the 32 threads of a warp
// hold 32 consecutive *rows*. Each warp-wide load of A then touches 32 different rows of A (32
// separate 32-byte sectors for 128 useful bytes), and each store of C is scattered the same way.
// Only the load of B is shared: all 32 threads read the same element (a broadcast).
//
// What to see: a tiny fraction of cuBLAS. Loads per output: 2K (K from A, K from B), with no
// reuse except what the caches catch; the L2 traffic counters sit far above the model of the
// next rung, which differs from this one only in how threads map to elements.
//
// Layout: row-major A (M x K), B (K x N), C (M x N); C = A * B. Any M, N, K >= 1.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#ifndef BS
#error "BS (threads per block edge) must be defined, e.g. -DBS=32"
#endif
static_assert(BS >= 1 && BS * BS <= 1024, "a block of BS x BS threads may hold at most 1024 threads");

extern "C" __global__ void matmul_naive(float* C, const float* A, const float* B, int M, int N, int K) {
    const int row = blockIdx.x * BS + threadIdx.x;  // x (fastest in a warp) picks the row...
    const int col = blockIdx.y * BS + threadIdx.y;  // ...so a warp spans 32 rows: uncoalesced
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}
