// Rung 3: one launch for all the steps: a persistent grid that loops over them.
//
// What changes from rung 2: one block per SM (all resident at once, so they can wait for each
// other), each striding over the array; between two steps the whole grid meets at a barrier in
// global memory, standing in for the dependency between two layers (a step may need what another
// block wrote).
// Why it should be faster: no launch per step. But each step still costs a grid-wide barrier: an
// atomic per block, and every block spinning on one generation counter until the last one arrives.
// What to see: that barrier is not free. On the H100 it cost more per step than a kernel boundary
// inside a CUDA graph (docs/tuning/launch.md): a persistent kernel pays off when its waits are
// narrower than the whole grid (a tile waiting for the tiles it reads) or when it overlaps work
// across a boundary.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data; all its blocks resident
// at once (one per SM).
#include "step.cuh"

// Sense-reversing barrier over the grid: the last block to arrive resets the count and bumps
// the generation; the others spin until the generation changes. The count is zero between
// launches (the runner zeroes scratch once, and every barrier leaves it at zero).
__device__ void grid_barrier(unsigned int* count, volatile unsigned int* generation) {
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned int gen = *generation;
        __threadfence();
        if (atomicAdd(count, 1u) == gridDim.x - 1) {
            *count = 0;
            __threadfence();
            atomicAdd((unsigned int*)generation, 1u);
        } else {
            while (*generation == gen) {}
        }
        __threadfence();
    }
    __syncthreads();
}

extern "C" __global__ void chain_persistent(float* __restrict__ y, const float* __restrict__ x, long long n, int steps,
                                            unsigned int* barrier) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long i = first; i < n; i += stride) y[i] = kl_step(x[i]);
    for (int s = 1; s < steps; ++s) {
        grid_barrier(barrier, barrier + 1);
        for (long long i = first; i < n; i += stride) y[i] = kl_step(y[i]);
    }
}
