extern "C" __global__ void vector_add(float* y, const float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int unused = 3;
    if (i < n) y[i] = a[i] + b[i] + undefined_thing;
    float z = "str";
}
#warning custom warn
