// Rung 9 - tensor cores with mma.sync: bf16 inputs, fp32 accumulation, cp.async pipeline.
//
// What changes from rung 8: the multiply-adds leave the CUDA cores. One warp-wide instruction,
// mma.sync.m16n8k16, multiplies a 16x16 tile of A by a 16x8 tile of B into a 16x8 tile of fp32
// sums spread over the warp's registers: 4096 multiply-adds per instruction instead of 32. The
// inputs become bf16 (half the bytes of fp32, and what the tensor cores take); C stays fp32.
// Three supporting changes keep the tensor cores fed:
//  1. ldmatrix loads whole 8x8 tiles from shared memory straight into the register layout that
//     mma expects (with .trans for B, which is stored K-major, i.e. row-major K x N).
//  2. cp.async copies global -> shared without passing through registers, and STAGES tiles are
//     in flight at once (a multi-stage version of rung 8's double buffer).
//  3. Shared memory is swizzled: the 16-byte chunks of each row are XOR-permuted by the row
//     index, so the 8 rows an ldmatrix phase reads land in 8 different bank groups.
// Why it is faster: H100 tensor cores do ~15x the dense math of its CUDA cores.
// What to see: several times rung 8, at half the input bytes; short of cuBLAS bf16 because
// mma.sync is Hopper's legacy path (rung 10 uses the warpgroup instruction built for it).
// Error vs the fp32 reference: ~1e-3 relative, the rounding of the inputs to bf16.
//
// Edges and alignment: cp.async moves 16 bytes (8 bf16), so rows must start 16-byte aligned: K
// and N multiples of 8. Chunks outside the matrices are zero-filled by cp.async itself (source
// size 0). If K or N is not a multiple of 8, every tile takes a slower path that loads element by
// element with bounds checks and writes the same swizzled layout. C is written with guards.

#include <cuda_bf16.h>

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN) || !defined(STAGES)
#error "BM, BN, BK, WM, WN and STAGES must be defined, e.g. -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=64 -DSTAGES=4"
#endif

#define NUM_THREADS (32 * (BM / WM) * (BN / WN))
#define MI (WM / 16)                           // mma tiles per warp along M (16 rows each)
#define NI (WN / 8)                            // ...and along N (8 columns each)
#define A_CPR (BK / 8)                         // 16-byte chunks per row of the A tile (BM x BK)
#define B_CPR (BN / 8)                         // 16-byte chunks per row of the B tile (BK x BN)
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)

static_assert(BM % WM == 0 && BN % WN == 0, "the block tile must split into whole warp tiles");
static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tiles are built of 16 x 16 pieces (WM, WN multiples of 16)");
static_assert(BK % 16 == 0, "BK must be a multiple of 16, the K of one mma");
static_assert(NUM_THREADS >= 32 && NUM_THREADS <= 1024, "32 * (BM / WM) * (BN / WN) threads must be between 32 and 1024");
static_assert((BM * A_CPR) % NUM_THREADS == 0 && (BK * B_CPR) % NUM_THREADS == 0,
              "every thread must copy the same number of 16-byte chunks of each tile");
static_assert(MI * NI * 4 <= 128, "at most 128 fp32 accumulators per thread (WM * WN / 32)");
static_assert(STAGES >= 2, "the pipeline needs at least two stages");
static_assert(STAGES * STAGE_BYTES <= 227 * 1024, "the stages must fit in 227 KB of shared memory");

// ---------------------------------------------------------------------------------------------
// Small PTX wrappers (kept here so the file needs nothing but cuda_bf16.h).
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// 16-byte global -> shared copy; src_bytes < 16 fills the rest with zeros (0 = all zeros).
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending)); }

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

// d += a * b for one 16x8x16 tile: a = 4 registers (8 bf16), b = 2 registers (4 bf16), d = 4 fp32.
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Physical 16-byte chunk for logical chunk `c` of row `r`, in a tile with CPR chunks per row.
// 8 consecutive rows read at the same logical chunk must hit 8 different 16-byte bank groups
// (a 128-byte line): XOR the chunk with the row's position inside its 128-byte-wide group.
template <int CPR>
__device__ __forceinline__ int swizzle(int r, int c)
{
    if (CPR >= 8) return c ^ (r & 7);
    if (CPR == 4) return c ^ ((r >> 1) & 3);
    if (CPR == 2) return c ^ ((r >> 2) & 1);
    return c;
}

// Eight bf16 bit patterns -> one 16-byte vector, lowest address first.
__device__ __forceinline__ uint4 pack8(const unsigned short (&v)[8])
{
    return make_uint4(v[0] | ((unsigned)v[1] << 16), v[2] | ((unsigned)v[3] << 16), v[4] | ((unsigned)v[5] << 16),
                      v[6] | ((unsigned)v[7] << 16));
}

// ---------------------------------------------------------------------------------------------
// One K-tile of A (BM x BK) and B (BK x BN) into a shared-memory stage.
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ void load_stage(unsigned char* stage, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                           int M, int N, int K, int m0, int n0, int k0, bool use_cp_async)
{
    const int tid = threadIdx.x;
    unsigned char* sA = stage;
    unsigned char* sB = stage + A_STAGE_BYTES;
    const unsigned short* A16 = reinterpret_cast<const unsigned short*>(A);  // raw bf16 bits
    const unsigned short* B16 = reinterpret_cast<const unsigned short*>(B);

#pragma unroll
    for (int i = 0; i < BM * A_CPR / NUM_THREADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        const int r = idx / A_CPR, c = idx % A_CPR;
        const int row = m0 + r, col = k0 + c * 8;
        unsigned char* dst = sA + r * (BK * 2) + swizzle<A_CPR>(r, c) * 16;
        if (use_cp_async) {
            const bool ok = row < M && col < K;  // K % 8 == 0 here: a chunk is all in or all out
            cp_async_16(smem_addr(dst), ok ? A16 + (size_t)row * K + col : A16, ok ? 16 : 0);
        } else {
            unsigned short v[8];
#pragma unroll
            for (int e = 0; e < 8; ++e) v[e] = (row < M && col + e < K) ? A16[(size_t)row * K + col + e] : 0;
            *reinterpret_cast<uint4*>(dst) = pack8(v);
        }
    }
#pragma unroll
    for (int i = 0; i < BK * B_CPR / NUM_THREADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        const int r = idx / B_CPR, c = idx % B_CPR;
        const int row = k0 + r, col = n0 + c * 8;
        unsigned char* dst = sB + r * (BN * 2) + swizzle<B_CPR>(r, c) * 16;
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

// ---------------------------------------------------------------------------------------------
// The kernel: each warp owns a WM x WN tile of C, i.e. MI x NI mma tiles of 16 x 8.
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(NUM_THREADS)
matmul_mma_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K)
{
    extern __shared__ __align__(1024) unsigned char smem[];

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wm0 = (warp / (BN / WN)) * WM;  // this warp's tile inside the block tile
    const int wn0 = (warp % (BN / WN)) * WN;
    const bool use_cp_async = (K % 8 == 0) && (N % 8 == 0) &&
                              ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B)) % 16 == 0);
    const int num_tiles = (K + BK - 1) / BK;

    float acc[MI][NI][4] = {};

    // Prologue: STAGES-1 tiles in flight. Every thread commits one group per tile (empty groups
    // past the end keep the count uniform), so "wait until at most STAGES-2 groups are pending"
    // always means "the oldest tile has landed".
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < num_tiles) load_stage(smem + s * STAGE_BYTES, A, B, M, N, K, m0, n0, s * BK, use_cp_async);
        cp_async_commit();
    }

    for (int t = 0; t < num_tiles; ++t) {
        cp_async_wait<STAGES - 2>();  // this thread's copies of tile t have landed...
        __syncthreads();              // ...and everybody's; also, all warps are done with tile t-1

        // Refill the stage that tile t-1 used (safe: the barrier above) with tile t + STAGES - 1.
        const int next = t + STAGES - 1;
        if (next < num_tiles) load_stage(smem + (next % STAGES) * STAGE_BYTES, A, B, M, N, K, m0, n0, next * BK, use_cp_async);
        cp_async_commit();

        const unsigned sA = smem_addr(smem + (t % STAGES) * STAGE_BYTES);
        const unsigned sB = sA + A_STAGE_BYTES;
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            unsigned a_frag[MI][4], b_frag[NI / 2][4];
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
                // lanes 0-15 give rows 0-15 at k 0-7, lanes 16-31 the same rows at k 8-15
                const int r = wm0 + mi * 16 + (lane % 16), c = kk * 2 + lane / 16;
                ldmatrix_x4(a_frag[mi], sA + r * (BK * 2) + swizzle<A_CPR>(r, c) * 16);
            }
#pragma unroll
            for (int nj = 0; nj < NI / 2; ++nj) {
                // lanes 0-15 give k rows 0-15 at n 0-7, lanes 16-31 the same k rows at n 8-15;
                // .trans turns the K-major rows into the "col" operand mma wants
                const int r = kk * 16 + (lane % 16), c = (wn0 + nj * 16) / 8 + lane / 16;
                ldmatrix_x4_trans(b_frag[nj], sB + r * (BN * 2) + swizzle<B_CPR>(r, c) * 16);
            }
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni)
                    mma_bf16_16816(acc[mi][ni], a_frag[mi], b_frag[ni / 2][(ni % 2) * 2], b_frag[ni / 2][(ni % 2) * 2 + 1]);
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
