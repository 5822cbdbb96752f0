// Engine helper, not a rung: empties L2 before a cold repetition by READING a buffer twice the
// size of L2. A write (memset) would also evict the rung's lines, but it would leave L2 full of
// dirty lines that the next timed kernel pays to write back; after a read, what stays in L2 is
// clean. The sum is stored only if it is NaN (never, for the zero-filled buffer) so the
// compiler cannot drop the loads.
extern "C" __global__ void kl_l2_flush_read(const float4* __restrict__ buf, long long n4, float* __restrict__ sink) {
    float acc = 0.f;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = buf[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc != acc) *sink = acc;
}
