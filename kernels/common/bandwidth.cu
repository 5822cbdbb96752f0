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

// The same four mixes in one pass, the shape the elementwise rungs use: every thread moves P
// vectors spaced a block apart (each load of a warp coalesced), all its loads issued before any
// store, and the grid covers the buffer once. The calibration keeps, per mix, the best of these
// (P = 4 and P = 1, in blocks of 64 to 256 threads: on the H200 a tuned rung of one vector per
// thread in 128-thread blocks beat the 4-vector, 256-thread shape by 0.8%) and the grid-stride
// loop above.
#define KL_BW_INDEX(k) (((long long)blockIdx.x * P + (k)) * blockDim.x + threadIdx.x)

template <int P>
__device__ __forceinline__ void bw_read_pass(const float4* __restrict__ a, long long vectors, float never,
                                             float* __restrict__ sink) {
    float4 v[P];
#pragma unroll
    for (int k = 0; k < P; ++k) v[k] = KL_BW_INDEX(k) < vectors ? a[KL_BW_INDEX(k)] : make_float4(0.f, 0.f, 0.f, 0.f);
    float acc = 0.f;
#pragma unroll
    for (int k = 0; k < P; ++k) acc += v[k].x + v[k].y + v[k].z + v[k].w;
    if (acc == never) sink[threadIdx.x] = acc;
}

template <int P>
__device__ __forceinline__ void bw_write_pass(float4* __restrict__ c, long long vectors, float value) {
#pragma unroll
    for (int k = 0; k < P; ++k)
        if (KL_BW_INDEX(k) < vectors) c[KL_BW_INDEX(k)] = make_float4(value, value, value, value);
}

template <int P>
__device__ __forceinline__ void bw_copy_pass(const float4* __restrict__ a, float4* __restrict__ c, long long vectors) {
    float4 v[P];
#pragma unroll
    for (int k = 0; k < P; ++k)
        if (KL_BW_INDEX(k) < vectors) v[k] = a[KL_BW_INDEX(k)];
#pragma unroll
    for (int k = 0; k < P; ++k)
        if (KL_BW_INDEX(k) < vectors) c[KL_BW_INDEX(k)] = v[k];
}

template <int P>
__device__ __forceinline__ void bw_add_pass(const float4* __restrict__ a, const float4* __restrict__ b,
                                            float4* __restrict__ c, long long vectors) {
    float4 x[P], y[P];
#pragma unroll
    for (int k = 0; k < P; ++k)
        if (KL_BW_INDEX(k) < vectors) x[k] = a[KL_BW_INDEX(k)], y[k] = b[KL_BW_INDEX(k)];
#pragma unroll
    for (int k = 0; k < P; ++k)
        if (KL_BW_INDEX(k) < vectors)
            c[KL_BW_INDEX(k)] = make_float4(x[k].x + y[k].x, x[k].y + y[k].y, x[k].z + y[k].z, x[k].w + y[k].w);
}

// The entries the calibration launches: NAME_pass (4 vectors a thread) and NAME_pass1 (1).
// NAME_scalar: 4 single floats a thread (the vector_add rung's shape, which on the H200 moved
// its 2:1 mix 0.5% faster than any float4 shape in 64-thread blocks); `vectors` still counts
// float4s, so a thread's floats are spaced a block apart over 4 x vectors floats.
#define KL_BW_PASS_ENTRIES(SUFFIX, P)                                                                           \
    extern "C" __global__ void kl_bw_read##SUFFIX(const float4* __restrict__ a, long long vectors, float never, \
                                                  float* __restrict__ sink) {                                   \
        bw_read_pass<P>(a, vectors, never, sink);                                                               \
    }                                                                                                           \
    extern "C" __global__ void kl_bw_write##SUFFIX(float4* __restrict__ c, long long vectors, float value) {    \
        bw_write_pass<P>(c, vectors, value);                                                                    \
    }                                                                                                           \
    extern "C" __global__ void kl_bw_copy##SUFFIX(const float4* __restrict__ a, float4* __restrict__ c,         \
                                                  long long vectors) {                                          \
        bw_copy_pass<P>(a, c, vectors);                                                                         \
    }                                                                                                           \
    extern "C" __global__ void kl_bw_add##SUFFIX(const float4* __restrict__ a, const float4* __restrict__ b,    \
                                                 float4* __restrict__ c, long long vectors) {                   \
        bw_add_pass<P>(a, b, c, vectors);                                                                       \
    }
KL_BW_PASS_ENTRIES(_pass, 4)
KL_BW_PASS_ENTRIES(_pass1, 1)

#define KL_BW_FLOAT(k) (((long long)blockIdx.x * 4 + (k)) * blockDim.x + threadIdx.x)
extern "C" __global__ void kl_bw_read_scalar(const float4* __restrict__ a4, long long vectors, float never,
                                             float* __restrict__ sink) {
    const float* a = reinterpret_cast<const float*>(a4);
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = KL_BW_FLOAT(k) < 4 * vectors ? a[KL_BW_FLOAT(k)] : 0.f;
    if (v[0] + v[1] + v[2] + v[3] == never) sink[threadIdx.x] = v[0];
}
extern "C" __global__ void kl_bw_write_scalar(float4* __restrict__ c4, long long vectors, float value) {
    float* c = reinterpret_cast<float*>(c4);
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (KL_BW_FLOAT(k) < 4 * vectors) c[KL_BW_FLOAT(k)] = value;
}
extern "C" __global__ void kl_bw_copy_scalar(const float4* __restrict__ a4, float4* __restrict__ c4,
                                             long long vectors) {
    const float* a = reinterpret_cast<const float*>(a4);
    float* c = reinterpret_cast<float*>(c4);
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (KL_BW_FLOAT(k) < 4 * vectors) v[k] = a[KL_BW_FLOAT(k)];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (KL_BW_FLOAT(k) < 4 * vectors) c[KL_BW_FLOAT(k)] = v[k];
}
extern "C" __global__ void kl_bw_add_scalar(const float4* __restrict__ a4, const float4* __restrict__ b4,
                                            float4* __restrict__ c4, long long vectors) {
    const float *a = reinterpret_cast<const float*>(a4), *b = reinterpret_cast<const float*>(b4);
    float* c = reinterpret_cast<float*>(c4);
    float x[4], y[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (KL_BW_FLOAT(k) < 4 * vectors) x[k] = a[KL_BW_FLOAT(k)], y[k] = b[KL_BW_FLOAT(k)];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (KL_BW_FLOAT(k) < 4 * vectors) c[KL_BW_FLOAT(k)] = x[k] + y[k];
}
