// Rung 19 - fp32 without a cliff, on the 16-byte loop: rung 16's copies (A transposed, every copy
// 16 bytes) on operands padded to whole tiles by one cheap launch, in tiles that fill the SMs.
// This rung is rung 14 with rung 16's A read transposed: the copy is the lesson, diff it against 14.
//
// What changes from rung 14: rung 14 padded A and B in a first launch and still copied A one float
// per cp.async in its loop (eight copies and their addresses per thread per K-tile). Here the
// first launch writes At = A^T padded to whole tiles (Kp x Mp, a 32 x 32 transpose through shared
// memory) and, only when N or K is not whole tiles, B padded (Kp x Np); the GEMM then copies both
// operands as rung 16 does: BK rows of BM (or BN) contiguous floats, 16 bytes per copy, no guards,
// no padding column in shared memory.
// Why it should be faster: with 128 x 128 tiles its loop is 92.7% FFMA (2,048 of
// 2,210 instructions per two K-tiles in the SASS), against rung 16's 88%.
// The default tile is 128 x 64 (four warps of 32 x 64, 64 accumulators per thread): ptxas gives
// it 128 registers, so four blocks share an SM, and at 2047 x 2049 x 1023 its 16 x 33 = 528 tiles
// are exactly one round of the 528 resident blocks (cuBLAS's own kernel at this size: 128 x 64
// tiles, 528 blocks). 128 x 128 tiles (BN = 128, WM = WN = 64) make 272 tiles for 264 resident
// blocks, 1.03 rounds of work in 2 rounds of time, which STREAMK = 2 spreads evenly by K-tiles
// over persistent blocks (rung 14's schedule: whole rounds stay whole, the pieces of a cut tile
// are summed in C in a fixed order behind a flag per tile).
// What to see: at 2047 x 2049 x 1023 much closer to cuBLAS SGEMM than rung 14, level with it at
// 4097^3; the defaults against BN = 128 with STREAMK 0 and 2 at the odd sizes (FMA_ORDER in its
// lab rung, double_buffer_at_streamk_lab). Figures: docs/tuning/matmul.md, seventh session.
// What it needs: sm_80 (Ampere) or newer: cp.async copies global memory into shared memory without
// registers; fp32 data.

#include "kl_ptx.cuh"    // smem_addr, cp.async and its group commit / wait (kernels/common)
#include "kl_flags.cuh"  // flag_acquire / flag_release between blocks (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN) || !defined(TM) || !defined(TN) || \
    !defined(STAGES) || !defined(STREAMK)
#error "BM, BN, BK, WM, WN, TM, TN, STAGES and STREAMK must be defined"
#endif

#define GROUP 8
#ifndef FMA_ORDER
#define FMA_ORDER 2
#endif
#define LANES_M 4
#define LANES_N 8
#define WSUBM (LANES_M * TM)
#define WSUBN (LANES_N * TN)
#define WMITER (WM / WSUBM)
#define WNITER (WN / WSUBN)
#define NUM_THREADS (32 * (BM / WM) * (BN / WN))
// Blocks per SM, which the manifest's persistent grid repeats (cut tiles wait for each other,
// so all blocks must be resident at once): two of 128 threads, as rungs 9, 14 and 16 run. The
// 128 x 64 default fits four (ptxas gives it 128 registers); its launch is one block per tile.
#define BLOCKS_PER_SM (NUM_THREADS <= 128 ? 2 : 1)

static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "TM, TN and BK must be multiples of 4 (float4 accesses)");
static_assert(BK % 2 == 0, "fragments alternate between two register sets by k-step: BK must be even");
static_assert(STAGES >= 2, "a ring needs a stage to fill while another is read");
static_assert(NUM_THREADS % (BM / 4) == 0 && NUM_THREADS % (BN / 4) == 0,
              "a pass of the block's threads must cover whole rows of the At and B tiles");

// ---------------------------------------------------------------------------------------------
// Schedule (rung 14's): units of K-tiles of one tile, the same sequence for every thread
// ---------------------------------------------------------------------------------------------
struct Unit {
    int tile, kbeg, kend, rank;
};
struct Schedule {
    int k_tiles, tiles, sk_tiles, dp_next;
    long long q, r, it, it_end;
    Schedule() = default;
    __device__ Schedule(int tiles_, int k_tiles_) : k_tiles(k_tiles_), tiles(tiles_) {
        const int G = gridDim.x;
        const int rounds = (tiles + G - 1) / G;
        const bool stream = STREAMK == 2 || (STREAMK == 1 && 8LL * (rounds * G - tiles) > (long long)rounds * G);
        sk_tiles = (!stream || tiles % G == 0) ? 0 : (tiles < G ? tiles : G + tiles % G);
        const long long sk_iters = (long long)sk_tiles * k_tiles;
        q = sk_iters / G;
        r = sk_iters % G;
        it = first_iter(blockIdx.x);
        it_end = first_iter(blockIdx.x + 1);
        dp_next = sk_tiles + blockIdx.x;
    }
    __device__ long long first_iter(long long b) const { return b * q + min(b, r); }
    __device__ int owner(long long i) const {
        const long long big = r * (q + 1);
        return i < big ? int(i / (q + 1)) : int(r + (i - big) / q);
    }
    __device__ bool next(Unit& u) {
        if (it < it_end) {
            u.tile = int(it / k_tiles);
            u.kbeg = int(it % k_tiles);
            u.kend = int(min((long long)k_tiles, u.kbeg + (it_end - it)));
            u.rank = owner((long long)u.tile * k_tiles + k_tiles - 1) - int(blockIdx.x);
            it += u.kend - u.kbeg;
            return true;
        }
        if (dp_next < tiles) {
            u = Unit{dp_next, 0, k_tiles, 0};
            dp_next += gridDim.x;
            return true;
        }
        return false;
    }
};

// ---------------------------------------------------------------------------------------------
// One unit: K-tiles [kbeg, kend) of the tile at (m0, n0), every tile whole (padded operands)
// ---------------------------------------------------------------------------------------------
struct Smem {
    float As[STAGES][BK][BM];  // At's tile: As[k][m]
    float Bs[STAGES][BK][BN];
};

// Rows k0 .. k0 + BK - 1, columns c0 .. c0 + W - 1 of a row-major X (leading dimension ld) into
// S[BK][W]: 16 bytes per copy, whole rows per pass of the block, no guards (padded operands).
template <int W>
__device__ __forceinline__ void copy_rows(float (*S)[W], const float* X, int ld, int k0, int c0) {
    constexpr int kRows = NUM_THREADS / (W / 4);
    constexpr int kLoads = (BK * W / 4 + NUM_THREADS - 1) / NUM_THREADS;
    const int tid = threadIdx.x, r0 = tid / (W / 4), c = (tid % (W / 4)) * 4;
    const float* src = X + (size_t)(k0 + r0) * ld + c0 + c;
#pragma unroll
    for (int i = 0; i < kLoads; ++i)
        if ((BK * W / 4) % NUM_THREADS == 0 || i * kRows + r0 < BK)
            cp_async_16(smem_addr(&S[i * kRows + r0][c]), src + (size_t)i * kRows * ld);
}

__device__ __forceinline__ void copy_tile(Smem& s, int stage, const float* At, const float* B, int lda, int ldb, int m0,
                                          int n0, int k0) {
    copy_rows<BM>(s.As[stage], At, lda, k0, m0);
    copy_rows<BN>(s.Bs[stage], B, ldb, k0, n0);
}

// One k-step: acc += a (column) x b (row). FMA_ORDER: 0 serpentine rows (rungs 9, 14, 16),
// 1 rows, 2 columns, 3 serpentine columns. Every order sums each accumulator's products in the
// same k order (bit for bit the same result); the order steers how ptxas places registers.
__device__ __forceinline__ void outer_product(float (&acc)[WMITER * TM][WNITER * TN], const float (&af)[WMITER * TM],
                                              const float (&bf)[WNITER * TN]) {
    constexpr int R = WMITER * TM, C = WNITER * TN;
    if (FMA_ORDER <= 1) {
#pragma unroll
        for (int i = 0; i < R; ++i)
#pragma unroll
            for (int jj = 0; jj < C; ++jj) {
                const int j = (FMA_ORDER == 0 && (i & 1)) ? C - 1 - jj : jj;
                acc[i][j] += af[i] * bf[j];
            }
    } else {
#pragma unroll
        for (int j = 0; j < C; ++j)
#pragma unroll
            for (int ii = 0; ii < R; ++ii) {
                const int i = (FMA_ORDER == 3 && (j & 1)) ? R - 1 - ii : ii;
                acc[i][j] += af[i] * bf[j];
            }
    }
}

__device__ __forceinline__ void load_frags(float (&af)[WMITER * TM], float (&bf)[WNITER * TN], const Smem& s, int st,
                                           int k, int wm0, int wn0) {
#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; i += 4)
            *reinterpret_cast<float4*>(&af[wm * TM + i]) =
                *reinterpret_cast<const float4*>(&s.As[st][k][wm0 + wm * WSUBM + i]);
#pragma unroll
    for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            *reinterpret_cast<float4*>(&bf[wn * TN + j]) =
                *reinterpret_cast<const float4*>(&s.Bs[st][k][wn0 + wn * WSUBN + j]);
}

// The K-loop over [kbeg, kend): copies STAGES - 1 tiles ahead (none past kend: an empty commit
// group keeps the count), the next tile's first fragments read before its last k-step's FMAs.
__device__ __forceinline__ void k_loop(float (&acc)[WMITER * TM][WNITER * TN], Smem& s, const float* At, const float* B,
                                       int lda, int ldb, int m0, int n0, int kbeg, int kend, int wm0, int wn0) {
    float a_frag[2][WMITER * TM], b_frag[2][WNITER * TN];
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        if (kbeg + st < kend) copy_tile(s, st, At, B, lda, ldb, m0, n0, (kbeg + st) * BK);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    load_frags(a_frag[0], b_frag[0], s, 0, 0, wm0, wn0);
    for (int t = 0; t < kend - kbeg; ++t) {
        const int cur = t % STAGES, fill = (t + STAGES - 1) % STAGES;
        if (kbeg + t + STAGES - 1 < kend) copy_tile(s, fill, At, B, lda, ldb, m0, n0, (kbeg + t + STAGES - 1) * BK);
        cp_async_commit();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const int f = k & 1;
            if (k > 0) load_frags(a_frag[f], b_frag[f], s, cur, k, wm0, wn0);
            if (k == BK - 1) {
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                load_frags(a_frag[0], b_frag[0], s, (t + 1) % STAGES, 0, wm0, wn0);
            }
            outer_product(acc, a_frag[f], b_frag[f]);
        }
    }
    cp_async_wait<0>();
    __syncthreads();  // every thread is done with the ring before the next unit refills it
}

// Stores (rank 0) or adds (rank > 0: all loads of C first, then the stores) this thread's
// accumulators, guarded by M and N.
__device__ __forceinline__ void write_acc(float (&acc)[WMITER * TM][WNITER * TN], float* C, int M, int N, int row0,
                                          int col0, bool add) {
#pragma unroll
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 0 && !add) continue;
#pragma unroll
        for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                const int row = row0 + wm * WSUBM + i;
                if (row >= M) continue;
#pragma unroll
                for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                    for (int j = 0; j < TN; ++j) {
                        const int col = col0 + wn * WSUBN + j;
                        if (col >= N) continue;
                        float* p = &C[(size_t)row * N + col];
                        if (pass == 0)
                            acc[wm * TM + i][wn * TN + j] += __ldcg(p);
                        else
                            *p = acc[wm * TM + i][wn * TN + j];
                    }
            }
    }
}

extern "C" __global__ void __launch_bounds__(NUM_THREADS, BLOCKS_PER_SM)
    matmul_double_buffer_at_streamk(float* C, const float* At, const float* B, int M, int N, int K, int lda, int ldb,
                                    float* flags_f) {
    extern __shared__ __align__(16) unsigned char smem_raw[];  // the ring: dynamic, STAGES * BK * (BM + BN) floats
    Smem& s = *reinterpret_cast<Smem*>(smem_raw);
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM + (lane / LANES_N) * TM;  // this lane's first row in the tile
    const int wn0 = (warp % (BN / WN)) * WN + (lane % LANES_N) * TN;  // ... and first column
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, k_tiles = (K + BK - 1) / BK;
    int* flags = reinterpret_cast<int*>(flags_f);
    // The schedule's state lives in shared memory and thread 0 steps it: in registers its 64-bit
    // counters stayed live across the K-loop and cost the loop registers (222 against 193).
    __shared__ Schedule sched;
    __shared__ Unit unit;
    __shared__ int more;
    if (tid == 0) sched = Schedule(tiles_m * tiles_n, k_tiles);
    for (;;) {
        __syncthreads();  // every thread has read the last unit (and sched is set)
        if (tid == 0) more = sched.next(unit);
        __syncthreads();
        if (!more) break;
        const Unit u = unit;
        const int group = u.tile / (GROUP * tiles_n), first_m = group * GROUP;
        const int rows = min(tiles_m - first_m, GROUP), in_group = u.tile % (GROUP * tiles_n);
        const int m0 = (first_m + in_group % rows) * BM, n0 = (in_group / rows) * BN;
        float acc[WMITER * TM][WNITER * TN] = {};
        k_loop(acc, s, At, B, lda, ldb, m0, n0, u.kbeg, u.kend, wm0, wn0);
        if (u.rank > 0) {  // wait until the pieces with later K-tiles are in C
            if (tid < 32)  // a whole warp polls: __syncthreads must find warp 0 with all its lanes
                while (flag_acquire(flags + u.tile) != u.rank) {}
            __syncthreads();
        }
        write_acc(acc, C, M, N, m0 + wm0, n0 + wn0, u.rank > 0);
        if (u.kbeg > 0) {  // a piece with earlier K-tiles follows: pass the turn on
            __threadfence();
            __syncthreads();
            if (tid == 0) flag_release(flags + u.tile, u.rank + 1);
        }
    }
}

// Launch 1, one block of 32 x 8 threads per piece of work, in three ranges of blockIdx.x:
//  [0, a_blocks): a 32 x 32 tile of At (Kp x Mp) = A^T, zeros past M and K, through a 32 x 33
//    shared tile (coalesced reads along A's rows, coalesced writes along At's rows; the extra
//    column keeps the column reads off one bank);
//  [a_blocks, a_blocks + b_blocks): 1024 columns of one row of Bp (Kp x Np), zeros past K and N
//    (b_blocks is 0 when B needs no padding);
//  and every block zeroes a share of the flags.
extern "C" __global__ void matmul_at_streamk_prepare(float* At, float* Bp, float* flags, const float* A, const float* B,
                                                     int M, int N, int K, int Mp, int Np, int Kp, int num_flags) {
    __shared__ float tile[32][33];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
    for (int i = blockIdx.x * 256 + tid; i < num_flags; i += gridDim.x * 256) reinterpret_cast<int*>(flags)[i] = 0;
    const int k_blocks = (Kp + 31) / 32, a_blocks = k_blocks * ((Mp + 31) / 32);
    if ((int)blockIdx.x < a_blocks) {
        const int k0 = (blockIdx.x % k_blocks) * 32, m0 = (blockIdx.x / k_blocks) * 32;
#pragma unroll
        for (int i = 0; i < 32; i += 8) {
            const int m = m0 + ty + i, k = k0 + tx;
            tile[ty + i][tx] = (m < M && k < K) ? A[(size_t)m * K + k] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < 32; i += 8) {
            const int k = k0 + ty + i, m = m0 + tx;
            if (k < Kp && m < Mp) At[(size_t)k * Mp + m] = tile[tx][ty + i];
        }
        return;
    }
    const int chunks = (Np + 1023) / 1024, b = blockIdx.x - a_blocks;
    const int k = b / chunks, c = (b % chunks) * 1024 + tid * 4;
    if (k >= Kp || c >= Np) return;
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = (k < K && c + e < N) ? B[(size_t)k * N + c + e] : 0.0f;
    *reinterpret_cast<float4*>(Bp + (size_t)k * Np + c) = make_float4(v[0], v[1], v[2], v[3]);
}
