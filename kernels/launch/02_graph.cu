// Rung 2: the same kernels as rung 1, captured once into a CUDA graph and replayed.
//
// What changes from rung 1: the manifest marks this rung `graph = true`: the runner records the
// `steps` launches into a graph once (stream capture) and every run replays the whole chain with
// one cudaGraphLaunch.
// Why it is faster: the CPU no longer pays a launch per step, and the driver hands the GPU the
// chain's nodes in one submission. What stays: each kernel still starts a grid, runs a wave and
// drains before the next may begin.
// What to see: the time per step falls below rung 1's, by the part of a launch that was CPU and
// submission cost; the grid start and drain remain.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.
#include "step.cuh"

extern "C" __global__ void chain_first(float* __restrict__ y, const float* __restrict__ x, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = kl_step(x[i]);
}

extern "C" __global__ void chain_step(float* __restrict__ y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = kl_step(y[i]);
}
