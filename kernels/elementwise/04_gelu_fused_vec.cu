// Rung 4: fused GeLU with 16-byte accesses and several loads in flight per thread.
//
// What changes from rung 3: each thread loads VPT 16-byte vectors before computing any of them.
// Stores use the streaming hint (__stcs, evict-first): y is never read again, so its lines need
// not displace anything in L2. Loads stay plain: an evict-first hint on them cost 2-10% on the
// H200 (docs/tuning/elementwise.md). A vector holds 16 / esize elements (4 fp32, 8 bf16 or fp16;
// kl_vec.cuh); the math is float in every storage type. A scalar tail handles n that is not a
// multiple of the vector.
// Why it is faster: a quarter (fp32) or an eighth (bf16, fp16) of the memory instructions of rung
// 3, and VPT independent 16-byte loads queued per thread, which is what keeps enough bytes in
// flight to approach the DRAM roof with fewer resident warps.
// What to see: a few percent over rung 3, close to the copy roof; in 16-bit storage half the bytes,
// so about half the time.
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data.
#include "kl_vec.cuh"

static_assert(TPB % 32 == 0, "threads per block must be a whole number of warps");
static_assert(VPT >= 1 && VPT <= 8, "1 to 8 16-byte vectors per thread");

__device__ __forceinline__ float gelu_tanh(float x) {
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

extern "C" __global__ void gelu_fused_vec(ELEM* __restrict__ y, const ELEM* __restrict__ x, long long n) {
    const long long nv = n / KL_VEC;  // whole vectors; cudaMalloc pointers are 256-byte aligned
    long long base = (long long)blockIdx.x * (TPB * VPT) + threadIdx.x;
    KlVec v[VPT];
#pragma unroll
    for (int j = 0; j < VPT; ++j) {  // issue every load first: VPT requests in flight
        long long i = base + (long long)j * TPB;
        if (i < nv) v[j] = kl_load_vec(x, i);
    }
#pragma unroll
    for (int j = 0; j < VPT; ++j) {
        long long i = base + (long long)j * TPB;
        if (i < nv) {
#pragma unroll
            for (int k = 0; k < KL_VEC; ++k) v[j].f[k] = gelu_tanh(v[j].f[k]);
            kl_store_vec_cs(y, i, v[j]);
        }
    }
    // The last n % KL_VEC elements: handled by the first threads of block 0.
    if (blockIdx.x == 0 && threadIdx.x < (n % KL_VEC)) {
        long long i = nv * KL_VEC + threadIdx.x;
        kl_store1(y, i, gelu_tanh(kl_load1(x, i)));
    }
}
