// Rung 20 - fp8 (e4m3) operands with per-tensor scales on Hopper's wgmma.
//
// What changes from rung 12 (bf16): the operands are 8-bit floats,
// e4m3 (4 exponent bits, 3 mantissa bits, largest value 448), so each byte of shared memory and
// of DRAM traffic carries twice the elements, and Hopper's tensor cores run fp8 wgmma at twice
// the bf16 rate (m64nNk32: 32 deep per instruction instead of 16). Three consequences:
//  1. A K-tile is 128 elements deep: still one 128-byte swizzled row per matrix row, so the
//     stage layout, the TMA boxes and the descriptors keep rung 12's shapes.
//  2. wgmma transposes only 16-bit operands: B must arrive K-major like A, i.e. as Bt (N x K,
//     row-major), copied by TMA in boxes of BN rows x 128 bytes and described exactly like A.
//     cuBLASLt's fp8 GEMM has the same rule (its "TN" layout).
//  3. fp8's range is narrow, so tensors are stored divided by a per-tensor scale (amax / 448 in
//     a training recipe); the epilogue multiplies the fp32 sums by scale_a * scale_b.
// Why it should be faster: twice the math per instruction and half the bytes per element: the
// bf16 rung's ceiling doubles (989 -> 1979 TFLOP/s dense on the datasheet).
// What to see: TFLOP/s against cuBLASLt's fp8 GEMM (the reference rung cublaslt_fp8), and the
// error column: fp8 inputs, and sums kept to about 14 bits by the fp8 tensor-core path.
// Promotion (PROMOTE): the fp8 wgmma's own accumulator keeps fewer bits than fp32, so over a
// long K the rounding grows until the result fails the check (at K = 4097: 165 of 16.8 M elements
// off, relative L2 1.2e-3, measured on the H100). Every PROMOTE K-tiles (128 deep each) the
// consumer waits for its wgmmas, adds their sums into fp32 registers and starts the next chunk
// from zero, as cuBLASLt does by default. It costs a register per accumulator (so BN = 128) and a
// full wait per chunk. PROMOTE = 0 keeps the whole K in the tensor core's accumulator.
// Promoting every K-tile (PROMOTE = 1) measured both the most accurate and the fastest
// (docs/tuning/matmul.md).
// Three consumers (BM = 192): each SM sub-partition's tensor core serves three consumer warps, so
// while one warpgroup waits and adds its sums, two have wgmmas queued. The tile pays where tile
// counts divide badly (4096 / 192 is 21.3 tile rows): compare 4096^3 and 8192^3.
// Overlapped promotion (OVERLAP = 1, a lab switch): PROMOTE = 1 waits for all of a warpgroup's
// wgmmas at every K-tile before adding them into fp32, so its warps have nothing queued on the
// tensor cores while they add. With two sets of tensor-core sums, K-tile k runs into one set
// while K-tile k - 1's finished set is added: one batch stays queued, as at PROMOTE = 0, with
// PROMOTE = 1's accuracy. It costs 64 more registers a thread (192 of the consumers' 232), and
// ptxas does not see that the set being added is finished: it warns (C7514) and serializes the
// wgmmas. Kept to measure that cost; the two sets cannot be written in CUDA C without it.
// Clusters (CLUSTER = 2, a lab switch): two blocks on tiles stacked along M form a cluster and
// each fetches half of their common Bt tile by TMA multicast into both (rung 15's design). At
// 128 x 128 fp8 tiles each block's K-tile is 32 KB from L2; paired, 24 KB. cuBLASLt's fastest
// fp8 kernels at 4096^3 run 2 x 1 clusters of the same tile; here the pair measured slower
// (docs/tuning/matmul.md, "fp8: three consumers, a pair, two sets of sums").
// Edges and alignment: TMA needs 16-byte rows (K a multiple of 16) and aligned bases; otherwise
// the engine passes zeroed maps and the producer warpgroup copies byte by byte, with guards,
// into the same swizzled layout. C is written with guards.
// What it needs: sm_90a only (Hopper: wgmma with e4m3 operands, TMA and mbarrier transaction counts
// are Hopper features); fp8e4m3 data.

#include "kl_cluster.cuh"    // cluster rank and barrier, peer arrivals, multicast loads (kernels/common)
#include "kl_tma.cuh"        // TMA box loads, mbarriers, setmaxnreg, the grouped tile order (kernels/common)
#include "kl_wgmma.cuh"      // fences, the smem descriptor, store_accumulators (kernels/common)
#include "kl_wgmma_fp8.cuh"  // the e4m3 wgmma (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(STAGES) || !defined(GROUP_M) || !defined(PROMOTE)
#error "BM, BN, STAGES, GROUP_M and PROMOTE must be defined, e.g. -DBM=128 -DBN=128 -DSTAGES=4 -DGROUP_M=8 -DPROMOTE=1"
#endif

#define BK 128                                   // one 128-byte swizzled row of fp8 per K-tile
#define NUM_CONSUMERS (BM / 64)                  // consumer warpgroups, 64 rows of C each
#define NUM_THREADS (128 * (NUM_CONSUMERS + 1))  // + the producer warpgroup
#define A_STAGE_BYTES (BM * BK)
#define B_STAGE_BYTES (BN * BK)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024  // the 128-byte swizzle repeats every 8 rows = 1 KB

// Registers per thread after the hand-over. The block is given LAUNCH_REGS per thread at launch
// (__launch_bounds__(NUM_THREADS, 1): 65536 / NUM_THREADS, rounded down to 8), and setmaxnreg
// only moves registers *inside the block*: the consumers may take no more than the producer
// gives back, or their setmaxnreg.inc waits forever (a first version asked 112 with four
// consumers, 8,192 more than the 7,168 freed, and hung).
//   two consumers:  launch 168; producer 168 -> 40 frees 16,384; consumers 168 -> 232 take 16,384
//   four consumers: launch 96;  producer 96 -> 40 frees 7,168;   consumers 96 -> 104 take 4,096
#define PRODUCER_REGS 40
#define LAUNCH_REGS ((65536 / NUM_THREADS) / 8 * 8)
#define CONSUMER_REGS (LAUNCH_REGS + ((LAUNCH_REGS - PRODUCER_REGS) / NUM_CONSUMERS) / 8 * 8)
static_assert((CONSUMER_REGS - LAUNCH_REGS) * NUM_CONSUMERS <= LAUNCH_REGS - PRODUCER_REGS,
              "the consumers cannot take more registers than the producer gives back");
static_assert(CONSUMER_REGS <= 256, "setmaxnreg allows at most 256 registers per thread");

static_assert(BM == 128 || BM == 192 || BM == 256,
              "BM must be 128, 192 or 256 (two, three or four consumer warpgroups)");
static_assert(BN == 128 || BN == 256, "BN must be 128 or 256 (the N of one wgmma; kl_wgmma_fp8.cuh)");
// The accumulators' registers and the stages' shared memory are the manifest's constraints.
static_assert(BN / 2 + 32 <= CONSUMER_REGS, "a consumer's BN / 2 accumulators must fit its register budget");
static_assert(STAGES >= 2, "at least two stages: one being filled while another is read");
// Rung 23 (23_wgmma_fp8_tma_store.cu) includes this file with FP8_TMA_STORE = 1: its tile store
// (fp8_store_tile), the tensor map of C as a last kernel argument, and its buffers after the barriers.
#ifndef FP8_TMA_STORE
#define FP8_TMA_STORE 0
#endif
#ifndef CLUSTER
#define CLUSTER 1  // lab switch (ladder.toml): 2 pairs blocks along M to share Bt by multicast
#endif
static_assert(CLUSTER == 1 || CLUSTER == 2, "CLUSTER must be 1 (no pairing) or 2");
static_assert(GROUP_M % CLUSTER == 0, "paired blocks walk GROUP_M / CLUSTER stacks together");
#ifndef OVERLAP
#define OVERLAP 0  // lab switch (ladder.toml): promote from a second set of sums, no full wait
#endif
static_assert(!OVERLAP || (PROMOTE == 1 && BN == 128), "OVERLAP promotes every K-tile of a 128-column tile");
#ifndef STAGGER
#define STAGGER 0  // lab switch (ladder.toml): the consumers' promotions at different K-tiles
#endif

// ---------------------------------------------------------------------------------------------
// Stages (the PTX wrappers and the grouped tile order are in kl_tma.cuh)
// ---------------------------------------------------------------------------------------------
// The ring of stages: stage index and the parity of its current use. Producer and consumers
// step through the same sequence (every tile has the same number of K-tiles).
using Ring = StageRing<STAGES>;  // kl_tma.cuh

// The tiles a block walks: stacks of CLUSTER tiles along M in the grouped order (a stack is one
// tile when unpaired); block `rank` of a cluster takes the rank-th tile of each stack. With an
// odd tile-row count the last stack's second tile lies past M: that block still fetches its half
// of Bt for its peer, and stores nothing (its A box arrives zero-filled, its stores are guarded).
struct Walk {
    int stacks_m, tiles_n, rank;
    __device__ int count() const { return stacks_m * tiles_n; }
    __device__ int first() const { return blockIdx.x / CLUSTER; }
    __device__ int step() const { return gridDim.x / CLUSTER; }
    __device__ void origin(int stack, int& m0, int& n0) const {
        tile_origin<GROUP_M / CLUSTER, BM * CLUSTER, BN>(stack, stacks_m, tiles_n, m0, n0);
        m0 += rank * BM;
    }
};

struct Shared {
    unsigned char* stages;  // STAGES x (A tile, then Bt tile), 1 KB aligned
    unsigned full_bar;      // STAGES barriers, 8 bytes apart: the stage's data has landed
    unsigned empty_bar;     // STAGES barriers: every consumer warp is done reading the stage
    __device__ unsigned full(int s) const { return full_bar + 8 * s; }
    __device__ unsigned empty(int s) const { return empty_bar + 8 * s; }
    __device__ unsigned char* a(int s) const { return stages + s * STAGE_BYTES; }
    __device__ unsigned char* b(int s) const { return stages + s * STAGE_BYTES + A_STAGE_BYTES; }
};

// ---------------------------------------------------------------------------------------------
// Producer
// ---------------------------------------------------------------------------------------------
// With TMA: a single thread. Per K-tile: wait until the stage is free, announce its bytes, and
// issue two box copies (A: BM x 128 bytes, Bt: BN x 128 bytes). Boxes reaching past M, N or K arrive zero-filled (and
// their full size still counts toward the announced bytes).
// Paired, each block fetches BN / 2 rows of Bt (the map's box) into the same offset of both blocks,
// and announces the whole stage: its A, its half and the peer's half land on its `full` barrier.
__device__ __forceinline__ void produce_tma(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                            const Walk& w, int k_tiles) {
    constexpr int half_rows = BN / CLUSTER;  // rows of Bt this block fetches
    Ring ring;
    for (int stack = w.first(); stack < w.count(); stack += w.step()) {
        int m0, n0;
        w.origin(stack, m0, n0);
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
            const unsigned full = sh.full(ring.stage);
            mbar_arrive_expect_bytes(full, STAGE_BYTES);
            tma_load_2d(smem_addr(sh.a(ring.stage)), map_a, kt * BK, m0, full);
            const unsigned dst_b = smem_addr(sh.b(ring.stage) + w.rank * half_rows * 128);
            if (CLUSTER == 1)
                tma_load_2d(dst_b, map_b, kt * BK, n0, full);  // Bt: BN rows of 128 bytes
            else
                tma_load_2d_multicast(dst_b, map_b, kt * BK, n0 + w.rank * half_rows, full, (1u << CLUSTER) - 1);
            ring.advance();
        }
    }
}

// Without TMA (rows not 16-byte aligned): the producer's 128 threads load byte by byte, with
// guards, and store 16-byte chunks where the copy engine would have put them: row r of either
// operand at r * 128 bytes, chunk c (16 fp8 of K) at (c ^ (r % 8)) * 16. Every thread fences its
// writes for the tensor cores (async proxy) and arrives on `full`.
__device__ __forceinline__ void copy_rows(unsigned char* dst, const unsigned char* src, int rows_total, int K, int r0,
                                          int rows, int k0) {
    for (int i = threadIdx.x % 128; i < rows * 8; i += 128) {
        const int r = i / 8, c = i % 8, row = r0 + r, col = k0 + c * 16;
        unsigned v[4] = {0, 0, 0, 0};
#pragma unroll
        for (int e = 0; e < 16; ++e)
            if (row < rows_total && col + e < K) v[e / 4] |= (unsigned)src[(size_t)row * K + col + e] << (8 * (e % 4));
        *reinterpret_cast<uint4*>(dst + r * 128 + ((c ^ (r & 7)) * 16)) = make_uint4(v[0], v[1], v[2], v[3]);
    }
}

// Paired, each block still fills its whole stage itself (no multicast on this path); the stage's
// `empty` barrier waits for both blocks' consumers all the same.
__device__ __forceinline__ void produce_elementwise(const Shared& sh, const unsigned char* A, const unsigned char* Bt,
                                                    int M, int N, int K, const Walk& w, int k_tiles) {
    Ring ring;
    for (int stack = w.first(); stack < w.count(); stack += w.step()) {
        int m0, n0;
        w.origin(stack, m0, n0);
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
            copy_rows(sh.a(ring.stage), A, M, K, m0, BM, kt * BK);
            copy_rows(sh.b(ring.stage), Bt, N, K, n0, BN, kt * BK);
            fence_proxy_async();
            mbar_arrive(sh.full(ring.stage));
            ring.advance();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Consumers
// ---------------------------------------------------------------------------------------------
// Warpgroup `cg` computes rows cg*64 .. cg*64+63 of each tile. Per K-tile: wait for the stage,
// issue its four wgmmas as one batch, and wait only for the previous batch, whose stage it then
// hands back to the producer (one arrival per warp; paired, to both blocks' producers, since
// the peer's multicast writes into this block's stage too).
__device__ __forceinline__ void release(const Shared& sh, int stage, int rank) {
    mbar_arrive(sh.empty(stage));
    if (CLUSTER > 1) mbar_arrive_peer(sh.empty(stage), rank ^ 1);
}

__device__ __forceinline__ void consume(const Shared& sh, float* C, float scale, int M, int N, int cg, const Walk& w,
                                        int k_tiles) {
    const int lane = threadIdx.x % 32;
    // Not zeroed: each tile's first wgmma runs with accumulate = 0 (see matmul rung 11: zeroing by hand
    // makes ptxas serialize the wgmmas).
    float d[BN / 2];
    float sum[PROMOTE > 0 ? BN / 2 : 1];  // fp32 sums of the promoted chunks (PROMOTE > 0)
    // STAGGER (lab): the second warpgroup's chunks start half a chunk later, so the two do not
    // wait for their wgmmas and promote at the same K-tile (both read the same stages in step).
    const int chunk_offset = STAGGER ? cg * (PROMOTE / 2) : 0;
    Ring ring;
    for (int stack = w.first(); stack < w.count(); stack += w.step()) {
        int m0, n0;
        w.origin(stack, m0, n0);
        if (PROMOTE > 0)
#pragma unroll
            for (int i = 0; i < (PROMOTE > 0 ? BN / 2 : 1); ++i) sum[i] = 0.f;
        int previous = -1;  // the stage whose batch may still be running
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.full(ring.stage), ring.parity);
            const unsigned sA = smem_addr(sh.a(ring.stage)) + cg * (64 * 128);
            const unsigned sB = smem_addr(sh.b(ring.stage));
            const int kp = kt + chunk_offset;  // the K-tile's place in this warpgroup's chunks
            const bool chunk_start = PROMOTE > 0 ? kp % (PROMOTE > 0 ? PROMOTE : 1) == 0 || kt == 0 : kt == 0;
            wgmma_fence();
            // A and Bt alike: the next 32 k = 32 bytes along each swizzled row; 8-row groups 1 KB
            // apart (stride offset); the leading offset is unused with this swizzle.
            const unsigned long long desc_a = make_desc(sA, 16, 1024), desc_b = make_desc(sB, 16, 1024);
#pragma unroll
            for (int kk = 0; kk < BK / 32; ++kk)
                wgmma_fp8(d, desc_plus(desc_a, kk * 32), desc_plus(desc_b, kk * 32), !chunk_start || kk > 0);
            wgmma_commit();
            const bool chunk_end =
                PROMOTE > 0 && (kp % (PROMOTE > 0 ? PROMOTE : 1) == PROMOTE - 1 || kt == k_tiles - 1);
            if (chunk_end) {  // promote: this chunk's sums into fp32, both stages free
                wgmma_wait<0>();
                fence_accumulators(d);
#pragma unroll
                for (int i = 0; i < (PROMOTE > 0 ? BN / 2 : 1); ++i) sum[i] += d[i];
                if (lane == 0) {
                    if (previous >= 0) release(sh, previous, w.rank);
                    release(sh, ring.stage, w.rank);
                }
                previous = -1;
            } else {
                wgmma_wait<1>();  // the previous batch is done: its stage can be refilled
                fence_accumulators(d);
                if (previous >= 0 && lane == 0) release(sh, previous, w.rank);
                previous = ring.stage;
            }
            ring.advance();
        }
        if (previous >= 0) {
            wgmma_wait<0>();
            fence_accumulators(d);
            if (lane == 0) release(sh, previous, w.rank);
        }
        if (PROMOTE > 0)
#pragma unroll
            for (int i = 0; i < (PROMOTE > 0 ? BN / 2 : 1); ++i) d[i] = sum[i];

                // Epilogue: the per-tensor scales, then rung 12's store. The producer is already filling
                // the next tile's stages.
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) d[i] *= scale;
#if FP8_TMA_STORE
        fp8_store_tile(d, cg, m0 + cg * 64, n0, C, M, N);  // rung 23's staged TMA stores
#else
        store_accumulators(d, C, M, N, m0 + cg * 64, n0);
#endif
    }
}

// OVERLAP = 1: one K-tile into `running` (fresh sums), then the previous K-tile's `finished` set
// into fp32 once its batch is done (wait<1>: the new batch stays queued). The caller alternates
// the two sets, so each is a fixed set of registers.
__device__ __forceinline__ void overlapped_ktile(const Shared& sh, Ring& ring, int& previous, float (&running)[BN / 2],
                                                 float (&finished)[BN / 2], float (&sum)[BN / 2], int cg, int rank) {
    mbar_wait(sh.full(ring.stage), ring.parity);
    const unsigned sA = smem_addr(sh.a(ring.stage)) + cg * (64 * 128);
    const unsigned sB = smem_addr(sh.b(ring.stage));
    const unsigned long long desc_a = make_desc(sA, 16, 1024), desc_b = make_desc(sB, 16, 1024);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 32; ++kk)
        wgmma_fp8(running, desc_plus(desc_a, kk * 32), desc_plus(desc_b, kk * 32), kk > 0);
    wgmma_commit();
    wgmma_wait<1>();  // the previous K-tile's batch is done; this one stays queued
    if (previous >= 0) {
        fence_accumulators(finished);
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) sum[i] += finished[i];
        if (threadIdx.x % 32 == 0) release(sh, previous, rank);
    }
    previous = ring.stage;
    ring.advance();
}

__device__ __forceinline__ void consume_overlapped(const Shared& sh, float* C, float scale, int M, int N, int cg,
                                                   const Walk& w, int k_tiles) {
    float d0[BN / 2], d1[BN / 2], sum[BN / 2];
    Ring ring;
    for (int stack = w.first(); stack < w.count(); stack += w.step()) {
        int m0, n0;
        w.origin(stack, m0, n0);
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) sum[i] = 0.f;
        int previous = -1;
        for (int kt = 0; kt < k_tiles; kt += 2) {
            overlapped_ktile(sh, ring, previous, d0, d1, sum, cg, w.rank);
            if (kt + 1 < k_tiles) overlapped_ktile(sh, ring, previous, d1, d0, sum, cg, w.rank);
        }
        wgmma_wait<0>();
        fence_accumulators(d0);
        fence_accumulators(d1);
        if (k_tiles % 2 == 1)  // the last K-tile ran into d0 (each set by name: no indexed registers)
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) sum[i] = (sum[i] + d0[i]) * scale;
        else
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) sum[i] = (sum[i] + d1[i]) * scale;
        if (threadIdx.x % 32 == 0) release(sh, previous, w.rank);
#if FP8_TMA_STORE
        fp8_store_tile(sum, cg, m0 + cg * 64, n0, C, M, N);
#else
        store_accumulators(sum, C, M, N, m0 + cg * 64, n0);
#endif
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void CLUSTER_DIMS __launch_bounds__(NUM_THREADS, 1)
    matmul_wgmma_fp8(float* C, const unsigned char* A, const unsigned char* Bt, int M, int N, int K,
                     const float* scale_a, const float* scale_b, const __grid_constant__ TmaDescriptor map_a,
                     const __grid_constant__ TmaDescriptor map_b
#if FP8_TMA_STORE
                     ,
                     const __grid_constant__ TmaDescriptor map_c
#endif
    ) {
    extern __shared__ unsigned char smem_raw[];
    // Align the stages to 1 KB by hand (the launch asks for SMEM_ALIGN extra bytes for this);
    // the barriers follow the stages.
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    Shared sh;
    sh.stages = base;
    sh.full_bar = smem_addr(base + STAGES * STAGE_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;

    // The same test the engine applies before encoding the maps: when it fails, the maps are zeros.
    const bool use_tma = (K % 16 == 0) && ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(Bt)) % 16 == 0);
    const int k_tiles = (K + BK - 1) / BK;
    Walk w;
    w.stacks_m = ((M + BM - 1) / BM + CLUSTER - 1) / CLUSTER;
    w.tiles_n = (N + BN - 1) / BN;
    w.rank = CLUSTER == 1 ? 0 : int(cluster_rank());

#if FP8_TMA_STORE
    if (threadIdx.x == 0) fp8_map_c = &map_c;
#endif
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), use_tma ? 1 : 128);  // the producer's one expect_tx arrival, or all 128 copiers
            mbar_init(sh.empty(s), CLUSTER * NUM_CONSUMERS * 4);  // every consumer warp of the cluster
        }
        fence_mbarrier_init();  // the barriers, visible to the copy engine and the other threads
        fence_proxy_async();
    }
    if (CLUSTER == 1)
        __syncthreads();
    else
        cluster_sync();  // the peer's barriers exist before anyone signals them

    const int wg = warpgroup_uniform();
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (use_tma) {
            if (threadIdx.x == 0) produce_tma(sh, &map_a, &map_b, w, k_tiles);
        } else {
            produce_elementwise(sh, A, Bt, M, N, K, w, k_tiles);
        }
    } else {
        regs_increase<CONSUMER_REGS>();
        if (OVERLAP)
            consume_overlapped(sh, C, *scale_a * *scale_b, M, N, wg - 1, w, k_tiles);
        else
            consume(sh, C, *scale_a * *scale_b, M, N, wg - 1, w, k_tiles);
#if FP8_TMA_STORE
        if (threadIdx.x % 128 == 0) bulk_wait<0>();  // the last stores have read their buffers
#endif
    }
    if (CLUSTER > 1) cluster_sync();  // no block leaves while its peer may still signal it
}
