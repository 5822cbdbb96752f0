// Reference of the launch ladder: the steps' float adds in order, one thread per element.
extern "C" __global__ void ref_launch_chain(float* __restrict__ y, const float* __restrict__ x, long long n,
                                            int steps) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        float v = x[i];
        for (int s = 0; s < steps; ++s) v = v + 1.0f;
        y[i] = v;
    }
}
