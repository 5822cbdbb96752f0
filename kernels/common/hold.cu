// Engine helper, not a rung: holds the stream for a while, touching no memory, and measures the
// SM clock meanwhile. The stopwatch (app/gpu/timing.cpp) queues it ahead of each timed
// repetition, so that the start event, the rung's launches and the stop event are all queued
// while the GPU is still busy here. Without it, a warm-L2 repetition on an idle GPU timed the
// host's own launch call (about 3.5 us on the H200, 2026-11-29): the start event fired at once,
// and the kernel began only when the call that launched it returned.
// One thread on one SM waits on the global timer; the SM cycles (clock64) it counted over the
// nanoseconds it waited are the clock right before the repetition: out[0] cycles, out[1] ns.
extern "C" __global__ void kl_hold(long long nanoseconds, unsigned long long* out) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    const long long c0 = clock64();
    do {
        __nanosleep(256);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < static_cast<unsigned long long>(nanoseconds));
    const long long c1 = clock64();
    if (out) {
        out[0] = static_cast<unsigned long long>(c1 - c0);
        out[1] = now - start;
    }
}
