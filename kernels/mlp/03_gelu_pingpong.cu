// Rung 3 - ping-pong consumers: one warpgroup's GeLU epilogue runs while the other's main loop
// keeps the tensor cores busy.
//
// What changes from rung 2: there, both consumer warpgroups shared each 128 x 256 tile (64 rows
// each), so they reached the epilogue together: GeLU, the bf16 conversion and the stores of the
// whole tile ran while no wgmma was in flight, and the tensor cores idled for every epilogue
// (docs/tuning/mlp.md: the epilogue rung's first product took about as long as cuBLAS's GEMM plus
// the whole GeLU kernel). Here each consumer warpgroup owns whole tiles of BM x BN (64 x 256 by
// default), and the two take this block's tiles in turn: 0, 2, 4 ... and 1, 3, 5 .... The producer
// fills the ring of stages in tile order, so while consumer 0 applies GeLU and stores tile 0,
// consumer 1 is already multiplying tile 1 from the stages that follow, and by the time
// consumer 1 reaches its epilogue, tile 2's stages are waiting for consumer 0 (CUTLASS calls this
// schedule "ping-pong"; the two main loops take turns, see consume()). Everything else is rung 2: TMA producer
// warpgroup, 128-byte swizzled stages, persistent blocks walking tiles in GROUP_M order, GeLU on the SFU, bf16 H; the
// second product stays cuBLAS. Why it should be faster: the epilogue leaves the tensor cores' critical path (it costs
// 0.1-0.2 ms of 1.7 ms in rung 2); the price is smaller tiles per warpgroup (64 x 256 instead of
// a shared 128 x 256: 40 KB of stage copies per 64-deep K-tile for half the math, so L2 serves
// 1.67x the bytes per FLOP), and 8,192 tiles instead of 4,096 also shorten the last wave.
// What to see: this rung against rung 1 (unfused) by at least U's round trip at copy bandwidth,
// and against rung 2 by most of its epilogue time; the counters' DRAM bytes below unfused.
// Error and edges: as rung 2.

#include <cuda_bf16.h>

#include "gelu.cuh"      // the tanh-form GeLU on the SFU (this folder)
#include "kl_tma.cuh"    // TMA box loads, mbarriers, setmaxnreg, the grouped tile order (kernels/common)
#include "kl_wgmma.cuh"  // wgmma, its fences and the smem descriptor (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(STAGES) || !defined(GROUP_M)
#error "BM, BN, STAGES and GROUP_M must be defined, e.g. -DBM=64 -DBN=256 -DSTAGES=5 -DGROUP_M=16"
#endif

#define BK 64                                    // one 128-byte swizzled row of bf16 per K-tile
#define NUM_CONSUMERS 2                          // consumer warpgroups, each on its own tiles
#define SUB_M (BM / 64)                          // 64-row wgmmas per K-step in one consumer's tile
#define NUM_THREADS (128 * (NUM_CONSUMERS + 1))  // + the producer warpgroup
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024  // the 128-byte swizzle repeats every 8 rows = 1 KB

// Registers per thread after the hand-over. The block is given LAUNCH_REGS per thread at launch
// (__launch_bounds__(NUM_THREADS, 1): 65536 / NUM_THREADS, rounded down to 8), and setmaxnreg
// only moves registers *inside the block*: the consumers may take no more than the producer
// gives back, or their setmaxnreg.inc waits forever (a first version asked 112 with four
// consumers, 8,192 more than the 7,168 freed, and hung).
//   two consumers: launch 168; producer 168 -> 40 frees 16,384; consumers 168 -> 232 take 16,384
#define PRODUCER_REGS 40
#define LAUNCH_REGS ((65536 / NUM_THREADS) / 8 * 8)
#define CONSUMER_REGS (LAUNCH_REGS + ((LAUNCH_REGS - PRODUCER_REGS) / NUM_CONSUMERS) / 8 * 8)
static_assert((CONSUMER_REGS - LAUNCH_REGS) * NUM_CONSUMERS <= LAUNCH_REGS - PRODUCER_REGS,
              "the consumers cannot take more registers than the producer gives back");
static_assert(CONSUMER_REGS <= 256, "setmaxnreg allows at most 256 registers per thread");

static_assert(BM == 64 || BM == 128, "BM must be 64 or 128 (one or two 64-row wgmmas per K-step)");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN must be 64, 128 or 256 (the N of one wgmma)");
// The accumulators' registers and the stages' shared memory are the manifest's constraints.
static_assert(SUB_M * BN / 2 + 32 <= CONSUMER_REGS, "a consumer's BM * BN / 128 accumulators must fit its registers");
static_assert(STAGES >= 2, "at least two stages: one being filled while another is read");

// ---------------------------------------------------------------------------------------------
// Stages (the PTX wrappers and the grouped tile order are in kl_tma.cuh)
// ---------------------------------------------------------------------------------------------
// The ring of stages: stage index and the parity of its current use. Producer and consumers
// step through the same sequence (every tile has the same number of K-tiles).
using Ring = StageRing<STAGES>;  // kl_tma.cuh

struct Shared {
    unsigned char* stages;  // STAGES x (A tile, then BN / 64 blocks of B), 1 KB aligned
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
// issue 1 + BN / 64 box copies. Boxes reaching past M, N or K arrive zero-filled (and their full
// size still counts toward the announced bytes).
__device__ __forceinline__ void produce_tma(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                            int tiles_m, int tiles_n, int k_tiles) {
    Ring ring;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int m0, n0;
        tile_origin<GROUP_M, BM, BN>(tile, tiles_m, tiles_n, m0, n0);
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
            const unsigned full = sh.full(ring.stage);
            mbar_arrive_expect_bytes(full, STAGE_BYTES);
            tma_load_2d(smem_addr(sh.a(ring.stage)), map_a, kt * BK, m0, full);
#pragma unroll
            for (int j = 0; j < BN / 64; ++j)
                tma_load_2d(smem_addr(sh.b(ring.stage) + j * (BK * 128)), map_b, n0 + j * 64, kt * BK, full);
            ring.advance();
        }
    }
}

// Eight bf16 bit patterns -> one 16-byte vector, lowest address first.
__device__ __forceinline__ uint4 pack8(const unsigned short (&v)[8]) {
    return make_uint4(v[0] | ((unsigned)v[1] << 16), v[2] | ((unsigned)v[3] << 16), v[4] | ((unsigned)v[5] << 16),
                      v[6] | ((unsigned)v[7] << 16));
}

// Without TMA (rows not 16-byte aligned): the producer's 128 threads load element by element,
// with guards, and store 16-byte chunks at the swizzled places the copy engine would have used:
//   A: row r at r * 128 bytes, chunk c (8 bf16 of K) at (c ^ (r % 8)) * 16;
//   B: 64-column block j at j * 8 KB, k-row r at r * 128, chunk c at (c ^ (r % 8)) * 16.
// Every thread fences its writes for the tensor cores (async proxy) and arrives on `full`.
__device__ __forceinline__ void produce_elementwise(const Shared& sh, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                                    int M, int N, int K, int tiles_m, int tiles_n, int k_tiles) {
    const int pt = threadIdx.x % 128;
    const unsigned short* A16 = reinterpret_cast<const unsigned short*>(A);
    const unsigned short* B16 = reinterpret_cast<const unsigned short*>(B);
    Ring ring;
    for (int tile = blockIdx.x; tile < tiles_m * tiles_n; tile += gridDim.x) {
        int m0, n0;
        tile_origin<GROUP_M, BM, BN>(tile, tiles_m, tiles_n, m0, n0);
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
            const int k0 = kt * BK;
            for (int i = pt; i < BM * 8; i += 128) {
                const int r = i / 8, c = i % 8, row = m0 + r, col = k0 + c * 8;
                unsigned short v[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) v[e] = (row < M && col + e < K) ? A16[(size_t)row * K + col + e] : 0;
                *reinterpret_cast<uint4*>(sh.a(ring.stage) + r * 128 + ((c ^ (r & 7)) * 16)) = pack8(v);
            }
            for (int i = pt; i < BK * BN / 8; i += 128) {
                const int r = i / (BN / 8), cn = i % (BN / 8), j = cn / 8, c = cn % 8, row = k0 + r, col = n0 + cn * 8;
                unsigned short v[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) v[e] = (row < K && col + e < N) ? B16[(size_t)row * N + col + e] : 0;
                *reinterpret_cast<uint4*>(sh.b(ring.stage) + j * (BK * 128) + r * 128 + ((c ^ (r & 7)) * 16)) =
                    pack8(v);
            }
            fence_proxy_async();
            mbar_arrive(sh.full(ring.stage));
            ring.advance();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The epilogue: GeLU on the accumulators, bf16 H (as rung 2)
// ---------------------------------------------------------------------------------------------
// Writes a warpgroup's 64 x N accumulator tile (N = 2 * kN) as H = GeLU(acc) in bf16 (M x ldh,
// row-major) at (row0, col0), with bounds checks. Same register layout as kl_wgmma.cuh's
// store_accumulators: in 8-column slice j, thread (warp w, lane l) holds rows w*16 + l/4 (+8)
// and columns 8j + 2*(l%4) (+1) in d[4j .. 4j+3]; each pair goes out as one __nv_bfloat162.
template <int kN>
__device__ __forceinline__ void store_gelu_bf16(const float (&d)[kN], __nv_bfloat16* H, int M, int ldh, int row0,
                                                int col0) {
    const int lane = threadIdx.x % 32, warp_in_wg = (threadIdx.x % 128) / 32;
    const bool pairs_ok = (ldh % 2 == 0) && (reinterpret_cast<size_t>(H) % 4 == 0);
#pragma unroll
    for (int j = 0; j < kN / 4; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = row0 + warp_in_wg * 16 + lane / 4 + h * 8;
            const int col = col0 + j * 8 + (lane % 4) * 2;
            if (row >= M) continue;
            const float g0 = mlp_gelu(d[4 * j + 2 * h]), g1 = mlp_gelu(d[4 * j + 2 * h + 1]);
            __nv_bfloat16* p = H + (size_t)row * ldh + col;
            if (pairs_ok && col + 1 < ldh) {
                *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(g0, g1);
            } else {
                if (col < ldh) p[0] = __float2bfloat16(g0);
                if (col + 1 < ldh) p[1] = __float2bfloat16(g1);
            }
        }
}

// ---------------------------------------------------------------------------------------------
// Consumers: the one change from rung 2
// ---------------------------------------------------------------------------------------------
// Warpgroup `cg` (0 or 1) computes every other tile of this block: local tiles cg, cg + 2, ...
// The producer filled the ring with each tile's k_tiles stages in turn, so local tile t starts at
// ring position t * k_tiles; the other consumer's positions are skipped. Per K-tile: wait for the
// stage, issue SUB_M x 4 wgmmas as one batch, and wait only for the previous batch, whose stage
// it then hands back (one arrival per warp of this warpgroup).
// The main loops take turns, tile by tile: a consumer starts tile t only once the other has
// waited for every stage of tile t - 1. Without that order a consumer would wait on a stage's
// barrier k_tiles positions ahead, and a barrier's parity tells only "this phase or the one
// before": it would take tile t - 1's data for its own (the first version did, and faulted once
// blocks had several tiles). Epilogues are not ordered: they overlap the other's main loop.
__device__ __forceinline__ void named_barrier_sync(int id) {  // waits until 256 threads arrived
    asm volatile("bar.sync %0, 256;\n" ::"r"(id) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id) {  // counts this warpgroup, does not wait
    asm volatile("bar.arrive %0, 256;\n" ::"r"(id) : "memory");
}
// Barrier 1: consumer 0's main loop is done, consumer 1 may start; barrier 2: the other way.
// (Barrier 0 is __syncthreads'.)
__device__ __forceinline__ void consume(const Shared& sh, __nv_bfloat16* H, int M, int N, int cg, int tiles_m,
                                        int tiles_n, int k_tiles) {
    const int lane = threadIdx.x % 32;
    // Not zeroed: each tile's first wgmma runs with accumulate = 0 (see matmul rung 11: zeroing by hand
    // makes ptxas serialize the wgmmas).
    float d[SUB_M][BN / 2];
    const int total = tiles_m * tiles_n;
    const int n_local = (int)blockIdx.x < total ? (total - 1 - (int)blockIdx.x) / (int)gridDim.x + 1 : 0;
    int local = 0;
    for (int tile = blockIdx.x; tile < total; tile += gridDim.x, ++local) {
        if (local % NUM_CONSUMERS != cg) continue;           // the other warpgroup's tile
        if (local > 0) named_barrier_sync(cg == 0 ? 2 : 1);  // the other's main loop of tile local - 1 is done
        int m0, n0;
        tile_origin<GROUP_M, BM, BN>(tile, tiles_m, tiles_n, m0, n0);
        const long long first = (long long)local * k_tiles;  // this tile's first ring position
        Ring ring;
        ring.stage = static_cast<int>(first % STAGES);
        ring.parity = static_cast<unsigned>((first / STAGES) & 1);
        int previous = -1;  // the stage whose batch may still be running
        for (int kt = 0; kt < k_tiles; ++kt) {
            mbar_wait(sh.full(ring.stage), ring.parity);
            const unsigned sA = smem_addr(sh.a(ring.stage));
            const unsigned sB = smem_addr(sh.b(ring.stage));
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                // A: next 16 k = 32 bytes along each swizzled row; 8-row groups 1 KB apart; the
                // second 64-row half (BM = 128) 8 KB on. B: next 16 k = 16 rows = 2 KB.
                const unsigned long long desc_b = make_desc(sB + kk * 16 * 128, BK * 128, 1024);
#pragma unroll
                for (int s = 0; s < SUB_M; ++s)
                    wgmma_bf16(d[s], make_desc(sA + s * (64 * 128) + kk * 32, 16, 1024), desc_b, kt > 0 || kk > 0);
            }
            wgmma_commit();
            wgmma_wait<1>();  // the previous batch is done: its stage can be refilled
#pragma unroll
            for (int s = 0; s < SUB_M; ++s) fence_accumulators(d[s]);
            if (previous >= 0 && lane == 0) mbar_arrive(sh.empty(previous));
            previous = ring.stage;
            ring.advance();
        }
        // Every stage of this tile has been waited for: the other consumer may start the next tile.
        if (local + 1 < n_local) named_barrier_arrive(cg == 0 ? 1 : 2);
        wgmma_wait<0>();
#pragma unroll
        for (int s = 0; s < SUB_M; ++s) fence_accumulators(d[s]);
        if (lane == 0) mbar_arrive(sh.empty(previous));

            // Epilogue from registers, as rung 2; meanwhile the other warpgroup multiplies its tile.
#pragma unroll
        for (int s = 0; s < SUB_M; ++s) store_gelu_bf16(d[s], H, M, N, m0 + s * 64, n0);
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)
    mlp_gemm_gelu_pingpong(__nv_bfloat16* H, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                           const __grid_constant__ TmaDescriptor map_a, const __grid_constant__ TmaDescriptor map_b) {
    extern __shared__ unsigned char smem_raw[];
    // Align the stages to 1 KB by hand (the launch asks for SMEM_ALIGN extra bytes for this);
    // the barriers follow the stages.
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    Shared sh;
    sh.stages = base;
    sh.full_bar = smem_addr(base + STAGES * STAGE_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;

    // The same test the engine applies before encoding the maps: when it fails, the maps are zeros.
    const bool use_tma =
        (K % 8 == 0) && (N % 8 == 0) && ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B)) % 16 == 0);
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, k_tiles = (K + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), use_tma ? 1 : 128);  // the producer's one expect_tx arrival, or all 128 copiers
            mbar_init(sh.empty(s), 4);                 // one arrival per warp of the consumer that read it
        }
        // Make the initialized barriers visible to the copy engine and to the other threads.
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        fence_proxy_async();
    }
    __syncthreads();

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (use_tma) {
            if (threadIdx.x == 0) produce_tma(sh, &map_a, &map_b, tiles_m, tiles_n, k_tiles);
        } else {
            produce_elementwise(sh, A, B, M, N, K, tiles_m, tiles_n, k_tiles);
        }
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, H, M, N, wg - 1, tiles_m, tiles_n, k_tiles);  // warpgroups 1 and 2: consumers 0 and 1
    }
}
