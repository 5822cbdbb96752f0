// Rung 13 - No cliff at odd sizes: padded rows keep TMA on; stream-K (measured, off by default).
//
// What changes from rung 12: there, the persistent blocks handed out whole BM x BN tiles, tile
// b, b + G, b + 2G... (G = number of SMs). When the tile count T is not a multiple of G, the last
// round has T % G tiles for G SMs: at 4096^3 with 128 x 256 tiles, T = 512 = 3 x 132 + 116, so
// the kernel runs 4 rounds for 3.88 rounds of work; at 2047 x 2049 x 1023 T = 144 = 132 + 12 and
// the second round keeps 12 SMs busy while 120 idle: the run takes two tile-times for 1.09 of
// work. This is wave quantization, the staircase of lesson 5's size sweeps.
// Here the unit of work is one K-tile of one output tile (one "iteration", BM x BN x 64), and:
//  1. The last G + T % G tiles (all of them when T < G) are split by iterations, not tiles:
//     block b takes the iterations [b * S / G, (b + 1) * S / G) of those tiles laid end to end
//     (S = their count times K / 64). A block's share may start in the middle of one tile and
//     end in the middle of another; the remaining T - G - T % G tiles (a whole number of rounds)
//     are handed out whole as in rung 12. Every SM now does the same number of iterations, to
//     within one.
//  2. A tile cut between blocks is summed in C itself, in a fixed order: the piece holding the
//     tile's last K-tiles stores its partial sums, then each earlier piece waits for a flag,
//     adds its sums to what C holds and raises the flag for the next. The piece with the tile's
//     last K-tiles is the first thing its block computes, and the piece with the first K-tiles is
//     the last thing its block computes, so the waits are short; and the result does not depend
//     on timing (the same order of additions every run). Waiting between blocks is safe because
//     the grid is one block per SM and all of them are resident at once.
//  3. Rows that are not 16-byte aligned (K or N not a multiple of 8, so TMA cannot read A or B
//     in place) no longer drop to element-wise copies: a first launch copies A and B once into
//     padded buffers whose rows are multiples of 8 elements (zeros in the padding, which adds
//     nothing to the sums), and the GEMM reads those through TMA at full speed. The copy moves
//     each matrix twice (read and write) and costs ~2 (MK + KN) / bandwidth, far less than the
//     tensor cores lose to element-wise copies; the same launch zeroes the flags of point 2.
// Why it should be faster: at 4096^3 the critical path falls from 4 tiles' iterations (256) to
// 248, ~3%; at 2047 x 2049 x 1023 from 2 tiles (32) to 18 iterations, ~40%, on top of the TMA
// path the padding restores (rung 12 reads those operands element by element).
// What to see: no cliff at odd sizes (2047 x 2049 x 1023, 4097^3, 2049^3): the padding keeps TMA
// on, far above rung 12 there and above cuBLAS. Stream-K does not pay yet: the streamed part runs
// at about half speed (its suspects and the measurements: docs/tuning/matmul.md), so STREAMK
// defaults to 0 (whole tiles, rung 12's schedule, padding on); 1 streams only when whole tiles
// would idle more than 1/8 of the SMs' time, 2 always.
// Error: as rung 12 (~1e-6 relative); a cut tile adds its pieces in fp32 in a fixed order.
// What it needs: sm_90a only (Hopper: wgmma, TMA bulk tensor copies and mbarrier transaction counts
// are Hopper features); bf16 data.

#include <cuda_bf16.h>

#include "kl_tma.cuh"    // TMA box loads, mbarriers, setmaxnreg, the grouped tile order (kernels/common)
#include "kl_wgmma.cuh"  // wgmma, its fences and the smem descriptor, shared with rungs 11 and 12
#include "kl_flags.cuh"  // flag_acquire / flag_release between blocks (kernels/common)

#if !defined(BM) || !defined(BN) || !defined(STAGES) || !defined(STREAMK)
#error "BM, BN, STAGES and STREAMK must be defined, e.g. -DBM=128 -DBN=256 -DSTAGES=4 -DSTREAMK=1"
#endif

#define BK 64                                    // one 128-byte swizzled row of bf16 per K-tile
#define NUM_CONSUMERS (BM / 64)                  // consumer warpgroups, 64 rows of C each
#define NUM_THREADS (128 * (NUM_CONSUMERS + 1))  // + the producer warpgroup
#define A_STAGE_BYTES (BM * BK * 2)
#define B_STAGE_BYTES (BK * BN * 2)
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define SMEM_ALIGN 1024  // the 128-byte swizzle repeats every 8 rows = 1 KB
#define GROUP_M 8        // tile rows handed out together (rung 11)

// Register hand-over as rung 12 (see there for why the consumers may take no more than the
// producer gives back).
#define PRODUCER_REGS 40
#define LAUNCH_REGS ((65536 / NUM_THREADS) / 8 * 8)
#define CONSUMER_REGS (LAUNCH_REGS + ((LAUNCH_REGS - PRODUCER_REGS) / NUM_CONSUMERS) / 8 * 8)
static_assert((CONSUMER_REGS - LAUNCH_REGS) * NUM_CONSUMERS <= LAUNCH_REGS - PRODUCER_REGS,
              "the consumers cannot take more registers than the producer gives back");
static_assert(BM == 128 || BM == 256, "BM must be 128 or 256 (two or four consumer warpgroups)");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN must be 64, 128 or 256 (the N of one wgmma)");
static_assert(STAGES >= 2, "at least two stages: one being filled while another is read");

// (PTX wrappers: rung 12's, warpgroup_sync among them, are in kl_tma.cuh; the flags between
// blocks in kl_flags.cuh.)

// ---------------------------------------------------------------------------------------------
// Work distribution (tile_origin, rung 12's grouped order, is in kl_tma.cuh)
// ---------------------------------------------------------------------------------------------
// A piece of work: K-tiles [kbeg, kend) of one tile. `rank` orders the pieces of a cut tile:
// 0 for the piece holding its last K-tile (stores), 1 for the piece before it (adds), ...
struct Unit {
    int tile, kbeg, kend, rank;
};

// The sequence of units of this block; producer and consumers walk the same one.
struct Schedule {
    int k_tiles, tiles, sk_tiles, dp_next;
    long long q, r;        // stream-K iterations per block: q, and one more for the first r blocks
    long long it, it_end;  // this block's stream-K iterations still to hand out

    __device__ Schedule(int tiles_, int k_tiles_) : k_tiles(k_tiles_), tiles(tiles_) {
        const int G = gridDim.x;
        // Whole rounds stay whole tiles; the rest (one round plus the remainder) is streamed.
        // STREAMK 1 streams only where whole tiles would leave more than 1/8 of the SMs' time
        // idle: a streamed block starts mid-tile, at a K offset its neighbours do not share, so
        // the blocks stop reading the same K-slices of A and B at the same time and L2 serves
        // fewer of their reads; a 3% tail (4096^3, 8192^3) is not worth that.
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
    // The block whose share holds stream-K iteration i (the inverse of first_iter).
    __device__ int owner(long long i) const {
        const long long big = r * (q + 1);  // the first r blocks take q + 1 iterations each
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

using Ring = StageRing<STAGES>;  // kl_tma.cuh

struct Shared {
    unsigned char* stages;
    unsigned full_bar, empty_bar;
    __device__ unsigned full(int s) const { return full_bar + 8 * s; }
    __device__ unsigned empty(int s) const { return empty_bar + 8 * s; }
    __device__ unsigned char* a(int s) const { return stages + s * STAGE_BYTES; }
    __device__ unsigned char* b(int s) const { return stages + s * STAGE_BYTES + A_STAGE_BYTES; }
};

// ---------------------------------------------------------------------------------------------
// Producer: one thread, TMA boxes, for each unit's K-tiles
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ void produce(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                        int tiles_m, int tiles_n, int k_tiles) {
    Ring ring;
    Schedule sched(tiles_m * tiles_n, k_tiles);
    Unit u;
    while (sched.next(u)) {
        int m0, n0;
        tile_origin<GROUP_M, BM, BN>(u.tile, tiles_m, tiles_n, m0, n0);
        for (int kt = u.kbeg; kt < u.kend; ++kt) {
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

// ---------------------------------------------------------------------------------------------
// Consumers
// ---------------------------------------------------------------------------------------------
// C += d for this warpgroup's 64 x BN patch (the register layout of store_accumulators): first
// every load into d, then the stores. Loads and stores interleaved element by element would wait
// one L2 round trip each (the compiler cannot move a load of C above a store to C), ~45 us for a
// 64 x 256 patch. C is read through L2 only (__ldcg): another SM wrote it.
__device__ __forceinline__ void add_accumulators(float (&d)[BN / 2], float* C, int M, int N, int row0, int col0) {
    const int lane = threadIdx.x % 32, warp_in_wg = (threadIdx.x % 128) / 32;
    const bool pairs_ok = (N % 2 == 0) && (reinterpret_cast<size_t>(C) % 8 == 0);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int row = row0 + warp_in_wg * 16 + lane / 4 + h * 8;
        if (row >= M) continue;
        const float* c_row = C + (size_t)row * N + col0 + (lane % 4) * 2;
        const int cols_left = N - col0 - (lane % 4) * 2;  // this lane's columns j * 8 (+1) exist while < cols_left
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
            if (pairs_ok && j * 8 + 1 < cols_left) {
                const float2 v = __ldcg(reinterpret_cast<const float2*>(c_row + j * 8));
                d[4 * j + 2 * h] += v.x;
                d[4 * j + 2 * h + 1] += v.y;
            } else {
                if (j * 8 < cols_left) d[4 * j + 2 * h] += __ldcg(c_row + j * 8);
                if (j * 8 + 1 < cols_left) d[4 * j + 2 * h + 1] += __ldcg(c_row + j * 8 + 1);
            }
        }
    }
    store_accumulators(d, C, M, N, row0, col0);
}

// Writes one unit's sums. A whole tile is stored; a piece of a cut tile waits for its turn (the
// flag equals its rank), stores (rank 0) or adds, and passes the turn on unless it holds the
// tile's first K-tile (then the tile is complete).
__device__ __forceinline__ void write_unit(float (&d)[BN / 2], float* C, int* flags, const Unit& u, int M, int N,
                                           int row0, int col0, int cg) {
    int* flag = flags + u.tile * NUM_CONSUMERS + cg;
    const bool first_warp = threadIdx.x % 128 < 32;
    if (u.rank > 0) {
        // The first warp polls as a whole: bar.sync is .aligned, so a warp must reach it with all
        // its lanes; one lane spinning while its 31 siblings sit at the barrier is undefined.
        if (first_warp)
            while (flag_acquire(flag) != u.rank) {}
        warpgroup_sync(1 + cg);
        add_accumulators(d, C, M, N, row0, col0);
    } else {
        store_accumulators(d, C, M, N, row0, col0);
    }
    if (u.kbeg > 0) {
        __threadfence();  // this thread's part of C, before the flag says it is there
        warpgroup_sync(1 + cg);
        if (threadIdx.x % 128 == 0) flag_release(flag, u.rank + 1);
    }
}

__device__ __forceinline__ void consume(const Shared& sh, float* C, int* flags, int M, int N, int cg, int tiles_m,
                                        int tiles_n, int k_tiles) {
    const int lane = threadIdx.x % 32;
    float d[BN / 2];
    Ring ring;
    Schedule sched(tiles_m * tiles_n, k_tiles);
    Unit u;
    while (sched.next(u)) {
        int m0, n0;
        tile_origin<GROUP_M, BM, BN>(u.tile, tiles_m, tiles_n, m0, n0);
        int previous = -1;
        for (int kt = u.kbeg; kt < u.kend; ++kt) {
            mbar_wait(sh.full(ring.stage), ring.parity);
            const unsigned sA = smem_addr(sh.a(ring.stage)) + cg * (64 * 128);
            const unsigned sB = smem_addr(sh.b(ring.stage));
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                const unsigned long long desc_a = make_desc(sA + kk * 32, 16, 1024);
                const unsigned long long desc_b = make_desc(sB + kk * 16 * 128, BK * 128, 1024);
                wgmma_bf16(d, desc_a, desc_b, kt > u.kbeg || kk > 0);
            }
            wgmma_commit();
            wgmma_wait<1>();
            fence_accumulators(d);
            if (previous >= 0 && lane == 0) mbar_arrive(sh.empty(previous));
            previous = ring.stage;
            ring.advance();
        }
        wgmma_wait<0>();
        fence_accumulators(d);
        if (lane == 0) mbar_arrive(sh.empty(previous));
        write_unit(d, C, flags, u, M, N, m0 + cg * 64, n0, cg);
    }
}

// ---------------------------------------------------------------------------------------------
// Launch 1: zero the flags; when rows are not 16-byte aligned, copy A and B into padded buffers
// ---------------------------------------------------------------------------------------------
// Each thread writes 8 elements (one 16-byte store) of Ap (M x Kp) or Bp (K x Np), Kp and Np the
// next multiples of 8, reading them with guards from A (M x K) and B (K x N).
extern "C" __global__ void matmul_streamk_prepare(float* flags_f, int num_flags, __nv_bfloat16* Ap, __nv_bfloat16* Bp,
                                                  const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                                                  int pad) {
    const int Kp = (K + 7) / 8 * 8, Np = (N + 7) / 8 * 8;
    const long long a_chunks = pad ? (long long)M * (Kp / 8) : 0;
    const long long b_chunks = pad ? (long long)K * (Np / 8) : 0;
    const long long total = num_flags + a_chunks + b_chunks;
    const unsigned short* A16 = reinterpret_cast<const unsigned short*>(A);
    const unsigned short* B16 = reinterpret_cast<const unsigned short*>(B);
    int* flags = reinterpret_cast<int*>(flags_f);
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        if (i < num_flags) {
            flags[i] = 0;
            continue;
        }
        long long c = i - num_flags;
        const bool in_a = c < a_chunks;
        if (!in_a) c -= a_chunks;
        const int cols = in_a ? K : N, ld_out = in_a ? Kp : Np;
        const long long row = c / (ld_out / 8);
        const int col = int(c % (ld_out / 8)) * 8;
        const unsigned short* src = (in_a ? A16 : B16) + row * cols;
        unsigned v[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const unsigned lo = (col + 2 * e < cols) ? src[col + 2 * e] : 0;
            const unsigned hi = (col + 2 * e + 1 < cols) ? src[col + 2 * e + 1] : 0;
            v[e] = lo | (hi << 16);
        }
        unsigned short* dst = reinterpret_cast<unsigned short*>(in_a ? Ap : Bp) + row * ld_out + col;
        *reinterpret_cast<uint4*>(dst) = make_uint4(v[0], v[1], v[2], v[3]);
    }
}

// ---------------------------------------------------------------------------------------------
// Launch 2: the GEMM (A and B are the padded copies when rows were not aligned)
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)
    matmul_wgmma_streamk_bf16(float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K,
                              float* flags_f, const __grid_constant__ TmaDescriptor map_a,
                              const __grid_constant__ TmaDescriptor map_b) {
    extern __shared__ unsigned char smem_raw[];
    unsigned char* base = smem_raw + ((SMEM_ALIGN - smem_addr(smem_raw) % SMEM_ALIGN) % SMEM_ALIGN);
    Shared sh;
    sh.stages = base;
    sh.full_bar = smem_addr(base + STAGES * STAGE_BYTES);
    sh.empty_bar = sh.full_bar + 8 * STAGES;

    // The manifest sends unaligned problems through the padded copies, so the maps are always
    // real; a misaligned base address would still leave them zeroed: stop loudly, not hang.
    if ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B)) % 16 != 0) __trap();
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN, k_tiles = (K + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.full(s), 1);                   // the producer's one expect_tx arrival
            mbar_init(sh.empty(s), NUM_CONSUMERS * 4);  // one arrival per consumer warp
        }
        fence_mbarrier_init();
        fence_proxy_async();
    }
    __syncthreads();

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (threadIdx.x == 0) produce(sh, &map_a, &map_b, tiles_m, tiles_n, k_tiles);
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, C, reinterpret_cast<int*>(flags_f), M, N, wg - 1, tiles_m, tiles_n, k_tiles);
    }
}
