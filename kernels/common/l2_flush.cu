// Engine helper, not a rung: the cold-L2 flush's lab variants (KL_L2_FLUSH, app/gpu/timing.cpp),
// to find a flush that both evicts the previous repetition's working set and leaves L2 clean.
// cudaMemsetAsync's streaming write (the default) leaves the last L2-full dirty, and with the
// dirt dropped (write_discard) a 24 MiB working set survives it on the H200: if the memset's
// stores are allocated to be evicted first, they recycle a few ways of each set and never reach
// the lines the rung used. These flushes write or read with an explicit L2 policy instead:
//   kl_l2_flush_store       16-byte stores with the default policy (evict_normal)
//   kl_l2_flush_store_last  16-byte stores that ask L2 to keep them (evict_last), so they displace
//                           the rung's lines, which are then normal-priority
//   kl_l2_flush_read_last   16-byte loads with evict_last: nothing dirty, no discard needed
// Below sm_80 the cache hints do not exist: plain stores and loads (the flush never picks these
// variants there, but check-kernels compiles every helper for every architecture).
__device__ __forceinline__ unsigned long long kl_evict_last_policy() {
    unsigned long long policy = 0;
#if __CUDA_ARCH__ >= 800
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
    return policy;
}

extern "C" __global__ void kl_l2_flush_store(int4* base, long long vectors, int value) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    int4 v;
    v.x = v.y = v.z = v.w = value;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) base[i] = v;
}

extern "C" __global__ void kl_l2_flush_store_last(int4* base, long long vectors, int value) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const unsigned long long policy = kl_evict_last_policy();
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
#if __CUDA_ARCH__ >= 800
        asm volatile("st.global.L2::cache_hint.v4.s32 [%0], {%1, %1, %1, %1}, %2;" ::"l"(base + i), "r"(value),
                     "l"(policy)
                     : "memory");
#else
        (void)policy;
        int4 v;
        v.x = v.y = v.z = v.w = value;
        base[i] = v;
#endif
    }
}

// `sink` is written only if the sum hits a value the flush buffer (all one byte) cannot give, so
// the loads are kept and nothing is stored.
extern "C" __global__ void kl_l2_flush_read_last(const int4* base, long long vectors, int* sink) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const unsigned long long policy = kl_evict_last_policy();
    int sum = 0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
        int4 v;
#if __CUDA_ARCH__ >= 800
        asm volatile("ld.global.L2::cache_hint.v4.s32 {%0, %1, %2, %3}, [%4], %5;"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(base + i), "l"(policy)
                     : "memory");
#else
        (void)policy;
        v = base[i];
#endif
        sum ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (sum == 0x7eadbeef) *sink = sum;
}
