// Engine reference for the recompute ladder, not a rung: three stacked sigmoids forward
// (y = s3 = sigmoid(sigmoid(sigmoid(x)))) and backward (dx = g * s3(1-s3) * s2(1-s2) * s1(1-s1)),
// all in double precision, each output rounded once to float.
__device__ __forceinline__ double ref_sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }

extern "C" __global__ void ref_three_sigmoids(float* y, float* dx, const float* x, const float* g, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const double s1 = ref_sigmoid(x[i]), s2 = ref_sigmoid(s1), s3 = ref_sigmoid(s2);
        y[i] = (float)s3;
        dx[i] = (float)((double)g[i] * s3 * (1.0 - s3) * s2 * (1.0 - s2) * s1 * (1.0 - s1));
    }
}
