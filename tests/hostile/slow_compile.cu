// A kernel source that keeps NVRTC's front end busy for hours with flat memory: each of a million
// distinct constant evaluations runs near the evaluator's step limit. The compile time limit
// (KL_COMPILE_TIMEOUT_S) is tested with it (tests/hostile/cache_cases.sh, test_compile_cache).
__device__ constexpr unsigned long long fib(int n, int salt) {
    return n < 2 ? n + salt * 0 : fib(n - 1, salt) + fib(n - 2, salt);
}
template <int Lo, int Hi>
struct Spin {
    static constexpr unsigned long long v = Spin<Lo, (Lo + Hi) / 2>::v + Spin<(Lo + Hi) / 2 + 1, Hi>::v;
};
template <int K>
struct Spin<K, K> {
    static constexpr unsigned long long v = fib(26, K);
};
static_assert(Spin<0, 1000000>::v > 0, "never reached in time");

extern "C" __global__ void vector_add(float* c, const float* a, const float* b, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
