// Test rung: traps on purpose. A trap is a sticky error: the CUDA context of the process is lost
// and only a new process can use the GPU again, which is why the GUI runs kernels in a child.
extern "C" __global__ void trap_add(float* c, const float* a, const float* b, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] > 2.0f) c[i] = a[i];  // never true (inputs are in [-1, 1)): keeps the arguments used
    __trap();
}
