// Hopper copy-engine and hand-over wrappers shared by the warp-specialized rungs (sm_90a only):
// matmul 12, 13, 15, 17, 18 and 20, mlp 02, 03 and 04, attention 06, 07 and 08. The tensor map the engine passes,
// mbarriers at CTA scope (init, arrive, arrive with a byte count, parity wait), one 2-D TMA box
// load, the 2-D TMA store with its bulk-group commit and waits (matmul 18, mlp 04 and 05,
// attention 08), the stage ring, the setmaxnreg register hand-over and the grouped tile order
// of matmul rung 11. Each is
// one PTX instruction (or a loop around one) with the same semantics in every rung. What the
// rungs teach (who copies, how stages are handed over, the producer and consumer loops, the
// epilogue) stays in their own files; a rung whose variant differs on purpose (cluster scope,
// multicast) keeps that variant at home.
#pragma once

#include "kl_ptx.cuh"  // smem_addr

// A CUtensorMap's 128 opaque bytes, as the engine encodes them (kernels may not include
// <cuda.h>). Passed by value as a `const __grid_constant__` parameter: the copy engine reads it
// from the parameter space, and TMA wants it 64-byte aligned.
struct alignas(64) TmaDescriptor {
    unsigned long long bits[16];
};

// mbarriers: a 64-bit word in shared memory counting arrivals (and, for TMA, bytes) per phase.
// All at the default CTA scope: wider scopes cost a lot (matmul rung 15 measured 464 against 719
// TFLOP/s) and no rung needs them for its local barriers. "memory" clobbers keep the compiler
// from moving shared-memory accesses across a hand-over.
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialized barriers visible to the copy engine and to the other threads (and, in a
// cluster, to the peer blocks): one thread calls it after its mbar_inits, before the block's
// first barrier.
__device__ __forceinline__ void fence_mbarrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// One arrival; the state token it returns is discarded (`_`): the waits below go by parity.
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// One arrival that also says how many bytes the copy engine will deliver to this phase: the
// phase completes when both the arrivals and the bytes are in.
__device__ __forceinline__ void mbar_arrive_expect_bytes(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// Waits until the phase with this parity (0 or 1) has completed. A fresh barrier is in phase 0,
// and the phase "before" it (parity 1) counts as complete: waiting on parity 1 returns at once.
// try_wait may give up after a time the hardware chooses, hence the loop.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    unsigned done = 0;
    do {
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
    } while (!done);
}

// One box of a 2-D tensor map (x = column, y = row of its top-left element) into shared memory;
// the copy engine adds the bytes it wrote (zero-filled parts past the tensor included) to the
// barrier's transaction count. The destination is named in the cluster's shared window, where a
// block's own address is valid (a block launched without a cluster is a cluster of one).
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TmaDescriptor* map, int x, int y, unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
            "r"(dst),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(bar)
        : "memory");
}

// setmaxnreg: a warpgroup gives registers back to the block's pool or takes them from it. The
// count is an immediate (a template parameter) and the instruction is warpgroup-wide (.sync
// .aligned): all 128 threads of the warpgroup must call it together.
template <int kRegs>
__device__ __forceinline__ void regs_decrease() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void regs_increase() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// Named barrier among `threads` threads (a multiple of 32); id 0 is __syncthreads'. Arrive signals
// without waiting (a producer telling consumers), sync signals and waits.
__device__ __forceinline__ void named_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// A barrier for the 128 threads of one consumer warpgroup only (the rungs pass 1 + its index).
__device__ __forceinline__ void warpgroup_sync(int id) { named_sync(id, 128); }

// The store side of the copy engine: one box of shared memory (laid out as the tensor map says)
// to global memory at column x, row y; the engine skips the parts past the tensor's edges.
// Completion is tracked per issuing thread in bulk groups: commit closes a group, bulk_wait_read<N>
// returns once at most N groups still read shared memory (their buffers may be overwritten),
// bulk_wait<N> once at most N are still writing to global memory.
__device__ __forceinline__ void tma_store_2d(const TmaDescriptor* map, unsigned src, int x, int y) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                     reinterpret_cast<unsigned long long>(map)),
                 "r"(x), "r"(y), "r"(src)
                 : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}
template <int kPending>
__device__ __forceinline__ void bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// The ring of pipeline stages that a producer and its consumers step through in the same order:
// the stage index, and the parity of its current use (each stage's mbarriers change phase once
// per trip round the ring).
template <int kStages>
struct StageRing {
    int stage = 0;
    unsigned parity = 0;
    __device__ __forceinline__ void advance() {
        if (++stage == kStages) {
            stage = 0;
            parity ^= 1;
        }
    }
};

// Tile number -> origin of its kBM x kBN patch of C, in matmul rung 11's grouped order:
// consecutive numbers walk kGroupM tile rows column by column, so the tiles in flight at once
// share their panels of A and B in L2. Template parameters, not arguments, so the divisions by
// them stay constants as in the rungs' own macros.
template <int kGroupM, int kBM, int kBN>
__device__ __forceinline__ void tile_origin(int tile, int tiles_m, int tiles_n, int& m0, int& n0) {
    const int group = tile / (kGroupM * tiles_n), first_m = group * kGroupM;
    const int rows = min(tiles_m - first_m, kGroupM);  // the last group may be shorter
    const int in_group = tile % (kGroupM * tiles_n);
    m0 = (first_m + in_group % rows) * kBM;
    n0 = (in_group / rows) * kBN;
}
