// Rung 11 - Hopper wgmma: a warpgroup (4 warps) drives the tensor cores asynchronously.
//
// What changes from rung 10: mma.sync made each warp load its operands into registers with
// ldmatrix and wait for every 16x8x16 product. Hopper's wgmma.mma_async lets a warpgroup of 128
// threads multiply a 64 x BN tile (BN up to 256) by reading A and B *directly from shared memory*,
// described by two 64-bit "matrix descriptors" (address, strides, swizzle mode). The instruction
// returns at once; the warpgroup commits a batch of them and later waits for it, so the next
// tile's copies and barrier overlap the math of the current one.
// Supporting changes:
//  1. Shared-memory tiles use the 128-byte swizzle the hardware understands: A as BM rows of 64
//     bf16 (128 bytes, K-major), B as BN/64 blocks of 64 k-rows x 64 columns (N-major, so wgmma's
//     transpose-B bit is set). The 16-byte chunk index is XORed with (row % 8), the same rule as
//     rung 10's swizzle; the stage base is 1024-byte aligned, as that rule requires.
//  2. cp.async fills STAGES stages; since one wgmma batch may still be reading the previous stage
//     while the next one is issued, copies run STAGES - 2 tiles ahead.
//  3. After the copies land, each thread issues fence.proxy.async: the tensor cores read shared
//     memory through the "async proxy", which must be told about writes made by ordinary loads.
//  4. Tiles are handed out in groups of GROUP_M tile rows, so the blocks running at once share
//     their panels of A and B in L2 (about 4% at 4096^3 on an H100).
// Why it is faster: the math per instruction grows 16x (64 x 256 x 16 vs 16 x 8 x 16), operands
// never pass through registers, and issue no longer waits on each product.
// What to see: the top of the ladder, approaching cuBLAS bf16. Compiled for sm_90a only (wgmma
// is an "architecture-specific" feature of H100/H200). TMA (the bulk tensor copy engine) would
// take the copies off the threads entirely; it needs a tensor map built on the host, which this
// workbook's launch format does not carry yet, so copies stay with cp.async.
// Error: as rung 10, ~1e-6 relative against the exact product of the bf16 inputs.
//
// Edges and alignment: as rung 10 (cp.async with zero fill when K and N are multiples of 8,
// element-wise guarded loads otherwise; C written with guards).
// What it needs: sm_90a only (Hopper: wgmma (warpgroup matrix multiply) is a Hopper instruction);
// bf16 data.

#include <cuda_bf16.h>

#include "kl_ptx.cuh"    // smem_addr, cp.async and its group commit / wait, pack8 (kernels/common)
#include "kl_wgmma.cuh"  // wgmma, its fences and the smem descriptor (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(STAGES)
#error "BM, BN and STAGES must be defined, e.g. -DBM=128 -DBN=256 -DSTAGES=4"
#endif

#define BK 64                     // one 128-byte swizzled row of bf16 per K-tile
#define NUM_WARPGROUPS (BM / 64)  // each warpgroup computes 64 rows x BN columns
#define NUM_THREADS (128 * NUM_WARPGROUPS)
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024  // the 128-byte swizzle repeats every 8 rows = 1 KB
#define IN_FLIGHT 1      // wgmma batches left running when a step ends

static_assert(BM % 64 == 0 && BM >= 64 && BM <= 256,
              "BM must be a multiple of 64 up to 256 (one warpgroup per 64 rows)");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN must be 64, 128 or 256 (the N of one wgmma)");
// The accumulators' registers and the stages' shared memory are the manifest's constraints.
static_assert(STAGES >= 2 + IN_FLIGHT, "copies run STAGES - 1 - IN_FLIGHT tiles ahead: at least one");
static_assert((BM * 8) % NUM_THREADS == 0 && (BK * BN / 8) % NUM_THREADS == 0 && NUM_THREADS % (BN / 8) == 0,
              "every thread must copy the same number of 16-byte chunks of each tile, at a fixed column");

// ---------------------------------------------------------------------------------------------
// One K-tile into a stage, in the layouts the descriptors describe:
//   A: row r (0..BM-1) at r * 128 bytes, chunk c (8 bf16 of K) at ((c ^ (r % 8)) * 16).
//   B: columns split in blocks of 64; block j at j * 8 KB, k-row r at r * 128, chunk c at
//      ((c ^ (r % 8)) * 16).
// ---------------------------------------------------------------------------------------------
template <bool use_cp_async>
__device__ __forceinline__ void load_stage(unsigned char* stage, const __nv_bfloat16* A, const __nv_bfloat16* B, int M,
                                           int N, int K, int m0, int n0, int k0) {
    const int tid = threadIdx.x;
    unsigned char* sA = stage;
    unsigned char* sB = stage + A_STAGE_BYTES;
    const unsigned short* A16 = reinterpret_cast<const unsigned short*>(A);
    const unsigned short* B16 = reinterpret_cast<const unsigned short*>(B);

    // A: a thread always copies chunk c = tid % 8 of rows tid / 8 + i * (NUM_THREADS / 8).
    {
        const int c = tid % 8, col = k0 + c * 8;
        // The fallback copies one chunk at a time: unrolled, its 8-element loads would all be held
        // in registers at once, on top of the accumulators.
        constexpr int kUnrollA = use_cp_async ? BM * 8 / NUM_THREADS : 1;
#pragma unroll kUnrollA
        for (int i = 0; i < BM * 8 / NUM_THREADS; ++i) {
            const int r = tid / 8 + i * (NUM_THREADS / 8), row = m0 + r;
            unsigned char* dst = sA + r * 128 + ((c ^ (r & 7)) * 16);
            if (use_cp_async) {
                const bool ok = row < M && col < K;
                cp_async_16(smem_addr(dst), ok ? A16 + (size_t)row * K + col : A16, ok ? 16 : 0);
            } else {
                unsigned short v[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) v[e] = (row < M && col + e < K) ? A16[(size_t)row * K + col + e] : 0;
                *reinterpret_cast<uint4*>(dst) = pack8(v);
            }
        }
    }
    // B: a thread always copies chunk cn = tid % (BN / 8) (block j = cn / 8, chunk c = cn % 8
    // inside it) of k-rows tid / (BN / 8) + i * (NUM_THREADS / (BN / 8)).
    {
        const int cn = tid % (BN / 8), j = cn / 8, c = cn % 8, col = n0 + cn * 8;
        constexpr int kUnrollB = use_cp_async ? BK * BN / 8 / NUM_THREADS : 1;
#pragma unroll kUnrollB
        for (int i = 0; i < BK * BN / 8 / NUM_THREADS; ++i) {
            const int r = tid / (BN / 8) + i * (NUM_THREADS / (BN / 8)), row = k0 + r;
            unsigned char* dst = sB + j * (BK * 128) + r * 128 + ((c ^ (r & 7)) * 16);
            if (use_cp_async) {
                const bool ok = row < K && col < N;
                cp_async_16(smem_addr(dst), ok ? B16 + (size_t)row * N + col : B16, ok ? 16 : 0);
            } else {
                unsigned short v[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) v[e] = (row < K && col + e < N) ? B16[(size_t)row * N + col + e] : 0;
                *reinterpret_cast<uint4*>(dst) = pack8(v);
            }
        }
    }
}

// Which tile of C this block computes. Blocks launch in blockIdx order, x fastest; taken
// literally, one wave of 132 blocks would sweep whole rows of tiles and touch all of B. Grouping
// GROUP_M tile rows together makes a wave cover a squarer patch of C, so the A and B panels it
// reads are fewer and stay in L2 for the blocks that share them.
#define GROUP_M 8
__device__ __forceinline__ void tile_origin(int& m0, int& n0) {
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int id = blockIdx.y * tiles_n + blockIdx.x;
    const int group = id / (GROUP_M * tiles_n), first_m = group * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);  // the last group may be shorter
    const int in_group = id % (GROUP_M * tiles_n);
    m0 = (first_m + in_group % rows) * BM;
    n0 = (in_group / rows) * BN;
}

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------
// The block's whole computation. Two copies: with cp.async (rows 16-byte aligned) or with
// element-wise loads, so that the rare fallback adds no registers or branches to the fast loop.
template <bool use_cp_async>
__device__ __forceinline__ void block_tile(unsigned char* smem, float* C, const __nv_bfloat16* A,
                                           const __nv_bfloat16* B, int M, int N, int K) {
    const int tid = threadIdx.x;
    const int wg = tid / 128;  // warpgroup: rows wg*64 .. wg*64+63 of the block tile
    int m0, n0;
    tile_origin(m0, n0);
    const int num_tiles = (K + BK - 1) / BK;

    // Not zeroed: the very first wgmma runs with accumulate = 0 (d = a * b). Zeroing them by hand
    // would put ordinary instructions that write the accumulators in the way of the wgmma
    // pipeline, and ptxas then serializes every wgmma (its warning C7515).
    float d[BN / 2];

    // Prologue: STAGES-1-IN_FLIGHT tiles in flight (one group per tile, empty ones past the end).
#pragma unroll
    for (int s = 0; s < STAGES - 1 - IN_FLIGHT; ++s) {
        if (s < num_tiles) load_stage<use_cp_async>(smem + s * STAGE_BYTES, A, B, M, N, K, m0, n0, s * BK);
        cp_async_commit();
    }

    for (int t = 0; t < num_tiles; ++t) {
        cp_async_wait<STAGES - 2 - IN_FLIGHT>();  // this thread's copies of tile t have landed
        fence_proxy_async();                      // make them visible to the tensor cores' (async) reads
        __syncthreads();                          // everybody's copies; and every warpgroup has finished
                                                  // waiting for its wgmmas of tile t-1-IN_FLIGHT (step t-1)

        // Refill the stage of tile t-1-IN_FLIGHT (free: see the barrier).
        const int next = t + STAGES - 1 - IN_FLIGHT;
        if (next < num_tiles)
            load_stage<use_cp_async>(smem + (next % STAGES) * STAGE_BYTES, A, B, M, N, K, m0, n0, next * BK);
        cp_async_commit();

        const unsigned sA = smem_addr(smem + (t % STAGES) * STAGE_BYTES) + wg * (64 * 128);
        const unsigned sB = smem_addr(smem + (t % STAGES) * STAGE_BYTES + A_STAGE_BYTES);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            // A: K-major; the next 16 k are 32 bytes further along each swizzled row; 8-row
            //    groups are 1 KB apart (stride offset); the leading offset is unused.
            // B: N-major; the next 16 k are 16 rows = 2 KB further; 8-row groups 1 KB apart
            //    (stride offset); 64-column blocks BK * 128 bytes apart (leading offset).
            const unsigned long long desc_a = make_desc(sA + kk * 32, 16, 1024);
            const unsigned long long desc_b = make_desc(sB + kk * 16 * 128, BK * 128, 1024);
            wgmma_bf16(d, desc_a, desc_b, t > 0 || kk > 0);
        }
        wgmma_commit();
        wgmma_wait<IN_FLIGHT>();  // with IN_FLIGHT = 1: tile t-1's batch is done, tile t's may still run
        fence_accumulators(d);
    }
    wgmma_wait<0>();
    fence_accumulators(d);
    cp_async_wait<0>();

    // Epilogue: each warpgroup writes its 64 x BN slice of the tile (kl_wgmma.cuh has the layout).
    store_accumulators(d, C, M, N, m0 + wg * 64, n0);
}

extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_wgmma_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K) {
    extern __shared__ unsigned char smem_raw[];
    // Align the stages to 1 KB by hand (the launch asks for SMEM_ALIGN extra bytes for this).
    unsigned char* smem = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    const bool rows_aligned =
        (K % 8 == 0) && (N % 8 == 0) && ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B)) % 16 == 0);
    if (rows_aligned)
        block_tile<true>(smem, C, A, B, M, N, K);
    else
        block_tile<false>(smem, C, A, B, M, N, K);
}
