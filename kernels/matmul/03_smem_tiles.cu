// Rung 3 - shared-memory tiles: each block stages BS x BS tiles of A and B on chip.
//
// What changes from rung 2: a block of BS x BS threads computes a BS x BS tile of C. It walks
// along K in steps of BS; at each step every thread loads one element of A and one of B into
// shared memory, the block synchronizes, and each thread then runs BS multiply-adds out of
// shared memory before the tiles are replaced.
// Why it is faster: every element brought from global memory is now used BS times by the block,
// so global loads per output fall from 2K to 2K / BS. Shared memory is ~10x closer than DRAM.
// What to see: a clear jump over rung 2, growing with BS (8 -> 16 -> 32). The limit is now the
// shared-memory loads themselves: two shared loads per multiply-add, so the FMA units still idle.
//
// Edges: elements outside A or B are loaded as zeros (they add nothing to the dot product) and
// threads outside C keep loading (the barrier needs every thread) but skip the final store.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.

#ifndef BS
#error "BS (tile edge, threads per block edge) must be defined, e.g. -DBS=32"
#endif
static_assert(BS >= 1 && BS * BS <= 1024, "a block of BS x BS threads may hold at most 1024 threads");

extern "C" __global__ void matmul_smem_tiles(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ float As[BS][BS];
    __shared__ float Bs[BS][BS];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * BS + ty;
    const int col = blockIdx.x * BS + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BS) {
        // One element each: the warp reads a contiguous run of a row of A and of B (coalesced).
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();  // the tiles are complete before anyone reads them

#pragma unroll
        for (int k = 0; k < BS; ++k)
            acc += As[ty][k] * Bs[k][tx];  // As: broadcast across the warp, Bs: consecutive banks
        __syncthreads();                   // everyone is done with the tiles before they are overwritten
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}
