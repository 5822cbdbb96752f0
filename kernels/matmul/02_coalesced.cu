// Rung 2 - coalesced: the same arithmetic, with threads mapped so that a warp walks along a row.
//
// What changes from rung 1: only the mapping of threads to output elements. The column now comes
// from threadIdx.x, the fastest-varying index inside a warp, so the 32 threads of a warp compute
// 32 neighbouring elements of one row of C.
// Why it is faster: at each step k the warp reads 32 consecutive floats of one row of B (one
// 128-byte transaction instead of 32 scattered sectors), all 32 threads read the same element of
// A (a broadcast), and the final stores of C are one contiguous 128-byte line per warp.
// What to see: several times faster than rung 1 with identical FLOPs and identical loads per
// output (2K); the memory system simply wastes far fewer bytes per useful byte.
//
// Layout: row-major A (M x K), B (K x N), C (M x N); C = A * B. Any M, N, K >= 1.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#ifndef BS
#error "BS (threads per block edge) must be defined, e.g. -DBS=32"
#endif
static_assert(BS >= 1 && BS * BS <= 1024, "a block of BS x BS threads may hold at most 1024 threads");

extern "C" __global__ void matmul_coalesced(float* C, const float* A, const float* B, int M, int N, int K) {
    const int col = blockIdx.x * BS + threadIdx.x;  // x (fastest in a warp) now picks the column
    const int row = blockIdx.y * BS + threadIdx.y;
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];  // A: broadcast, B: one line per warp
    C[(size_t)row * N + col] = acc;
}
