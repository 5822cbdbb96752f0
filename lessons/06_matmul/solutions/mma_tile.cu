// Reference solution of lesson 6's tensor-core exercise (`kladder solution 06_matmul/9`).
// This is the mma_bf16 rung's own kernel (kernels/matmul/10_mma_bf16.cu, whose header explains
// each choice): a 128 x 128 tile of C per block of four warps, each warp a 64 x 64 tile of
// 16 x 8 mma.sync.m16n8k16 products with fp32 sums; A and B reach shared memory by cp.async in a
// ring of STAGES K-tiles (zero-filled outside the matrices), swizzled so that ldmatrix reads
// without bank conflicts; ldmatrix (.trans for B) loads the fragments in the layout mma expects.
// Rows that are not 16-byte aligned (K or N not a multiple of 8) take an element-wise copy path.
// A simpler kernel meets the goal too: plain loads into padded shared tiles and fragments read
// 32 bits at a time beat every fp32 rung; the pipeline is what brings it near cuBLAS.
#include <cuda_bf16.h>

#include "kl_ptx.cuh"  // smem_addr, cp.async, ldmatrix, pack8 (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN) || !defined(STAGES)
#error "BM, BN, BK, WM, WN and STAGES must be defined, e.g. -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=64 -DSTAGES=4"
#endif

#define NUM_THREADS (32 * (BM / WM) * (BN / WN))
#define MI (WM / 16)    // mma tiles per warp along M (16 rows each)
#define NI (WN / 8)     // ...and along N (8 columns each)
#define A_CPR (BK / 8)  // 16-byte chunks per row of the A tile (BM x BK)
#define B_CPR (BN / 8)  // 16-byte chunks per row of the B tile (BK x BN)
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)

// Whole warp tiles, threads, whole 16-byte chunks per thread, accumulators and the stages'
// shared memory are the manifest's constraints; these are the code's own assumptions.
static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tiles are built of 16 x 16 pieces (WM, WN multiples of 16)");
static_assert(BK == 32 || BK == 64,
              "BK must be 32 or 64: an even number of 16-deep mma steps (the fragment double buffer\n              "
              "alternates by step) and rows of at most 128 bytes");
static_assert(STAGES >= 2, "the pipeline needs at least two stages");

// ---------------------------------------------------------------------------------------------
// The warp-level MMA (cp.async, ldmatrix and pack8 are in kl_ptx.cuh)
// ---------------------------------------------------------------------------------------------
// d += a * b for one 16x8x16 tile: a = 4 registers (8 bf16), b = 2 registers (4 bf16), d = 4 fp32.
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Physical 16-byte chunk for logical chunk `c` of row `r`, in a tile with CPR chunks per row.
// 8 consecutive rows read at the same logical chunk must hit 8 different 16-byte bank groups
// (a 128-byte line): XOR the chunk with the row's position inside its 128-byte-wide group.
template <int CPR>
__device__ __forceinline__ int swizzle(int r, int c) {
    if (CPR >= 8) return c ^ (r & 7);
    if (CPR == 4) return c ^ ((r >> 1) & 3);
    if (CPR == 2) return c ^ ((r >> 2) & 1);
    return c;
}

// ---------------------------------------------------------------------------------------------
// One K-tile of A (BM x BK) and B (BK x BN) into a shared-memory stage.
// ---------------------------------------------------------------------------------------------
template <bool kCpAsync>
__device__ __forceinline__ void load_stage(unsigned char* stage, const __nv_bfloat16* A, const __nv_bfloat16* B, int M,
                                           int N, int K, int m0, int n0, int k0) {
    const int tid = threadIdx.x;
    unsigned char* sA = stage;
    unsigned char* sB = stage + A_STAGE_BYTES;
    const unsigned short* A16 = reinterpret_cast<const unsigned short*>(A);  // raw bf16 bits
    const unsigned short* B16 = reinterpret_cast<const unsigned short*>(B);
    // The fallback copies one chunk at a time: unrolled, all its 8-element loads would be held in
    // registers at once, on top of the accumulators.
    constexpr int kUnrollA = kCpAsync ? BM * A_CPR / NUM_THREADS : 1;
    constexpr int kUnrollB = kCpAsync ? BK * B_CPR / NUM_THREADS : 1;

    // A thread always copies chunk tid % CPR of its rows (row tid / CPR, then every
    // NUM_THREADS / CPR rows), so the column math is done once.
    {
        const int c = tid % A_CPR, col = k0 + c * 8;
#pragma unroll kUnrollA
        for (int i = 0; i < BM * A_CPR / NUM_THREADS; ++i) {
            const int r = tid / A_CPR + i * (NUM_THREADS / A_CPR), row = m0 + r;
            unsigned char* dst = sA + r * (BK * 2) + swizzle<A_CPR>(r, c) * 16;
            if (kCpAsync) {
                const bool ok = row < M && col < K;  // K % 8 == 0 here: a chunk is all in or all out
                cp_async_16(smem_addr(dst), ok ? A16 + (size_t)row * K + col : A16, ok ? 16 : 0);
            } else {
                unsigned short v[8];
#pragma unroll
                for (int e = 0; e < 8; ++e) v[e] = (row < M && col + e < K) ? A16[(size_t)row * K + col + e] : 0;
                *reinterpret_cast<uint4*>(dst) = pack8(v);
            }
        }
    }
    {
        const int c = tid % B_CPR, col = n0 + c * 8;
#pragma unroll kUnrollB
        for (int i = 0; i < BK * B_CPR / NUM_THREADS; ++i) {
            const int r = tid / B_CPR + i * (NUM_THREADS / B_CPR), row = k0 + r;
            unsigned char* dst = sB + r * (BN * 2) + swizzle<B_CPR>(r, c) * 16;
            if (kCpAsync) {
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

// Per-thread byte offsets, inside a stage, of the rows this lane hands to ldmatrix at k-step 0.
// At k-step kk the A chunk index is 2kk + lane/16; the swizzle XORs it with row bits only, so
// the offset is the k-step-0 offset XOR 32 kk (chunk bits), and B rows are 16 kk rows further.
struct FragOffsets {
    unsigned a[MI];      // A: row wm0 + 16 mi + lane % 16, chunk lane / 16
    unsigned b[NI / 2];  // B: k-row lane % 16, chunk (wn0 + 16 nj) / 8 + lane / 16
};

__device__ __forceinline__ FragOffsets frag_offsets(int wm0, int wn0, int lane) {
    FragOffsets o;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
        const int r = wm0 + mi * 16 + (lane % 16), c = lane / 16;
        o.a[mi] = r * (BK * 2) + swizzle<A_CPR>(r, c) * 16;
    }
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj) {
        const int r = lane % 16, c = (wn0 + nj * 16) / 8 + lane / 16;
        o.b[nj] = A_STAGE_BYTES + r * (BN * 2) + swizzle<B_CPR>(r, c) * 16;
    }
    return o;
}

// Fragments of one 16-deep k-step of a stage: MI tiles of A (16 x 16) and NI/2 pairs of B
// tiles (16 x 16 = two 16 x 8 mma operands each).
__device__ __forceinline__ void load_fragments(unsigned (&a)[MI][4], unsigned (&b)[NI / 2][4], unsigned stage,
                                               const FragOffsets& o, int kk) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)  // lanes 0-15: rows 0-15 at k 0-7; lanes 16-31: k 8-15
        ldmatrix_x4(a[mi], stage + (o.a[mi] ^ (kk * 32)));
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj)  // lanes 0-15: k rows 0-15 at n 0-7; 16-31: n 8-15.
        ldmatrix_x4_trans(b[nj], stage + o.b[nj] + kk * 16 * (BN * 2));  // .trans: K-major -> "col"
}

// ---------------------------------------------------------------------------------------------
// The block's work: each warp owns a WM x WN tile of C, i.e. MI x NI mma tiles of 16 x 8.
// Two copies (kCpAsync true/false) so that the rare element-wise fallback adds nothing to the
// fast loop.
// ---------------------------------------------------------------------------------------------
template <bool kCpAsync>
__device__ __forceinline__ void block_tile(unsigned char* smem, float* C, const __nv_bfloat16* A,
                                           const __nv_bfloat16* B, int M, int N, int K) {
    constexpr int KK = BK / 16;  // mma k-steps per K-tile
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wm0 = (warp / (BN / WN)) * WM;  // this warp's tile inside the block tile
    const int wn0 = (warp % (BN / WN)) * WN;
    const int num_tiles = (K + BK - 1) / BK;
    const unsigned smem_base = smem_addr(smem);
    const FragOffsets offs = frag_offsets(wm0, wn0, lane);

    float acc[MI][NI][4] = {};
    unsigned a_frag[2][MI][4], b_frag[2][NI / 2][4];  // double-buffered in registers

    // Prologue: STAGES-1 tiles in flight. Every thread commits one group per tile (empty groups
    // past the end keep the count uniform), so "wait until at most STAGES-2 groups are pending"
    // always means "the oldest tile not yet waited for has landed".
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < num_tiles) load_stage<kCpAsync>(smem + s * STAGE_BYTES, A, B, M, N, K, m0, n0, s * BK);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    int read_stage = 0;
    load_fragments(a_frag[0], b_frag[0], smem_base, offs, 0);

    // Software pipeline: while the tensor cores run k-step kk, the fragments of step kk+1 are
    // already being loaded, and at the last step of a tile the fragments come from the next
    // stage. The barrier sits before that last step's products are issued, so the products of the
    // previous step keep the tensor cores busy while the warps wait for each other.
    for (int t = 0; t < num_tiles; ++t) {
#pragma unroll
        for (int kk = 0; kk < KK; ++kk) {
            if (kk == 0) {
                // Refill the stage tile t-1 used with tile t + STAGES - 1. Safe: every read of
                // that stage came before the barrier of the previous tile's last step.
                const int next = t + STAGES - 1;
                if (next < num_tiles)
                    load_stage<kCpAsync>(smem + (next % STAGES) * STAGE_BYTES, A, B, M, N, K, m0, n0, next * BK);
                cp_async_commit();
            }
            if (kk == KK - 1) {
                cp_async_wait<STAGES - 2>();  // tile t+1 has landed (this thread's copies)...
                __syncthreads();              // ...everybody's too
                read_stage = (read_stage + 1) % STAGES;
            }
            load_fragments(a_frag[(kk + 1) % 2], b_frag[(kk + 1) % 2], smem_base + read_stage * STAGE_BYTES, offs,
                           (kk + 1) % KK);
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni)
                    mma_bf16_16816(acc[mi][ni], a_frag[kk % 2][mi], b_frag[kk % 2][ni / 2][(ni % 2) * 2],
                                   b_frag[kk % 2][ni / 2][(ni % 2) * 2 + 1]);
        }
    }
    cp_async_wait<0>();  // no copy may still target shared memory when the block exits

    // Epilogue: thread (lane) holds rows lane/4 and lane/4 + 8, columns 2*(lane%4) and +1 of each
    // 16 x 8 tile. Pairs are written as float2 when aligned and inside C.
    const bool pairs_ok = (N % 2 == 0) && (reinterpret_cast<size_t>(C) % 8 == 0);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = m0 + wm0 + mi * 16 + lane / 4 + h * 8;
                const int col = n0 + wn0 + ni * 8 + (lane % 4) * 2;
                if (row >= M) continue;
                const float v0 = acc[mi][ni][h * 2], v1 = acc[mi][ni][h * 2 + 1];
                if (pairs_ok && col + 1 < N) {
                    *reinterpret_cast<float2*>(&C[(size_t)row * N + col]) = make_float2(v0, v1);
                } else {
                    if (col < N) C[(size_t)row * N + col] = v0;
                    if (col + 1 < N) C[(size_t)row * N + col + 1] = v1;
                }
            }
}

extern "C" __global__ void __launch_bounds__(NUM_THREADS)
    matmul_mma_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K) {
    extern __shared__ __align__(1024) unsigned char smem[];
    const bool rows_aligned =
        (K % 8 == 0) && (N % 8 == 0) && ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B)) % 16 == 0);
    if (rows_aligned)
        block_tile<true>(smem, C, A, B, M, N, K);
    else
        block_tile<false>(smem, C, A, B, M, N, K);
}
