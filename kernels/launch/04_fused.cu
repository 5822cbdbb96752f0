// Rung 4: the steps fused into one kernel: each thread applies all of them in registers.
//
// What changes from rung 3: when no step needs another thread's result (here each element depends
// only on itself), the chain is one kernel: read x once, apply the `steps` adds in a register,
// write y once.
// Why it is faster: no launches between steps, no barrier, no round trip through memory.
// What to see: the time per step collapses to the adds themselves; the rung's total is one launch
// plus n x steps adds. The same fusion that lessons 3 and 9 apply to elementwise chains, here seen
// from the launch side.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data.
#include "step.cuh"

extern "C" __global__ void chain_fused(float* __restrict__ y, const float* __restrict__ x, long long n, int steps) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int s = 0; s < steps; ++s) v = kl_step(v);
    y[i] = v;
}
