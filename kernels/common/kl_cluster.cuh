// PTX wrappers of thread-block clusters, shared by the rungs that pair blocks (matmul rungs 15,
// 17 and 18, mlp rung 5 through kl_cluster_gemm.cuh): the block's rank in its cluster, a barrier
// of the whole cluster, an arrival on the peer block's mbarrier, a word handed to the peer, and a
// TMA load multicast into several blocks. kl_tma.cuh has the single-block forms. Needs sm_90.
#pragma once

#include "kl_tma.cuh"  // TmaDescriptor

// The kernel's cluster shape from the rung's CLUSTER (1, 2 or 4 blocks), expanded where a kernel
// is declared: `__global__ void CLUSTER_DIMS ...`. Nothing for 1: an unclustered launch.
#define KL_CLUSTER_DIMS_1
#define KL_CLUSTER_DIMS_2 __cluster_dims__(2, 1, 1)
#define KL_CLUSTER_DIMS_4 __cluster_dims__(4, 1, 1)
#define KL_CLUSTER_DIMS_OF(n) KL_CLUSTER_DIMS_##n
#define KL_CLUSTER_DIMS(n) KL_CLUSTER_DIMS_OF(n)
#define CLUSTER_DIMS KL_CLUSTER_DIMS(CLUSTER)

__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
// Every thread of both blocks arrives, then waits for all of them. Release / acquire order the
// barrier initializations before the peer's first signal, and all remote signals before exit.
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
// The address of the same shared-memory offset in block `rank` of the cluster (its window address).
__device__ __forceinline__ unsigned peer_addr(unsigned addr, unsigned rank) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(addr), "r"(rank));
    return remote;
}
// One arrival on the barrier at the same offset in the peer block. Default semantics (release at
// CTA scope), as for the local arrival: what it orders is the wgmmas' reads, already complete
// (wgmma.wait_group), before the peer's copy engine overwrites the stage. A first version asked
// .release.cluster here and .acquire.cluster in the waits, and ran at 464 TFLOP/s unpaired against
// rung 12's 722.
__device__ __forceinline__ void mbar_arrive_peer(unsigned bar, unsigned rank) {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(peer_addr(bar, rank)) : "memory");
}
// The tail queue's hand-off (kl_cluster_gemm.cuh, QUEUE): a word written into the peer's shared
// memory, then an arrival on the peer's barrier that orders it (release at cluster scope), and
// the wait that sees it (acquire at cluster scope). Once per job, not per K-tile, so the cost of
// the cluster scope measured above does not matter here.
__device__ __forceinline__ void st_peer_u32(unsigned addr, unsigned rank, int value) {
    asm volatile("st.shared::cluster.u32 [%0], %1;\n" ::"r"(peer_addr(addr, rank)), "r"(value) : "memory");
}
__device__ __forceinline__ void mbar_arrive_peer_cluster(unsigned bar, unsigned rank) {
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(peer_addr(bar, rank))
                 : "memory");
}
__device__ __forceinline__ void mbar_wait_cluster(unsigned bar, unsigned parity) {
    unsigned done = 0;
    do {
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
            "selp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
    } while (!done);
}
// Like kl_tma.cuh's tma_load_2d, but into the same offset of every block in `mask`, signalling
// the barrier at the same offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TmaDescriptor* map, int x, int y,
                                                      unsigned bar, unsigned short mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(bar), "h"(mask)
        : "memory");
}
