// Rung 1: one kernel per step, launched one after another on a stream.
//
// What changes: nothing yet; this is the baseline. Each step is its own launch, as a framework runs
// a small model op by op: the first launch reads x and writes y = x + 1, then `steps - 1` launches
// each read y, add one and write it back.
// Why it is slow: kernels on one stream run in order, so each waits for the previous one to finish,
// and every step pays a launch: the CPU's cost of enqueuing a kernel and the GPU's cost of starting
// a grid and draining it, a few microseconds.
// What to see: the time per step does not shrink with n below a few hundred thousand elements: it
// is the launch, paid `steps` times.
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
