// Rung 14 - fp32 on CUDA cores without a cliff: padded operands and stream-K (rung 13's two
// ideas, on rung 9's kernel).
//
// What changes from rung 9: rung 9 takes its fast path (16-byte copies of B, no guards) only
// for tiles wholly inside an aligned matrix. At 2047 x 2049 x 1023 no row is 16-byte aligned, so
// every tile copies B one float per cp.async, four times the copy instructions; and its 128 x 128
// tiles make 16 x 17 = 272 blocks for the 264 that are resident at once (two per SM), 1.03
// rounds of work in 2 rounds of time. Here:
//  1. When M, N or K is not a multiple of the tile (BM, BN, BK), a first launch copies A and B
//     into buffers padded with zeros to whole tiles (Mp x Kp and Kp x Np), so every tile takes the
//     fast path; the GEMM guards only its stores of C. Cost: reading and writing A and B once,
//     ~3% of the GEMM at 4097^3.
//  2. Persistent blocks (two per SM, as many as rung 9 has resident) and rung 13's schedule:
//     whole rounds of tiles stay whole, the rest is split evenly by K-tiles over the blocks, the
//     pieces of a cut tile summed in C in a fixed order behind a flag per tile.
// Why it should be faster: at 2047 x 2049 x 1023 the critical path falls from 2 tiles' K-loops
// to 1.03 (a model's 1.9x), and every copy of B is one 16-byte cp.async again; at 4097^3,
// 33 x 33 = 1089 tiles are 4.1 rounds of work in 5 rounds of time (1.2x).
// What to see: STREAMK = 2 against 0, rung 9 and cuBLAS SGEMM at 2047 x 2049 x 1023 and 4097^3:
// unlike rung 13, stream-K pays here (fp32 needs a sixth of the bytes per second per SM), though
// short of the model; at 4096^3 the same loop runs a little slower than rung 9 (fewer registers,
// and persistent blocks drain their ring between units). Figures: docs/tuning/matmul.md.
// STREAMK: 0 never, 1 when whole tiles would leave more than 1/8 of the SMs' time idle, 2 always.
// The inner loop (fragments, serpentine FMAs, the hand-over before the last k-step) is rung 9's.
// What it needs: sm_80 (Ampere) or newer: cp.async copies global memory into shared memory without
// registers; fp32 data.

#include "kl_ptx.cuh"    // smem_addr, cp.async and its group commit / wait (kernels/common)
#include "kl_flags.cuh"  // flag_acquire / flag_release between blocks (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN) || !defined(TM) || !defined(TN) || \
    !defined(STAGES) || !defined(STREAMK)
#error "BM, BN, BK, WM, WN, TM, TN, STAGES and STREAMK must be defined"
#endif

#define GROUP 8
#define LANES_M 4
#define LANES_N 8
#define WSUBM (LANES_M * TM)
#define WSUBN (LANES_N * TN)
#define WMITER (WM / WSUBM)
#define WNITER (WN / WSUBN)
#define NUM_THREADS (32 * (BM / WM) * (BN / WN))
#define A_PAD 4
#define A_ELEMS ((BM * BK + NUM_THREADS - 1) / NUM_THREADS)      // 4-byte copies of A per thread
#define B_LOADS ((BK * BN / 4 + NUM_THREADS - 1) / NUM_THREADS)  // 16-byte copies of B per thread
// Persistent blocks per SM, which the manifest's grid repeats (blocks wait for each other, so all
// of them must be resident at once): two of 128 threads, as rung 9 runs (8 warps per SM; one block
// of 4 warps measured 20% slower), the register limit guaranteeing that two fit.
#define BLOCKS_PER_SM (NUM_THREADS <= 128 ? 2 : 1)

static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "TM, TN and BK must be multiples of 4 (float4 accesses)");
static_assert(BK % 2 == 0, "fragments alternate between two register sets by k-step: BK must be even");
static_assert(STAGES >= 2, "a ring needs a stage to fill while another is read");
static_assert(NUM_THREADS % BK == 0 && NUM_THREADS % (BN / 4) == 0,
              "a pass of the block's threads must cover whole rows of the A and B tiles");

// ---------------------------------------------------------------------------------------------
// Schedule (as rung 13): units of K-tiles of one tile, the same sequence for every thread
// ---------------------------------------------------------------------------------------------
struct Unit {
    int tile, kbeg, kend, rank;
};
struct Schedule {
    int k_tiles, tiles, sk_tiles, dp_next;
    long long q, r, it, it_end;
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
    float As[STAGES][BK][BM + A_PAD];
    float Bs[STAGES][BK][BN];
};

// A one float per copy to its transposed place, B 16 bytes per copy; no guards (lda = Kp, ldb = Np).
__device__ __forceinline__ void copy_tile(Smem& s, int stage, const float* A, const float* B, int lda, int ldb, int m0,
                                          int n0, int k0) {
    const int tid = threadIdx.x;
    constexpr int kRowsA = NUM_THREADS / BK;
    const int ca = tid % BK;
    const float* a_src = A + (size_t)(m0 + tid / BK) * lda + k0 + ca;
#pragma unroll
    for (int i = 0; i < A_ELEMS; ++i) {
        const int r = i * kRowsA + tid / BK;
        if ((BM * BK) % NUM_THREADS == 0 || r < BM)
            cp_async_4(smem_addr(&s.As[stage][ca][r]), a_src + (size_t)i * kRowsA * lda);
    }
    constexpr int kRowsB = NUM_THREADS / (BN / 4);
    const int rb = tid / (BN / 4), cb = (tid % (BN / 4)) * 4;
    const float* b_src = B + (size_t)(k0 + rb) * ldb + n0 + cb;
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
        const int r = i * kRowsB + rb;
        if ((BK * BN / 4) % NUM_THREADS == 0 || r < BK)
            cp_async_16(smem_addr(&s.Bs[stage][r][cb]), b_src + (size_t)i * kRowsB * ldb);
    }
}

__device__ __forceinline__ void outer_product(float (&acc)[WMITER * TM][WNITER * TN], const float (&af)[WMITER * TM],
                                              const float (&bf)[WNITER * TN]) {
    constexpr int R = WMITER * TM, C = WNITER * TN;
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
        for (int jj = 0; jj < C; ++jj) {
            const int j = (i & 1) ? C - 1 - jj : jj;
            acc[i][j] += af[i] * bf[j];
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

// The K-loop of rung 9 over [kbeg, kend): copies STAGES - 1 tiles ahead (none past kend: an
// empty commit group keeps the count), the next tile's first fragments read before its last
// k-step's FMAs.
__device__ __forceinline__ void k_loop(float (&acc)[WMITER * TM][WNITER * TN], Smem& s, const float* A, const float* B,
                                       int lda, int ldb, int m0, int n0, int kbeg, int kend, int wm0, int wn0) {
    float a_frag[2][WMITER * TM], b_frag[2][WNITER * TN];
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        if (kbeg + st < kend) copy_tile(s, st, A, B, lda, ldb, m0, n0, (kbeg + st) * BK);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    load_frags(a_frag[0], b_frag[0], s, 0, 0, wm0, wn0);
    for (int t = 0; t < kend - kbeg; ++t) {
        const int cur = t % STAGES, fill = (t + STAGES - 1) % STAGES;
        if (kbeg + t + STAGES - 1 < kend) copy_tile(s, fill, A, B, lda, ldb, m0, n0, (kbeg + t + STAGES - 1) * BK);
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
    matmul_double_buffer_streamk(float* C, const float* A, const float* B, int M, int N, int K, int lda, int ldb,
                                 float* flags_f) {
    __shared__ __align__(16) Smem s;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM + (lane / LANES_N) * TM;  // this lane's first row in the tile
    const int wn0 = (warp % (BN / WN)) * WN + (lane % LANES_N) * TN;  // ... and first column
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, k_tiles = (K + BK - 1) / BK;
    int* flags = reinterpret_cast<int*>(flags_f);
    Schedule sched(tiles_m * tiles_n, k_tiles);
    Unit u;
    while (sched.next(u)) {
        const int group = u.tile / (GROUP * tiles_n), first_m = group * GROUP;
        const int rows = min(tiles_m - first_m, GROUP), in_group = u.tile % (GROUP * tiles_n);
        const int m0 = (first_m + in_group % rows) * BM, n0 = (in_group / rows) * BN;
        float acc[WMITER * TM][WNITER * TN] = {};
        k_loop(acc, s, A, B, lda, ldb, m0, n0, u.kbeg, u.kend, wm0, wn0);
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

// Launch 1: zero the flags; when M, N or K is not a whole number of tiles, copy A (M x K) into
// Ap (Mp x Kp) and B (K x N) into Bp (Kp x Np), zeros around. One float4 of output per thread.
extern "C" __global__ void matmul_double_buffer_prepare(float* flags, int num_flags, float* Ap, float* Bp,
                                                        const float* A, const float* B, int M, int N, int K, int pad) {
    const int Mp = (M + BM - 1) / BM * BM, Np = (N + BN - 1) / BN * BN, Kp = (K + BK - 1) / BK * BK;
    const long long a4 = pad ? (long long)Mp * Kp / 4 : 0, b4 = pad ? (long long)Kp * Np / 4 : 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < num_flags + a4 + b4;
         i += (long long)gridDim.x * blockDim.x) {
        if (i < num_flags) {
            reinterpret_cast<int*>(flags)[i] = 0;
            continue;
        }
        long long c = i - num_flags;
        const bool in_a = c < a4;
        if (!in_a) c -= a4;
        const int ld = in_a ? Kp : Np, rows = in_a ? M : K, cols = in_a ? K : N;
        const long long row = c / (ld / 4);
        const int col = int(c % (ld / 4)) * 4;
        const float* src = (in_a ? A : B) + row * cols;
        float v[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) v[e] = (row < rows && col + e < cols) ? src[col + e] : 0.0f;
        *reinterpret_cast<float4*>((in_a ? Ap : Bp) + row * ld + col) = make_float4(v[0], v[1], v[2], v[3]);
    }
}
