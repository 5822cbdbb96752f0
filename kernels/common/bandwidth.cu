// Engine helper, not a rung: the kernels that calibrate the memory roof (app/gpu/calibration.cpp).
// Each streams 16-byte vectors over buffers far larger than L2 with a grid-stride loop, in one
// read:write mix: read-only, write-only, 1:1 copy and 2:1 (c = a + b). The best of them at each
// mix, with cudaMemcpy at 1:1, is the roof a rung of that mix is drawn against (model/roof.h):
// HBM turns the bus around between reads and writes, so a read-heavy rung can beat a copy.
// `vectors` counts float4s per buffer.

// Reads every vector; stores one float per thread only if the sum is exactly `never` (the
// caller passes NaN, which no sum equals), so the compiler cannot drop the loads.
extern "C" __global__ void kl_bw_read(const float4* __restrict__ a, long long vectors, float never,
                                      float* __restrict__ sink) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    float acc = 0.f;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
        const float4 v = a[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == never) sink[threadIdx.x] = acc;
}

extern "C" __global__ void kl_bw_write(float4* __restrict__ c, long long vectors, float value) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride)
        c[i] = make_float4(value, value, value, value);
}

extern "C" __global__ void kl_bw_copy(const float4* __restrict__ a, float4* __restrict__ c, long long vectors) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) c[i] = a[i];
}

extern "C" __global__ void kl_bw_add(const float4* __restrict__ a, const float4* __restrict__ b,
                                     float4* __restrict__ c, long long vectors) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
        const float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
