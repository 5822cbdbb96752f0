// Reference of the divergence ladder, from the mathematics rather than the rungs' loops: each
// series is geometric, so its sum of `terms` terms is (1 - r^terms) / (1 - r), evaluated in
// fp64 from the fp32 input (even elements r = x/2; odd elements half the sum with r = -x^2/2).
extern "C" __global__ void ref_branch_series(float* __restrict__ y, const float* __restrict__ x, long long n,
                                             int terms) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const double xi = x[i];
        const double r = (i & 1) == 0 ? 0.5 * xi : -0.5 * xi * xi;
        const double sum = (1.0 - pow(r, (double)terms)) / (1.0 - r);
        y[i] = (float)((i & 1) == 0 ? sum : 0.5 * sum);
    }
}
