// The SM clock, measured: one warp spins for `cycles` SM clock cycles (clock64) and reads the
// GPU's nanosecond timer (%globaltimer) around the spin. cycles / nanoseconds = GHz. The
// runner launches it before and after timing a rung (gpu/kernel_trace.cpp) and flags a run
// whose clock dropped.
extern "C" __global__ void kl_clock_probe(unsigned long long* out, long long cycles) {
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    const long long c0 = clock64();
    long long c1 = c0;
    while (c1 - c0 < cycles) c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    if (threadIdx.x == 0) {
        out[0] = (unsigned long long)(c1 - c0);
        out[1] = t1 - t0;
    }
}
