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

extern "C" __global__ void kl_bw_add(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c,
                                     long long vectors) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
        const float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

// The same four mixes in one pass, the shape the elementwise rungs use: every thread moves
// kPerThread vectors spaced a block apart (each load of a warp coalesced), all its loads issued
// before any store, and the grid covers the buffer once. The calibration keeps, per mix, the
// better of this shape and the grid-stride loop above.
#define KL_BW_PER_THREAD 4
#define KL_BW_INDEX(k) (((long long)blockIdx.x * KL_BW_PER_THREAD + (k)) * blockDim.x + threadIdx.x)

extern "C" __global__ void kl_bw_read_pass(const float4* __restrict__ a, long long vectors, float never,
                                           float* __restrict__ sink) {
    float4 v[KL_BW_PER_THREAD];
#pragma unroll
    for (int k = 0; k < KL_BW_PER_THREAD; ++k)
        v[k] = KL_BW_INDEX(k) < vectors ? a[KL_BW_INDEX(k)] : make_float4(0.f, 0.f, 0.f, 0.f);
    float acc = 0.f;
#pragma unroll
    for (int k = 0; k < KL_BW_PER_THREAD; ++k) acc += v[k].x + v[k].y + v[k].z + v[k].w;
    if (acc == never) sink[threadIdx.x] = acc;
}

extern "C" __global__ void kl_bw_write_pass(float4* __restrict__ c, long long vectors, float value) {
#pragma unroll
    for (int k = 0; k < KL_BW_PER_THREAD; ++k)
        if (KL_BW_INDEX(k) < vectors) c[KL_BW_INDEX(k)] = make_float4(value, value, value, value);
}

extern "C" __global__ void kl_bw_copy_pass(const float4* __restrict__ a, float4* __restrict__ c, long long vectors) {
    float4 v[KL_BW_PER_THREAD];
#pragma unroll
    for (int k = 0; k < KL_BW_PER_THREAD; ++k)
        if (KL_BW_INDEX(k) < vectors) v[k] = a[KL_BW_INDEX(k)];
#pragma unroll
    for (int k = 0; k < KL_BW_PER_THREAD; ++k)
        if (KL_BW_INDEX(k) < vectors) c[KL_BW_INDEX(k)] = v[k];
}

extern "C" __global__ void kl_bw_add_pass(const float4* __restrict__ a, const float4* __restrict__ b,
                                          float4* __restrict__ c, long long vectors) {
    float4 x[KL_BW_PER_THREAD], y[KL_BW_PER_THREAD];
#pragma unroll
    for (int k = 0; k < KL_BW_PER_THREAD; ++k)
        if (KL_BW_INDEX(k) < vectors) x[k] = a[KL_BW_INDEX(k)], y[k] = b[KL_BW_INDEX(k)];
#pragma unroll
    for (int k = 0; k < KL_BW_PER_THREAD; ++k)
        if (KL_BW_INDEX(k) < vectors)
            c[KL_BW_INDEX(k)] = make_float4(x[k].x + y[k].x, x[k].y + y[k].y, x[k].z + y[k].z, x[k].w + y[k].w);
}
