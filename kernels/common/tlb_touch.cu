// Engine helper, not a rung: a lab variant of the cold-L2 flush (KL_L2_FLUSH_AFTER=touch,
// app/gpu/timing.cpp). The flush walks a buffer twice the size of L2, which may also evict the
// GPU's address translations (TLB entries) of the rung's own buffers; Nsight Compute's cache
// control invalidates the caches without touching memory, so its kernels start with warm
// translations. This kernel reads one word at the start of every `page` bytes of a buffer, so the
// translations are loaded again, then drops the line it read from L2 (discard.global.L2, sm_80),
// so the rung still finds no line of its own in L2. The load is volatile, so it is kept; it reads
// one byte, which lies inside the buffer however small.
extern "C" __global__ void kl_touch_pages(const char* base, long long bytes, long long page) {
    const long long pages = (bytes + page - 1) / page;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < pages; i += stride) {
        const char* at = base + i * page;
        (void)*reinterpret_cast<const volatile char*>(at);
#if __CUDA_ARCH__ >= 800
        asm volatile("discard.global.L2 [%0], 128;" ::"l"(at) : "memory");
#endif
    }
}
