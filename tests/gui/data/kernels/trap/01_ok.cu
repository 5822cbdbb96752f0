// Test rung: a plain vector add (one element per thread). It proves the runner works before and
// after the faulting rungs of this test ladder.
extern "C" __global__ void ok_add(float* c, const float* a, const float* b, long long n) {
    long long i = (long long)blockIdx.x * TPB + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
