// Rung 23 (a lab rung: rung 18 teaches the idea; here it measured too small to teach) - fp8 with
// rung 18's epilogue: C leaves through shared memory and TMA stores, and the consumers start their
// next tile while it drains.
//
// What changes from rung 20: only the tile's store. Rung 20's consumers write their 64 x 128 fp32
// part of C from registers (64 eight-byte stores a thread) and can start the next tile only once
// those stores have left the SM. Here, as in rung 18, each consumer warpgroup cuts its part into
// four 64 x 32 sub-tiles; it writes one into a shared-memory buffer laid out in the copy engine's
// 128-byte swizzle, fences it for the async proxy, and one thread hands it to the copy engine (a
// TMA store); two buffers a warpgroup alternate, and a buffer is rewritten once the store two
// sub-tiles back has read it. The edge tiles are clipped by the copy engine.
// Why it should be faster: fp8 halves the main loop of a tile against bf16 (twice the math per
// wgmma) while the tile's 64 KB of fp32 C stays the same, so the store is a larger share of each
// tile: at 4096^3 about 2 us of C per SM per tile (132 SMs writing 4 TB/s) against about 9 us of
// math. With the stores staged, the next tile's wgmmas run under the drain.
// What to see: TFLOP/s against rung 20 and cuBLASLt's fp8 GEMM (cublaslt_fp8) at 4096^3 and
// 8192^3; the same error as rung 20 (the same sums, stored differently); below 16-byte rows of C
// (N % 4 != 0) the rung falls back to rung 20's direct stores. Measured on the H200 (2026-11-30,
// two rounds): 1.7% faster than rung 20 at 4096^3 (0.1216 and 0.1208 ms against 0.1237 and
// 0.1230), level at 8192^3; cuBLASLt stays 10-13% ahead, so the store is not where rung 20 loses
// (docs/tuning/matmul.md).
// What it needs: as rung 20 (sm_90a, fp8e4m3 data), and 32 KB more shared memory (two 8 KB
// buffers per consumer warpgroup, 1 KB aligned after the stages and barriers).
#define FP8_TMA_STORE 1
#define FP8_SUB_COLS 32  // a store sub-tile: 64 rows x 32 fp32, one 128-byte swizzled row each

#include "kl_tma.cuh"  // TmaDescriptor, TMA stores and bulk groups, named barriers (kernels/common)

// C's tensor map: a kernel argument (rung 20's kernel takes it under FP8_TMA_STORE), its address
// set by thread 0 before the block's first barrier.
__shared__ const TmaDescriptor* fp8_map_c;
__device__ __forceinline__ void fp8_store_tile(const float (&d)[BN / 2], int cg, int row0, int col0, float* C, int M,
                                               int N);
#include "20_wgmma_fp8_e4m3.cu"

static_assert(BN % FP8_SUB_COLS == 0, "whole sub-tiles across a consumer's BN columns");

// Buffer `which` (0, 1) of consumer warpgroup cg: 8 KB each, 1 KB aligned after the stages and the
// barriers (the manifest's smem counts them); the same alignment the kernel gives the stages.
__device__ __forceinline__ unsigned char* fp8_store_buffer(int cg, int which) {
    extern __shared__ unsigned char smem_raw[];
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    unsigned char* after = base + STAGES * STAGE_BYTES + 16 * STAGES;
    after += (SMEM_ALIGN - smem_addr(after) % SMEM_ALIGN) % SMEM_ALIGN;
    return after + (cg * 2 + which) * (64 * FP8_SUB_COLS * 4);
}

// One consumer warpgroup's 64 x BN part of the tile (scaled) to C. Accumulator layout
// (kl_wgmma.cuh): in 8-column slice s, thread (warp w, lane l) holds rows 16w + l/4 (+8) and
// columns 8s + 2(l%4) (+1). In a buffer, row r's 16-byte chunk c sits at chunk c ^ (r % 8) of its
// 128-byte row: the copy engine's 128-byte swizzle, so a warp's 8 rows land in different banks.
__device__ __forceinline__ void fp8_store_tile(const float (&d)[BN / 2], int cg, int row0, int col0, float* C, int M,
                                               int N) {
    if (N % 4 != 0 || reinterpret_cast<size_t>(C) % 16 != 0) {  // no tensor map describes C's rows
        store_accumulators(d, C, M, N, row0, col0);
        return;
    }
    const bool issuer = threadIdx.x % 128 == 0;
#pragma unroll
    for (int j = 0; j < BN / FP8_SUB_COLS; ++j) {
        unsigned char* buf = fp8_store_buffer(cg, j % 2);
        if (issuer) bulk_wait_read<1>();  // the store that last used this buffer (j - 2) has read it
        warpgroup_sync(1 + cg);
        stage_accumulator_subtile(buf, d, j);  // kl_wgmma.cuh: the 128-byte swizzle
        fence_proxy_async();                   // these writes, before the copy engine reads the buffer
        warpgroup_sync(1 + cg);
        if (issuer) {
            tma_store_2d(fp8_map_c, smem_addr(buf), col0 + j * FP8_SUB_COLS, row0);
            bulk_commit();
        }
    }
}
