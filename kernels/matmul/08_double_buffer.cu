// Rung 8 - double buffering: load the next K-tile while computing on the current one.
//
// What changes from rung 7: shared memory holds two copies of each tile. While the warps run
// their multiply-adds on buffer `cur`, every thread has already issued the global loads of the
// *next* K-tile into registers; once its math is done it writes those registers into the other
// buffer, and a single barrier per K-step hands the buffers over.
// Why it is faster: in rung 7 each K-step was "load, wait, barrier, compute, barrier": while the
// loads crossed the memory system (hundreds of cycles) the FMA units had nothing to do, and the
// second barrier made everybody wait for the slowest warp. Here the load latency hides behind
// BK steps of math, and one barrier per step is enough (see the comment at the loop).
// What to see: the last big step on CUDA cores, close to cuBLAS SGEMM at large sizes. The cost:
// twice the shared memory and a few more registers (the in-flight loads). The default warp tile
// is 64 x 64 with 8 x 4 lane sub-tiles (4 warps, 16 x 8 outputs per thread): more math per
// shared load than rung 7's 32 x 64, affordable now that loads no longer stall the warps.
// Two refinements are on by default and can be switched off to see their worth (1-2% on an
// H100): EARLY_BAR = 2 hands the buffers over before the last k-step's math and loads the next
// tile's first fragments straight after the barrier; GROUP = 8 orders the tiles as rung 10 does.
//
// The last 4% is about register banks, not memory. Nine in ten instructions here are FMAs, as in
// cuBLAS, yet cuBLAS issues on 87% of cycles and this loop did on 80%: Nsight Compute blamed
// "dispatch" stalls. An FMA reads three registers, and two reads from one register bank delay
// it (bank = register number mod 4 is the model that fits the measurements; NVIDIA does not
// document it). With float4 stores of C, each group of four accumulators must sit in four
// consecutive registers in column order, exactly like the float4-loaded B values they multiply,
// so every FMA read its B value and its accumulator from the same bank. SCALAR_C = 1 stores C one
// float at a time (96 more store instructions per thread, once per block) and lets ptxas place
// the accumulators freely; FMA_ORDER = 2 walks each k-step column by column, the order it then
// places best. Together: 47.5 -> 49.3 TFLOP/s at 4096^3 on an H100, 0.92x -> 0.95x cuBLAS.
// ASYNC = 1 replaces the register staging with cp.async copies into a ring of STAGES tiles, the
// classic next step. Before the banks were fixed it lost 1-2% (its address arithmetic costs issue
// slots too); after, with three stages and FMA_ORDER = 1 (serpentine rows), it wins: 50.5 TFLOP/s
// at 4096^3 (0.98x cuBLAS) and 50.8 at 8192^3 (0.99x), against 49.3 and 49.9 for ASYNC = 0. It is
// the default; ASYNC = 0, STAGES = 2, FMA_ORDER = 2 is the plain double buffer described above.
//
// Edges and alignment: as in rungs 6-7 (float4 fast path inside, guarded scalar path at edges).

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(WM) || !defined(WN) || !defined(TM) || !defined(TN)
#error "BM, BN, BK, WM, WN, TM and TN must be defined, e.g. -DBM=128 -DBN=128 -DBK=8 -DWM=32 -DWN=64 -DTM=4 -DTN=4"
#endif

// Tuning switches (manifest parameters with defaults; see docs/tuning/matmul.md):
// GROUP: tile rows handed out together (1 = plain blockIdx order), as in rung 10.
// EARLY_BAR: 0 = store the next tile and barrier after all BK k-steps; 1 = do it before the
// last k-step's multiply-adds, so warps leave the barrier with 128 independent FMAs to issue;
// 2 = as 1, and also load the next tile's first fragments right after the barrier.
// SCALAR_C: 0 = write C with float4 stores; 1 = one float per store (see the register banks above).
// FMA_ORDER: order of one k-step's multiply-adds (see outer_product).
// ASYNC: 0 = the next tile travels global -> registers -> shared; 1 = cp.async copies it straight
// into a ring of STAGES tiles, issued STAGES - 1 tiles ahead (always with the EARLY_BAR = 2 order).
#ifndef GROUP
#define GROUP 1
#endif
#ifndef EARLY_BAR
#define EARLY_BAR 0
#endif
#ifndef SCALAR_C
#define SCALAR_C 0
#endif
#ifndef FMA_ORDER
#define FMA_ORDER 0
#endif
#ifndef ASYNC
#define ASYNC 0
#endif
#ifndef STAGES
#define STAGES 2
#endif

#define LANES_M 4
#define LANES_N 8
#define WSUBM (LANES_M * TM)
#define WSUBN (LANES_N * TN)
#define WMITER (WM / WSUBM)
#define WNITER (WN / WSUBN)
#define NUM_THREADS (32 * (BM / WM) * (BN / WN))
#define A_PAD 4
#define A_LOADS ((BM * BK / 4 + NUM_THREADS - 1) / NUM_THREADS)  // float4 loads of A per thread per tile
#define B_LOADS ((BK * BN / 4 + NUM_THREADS - 1) / NUM_THREADS)  // ...and of B
#define A_ELEMS ((BM * BK + NUM_THREADS - 1) / NUM_THREADS)      // 4-byte copies of A per thread (ASYNC)
#define B_ELEMS ((BK * BN + NUM_THREADS - 1) / NUM_THREADS)      // ...and of B at edges (ASYNC)
// Ask for two resident blocks per SM (at most 128 registers per thread at 256 threads) when the
// accumulators plus the in-flight loads leave room for it, so that while one block waits at its
// barrier the other keeps the FMA units busy. Larger shapes get no cap: capping them would spill.
#define MIN_BLOCKS ((NUM_THREADS <= 256 && WM * WN / 32 + 4 * (A_LOADS + B_LOADS) <= 48) ? 2 : 1)

static_assert(BM % WM == 0 && BN % WN == 0, "the block tile must split into whole warp tiles");
static_assert(WM % WSUBM == 0 && WN % WSUBN == 0, "the warp tile must split into whole (4*TM) x (8*TN) sub-tiles");
static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "TM, TN and BK must be multiples of 4 (float4 accesses)");
static_assert(NUM_THREADS >= 32 && NUM_THREADS <= 1024,
              "32 * (BM / WM) * (BN / WN) threads must be between 32 and 1024");
static_assert(WM * WN / 32 <= 128, "at most 128 accumulators per thread (WM * WN / 32); more would spill");
static_assert(EARLY_BAR >= 0 && EARLY_BAR <= 2 && GROUP >= 1, "EARLY_BAR is 0, 1 or 2; GROUP at least 1");
static_assert(BK % 2 == 0, "fragments alternate between two register sets by k-step: BK must be even");
static_assert(ASYNC == 0 || ASYNC == 1, "ASYNC is 0 or 1");
static_assert((SCALAR_C == 0 || SCALAR_C == 1) && FMA_ORDER >= 0 && FMA_ORDER <= 2,
              "SCALAR_C is 0 or 1; FMA_ORDER 0, 1 or 2");
static_assert(NUM_THREADS % BK == 0 && NUM_THREADS % (BN / 4) == 0,
              "a pass of the block's threads must cover whole rows of the A and B tiles");
static_assert(ASYNC ? (STAGES >= 2 && STAGES <= 4) : STAGES == 2,
              "STAGES is 2 with register staging, 2 to 4 with ASYNC = 1");
static_assert(!ASYNC || EARLY_BAR == 2, "ASYNC = 1 always hands over early: set EARLY_BAR = 2");
static_assert(STAGES * (BK * (BM + A_PAD) + BK * BN) * 4 <= 48 * 1024,
              "STAGES stages of static shared memory must fit in 48 KB");

// Global -> registers for the K-tile at k0.
// Interior blocks (kInterior): rows are 16-byte aligned and the tile lies inside A and B along M
// and N, so each thread issues plain float4 loads; the only check left is the K tail (a float4 is
// wholly inside or wholly past K because K is a multiple of 4). Edge blocks: guarded scalar
// loads, with zeros outside the matrices.
template <bool kInterior>
__device__ __forceinline__ void load_global(float4 (&a)[A_LOADS], float4 (&b)[B_LOADS], const float* A, const float* B,
                                            int M, int N, int K, int m0, int n0, int k0) {
    const int tid = threadIdx.x;
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        const int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
        const bool in_tile = (BM * BK / 4) % NUM_THREADS == 0 || idx < BM * BK / 4;
        if (kInterior) {
            a[i] = (in_tile && k0 + c < K) ? *reinterpret_cast<const float4*>(&A[(size_t)(m0 + r) * K + k0 + c]) : zero;
        } else {
            const float* src = A + (size_t)(m0 + r) * K + k0 + c;
            const int left = (in_tile && m0 + r < M) ? K - (k0 + c) : 0;  // valid elements from src on
            a[i].x = left > 0 ? src[0] : 0.0f;
            a[i].y = left > 1 ? src[1] : 0.0f;
            a[i].z = left > 2 ? src[2] : 0.0f;
            a[i].w = left > 3 ? src[3] : 0.0f;
        }
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        const int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
        const bool in_tile = (BK * BN / 4) % NUM_THREADS == 0 || idx < BK * BN / 4;
        if (kInterior) {
            b[i] = (in_tile && k0 + r < K) ? *reinterpret_cast<const float4*>(&B[(size_t)(k0 + r) * N + n0 + c]) : zero;
        } else {
            const float* src = B + (size_t)(k0 + r) * N + n0 + c;
            const int left = (in_tile && k0 + r < K) ? N - (n0 + c) : 0;
            b[i].x = left > 0 ? src[0] : 0.0f;
            b[i].y = left > 1 ? src[1] : 0.0f;
            b[i].z = left > 2 ? src[2] : 0.0f;
            b[i].w = left > 3 ? src[3] : 0.0f;
        }
    }
}

// Registers -> one shared-memory stage (A transposed to As[k][m]).
__device__ __forceinline__ void store_shared(float (*As)[BM + A_PAD], float (*Bs)[BN], const float4 (&a)[A_LOADS],
                                             const float4 (&b)[B_LOADS]) {
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        if ((BM * BK / 4) % NUM_THREADS == 0 || idx < BM * BK / 4) {
            const int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
            As[c + 0][r] = a[i].x;
            As[c + 1][r] = a[i].y;
            As[c + 2][r] = a[i].z;
            As[c + 3][r] = a[i].w;
        }
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) {
        const int idx = i * NUM_THREADS + tid;
        if ((BK * BN / 4) % NUM_THREADS == 0 || idx < BK * BN / 4) {
            const int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Bs[r][c]) = b[i];
        }
    }
}

// ASYNC = 1: global -> shared without registers. cp.async with a source size of 0 writes zeros,
// which covers the K tail, the matrix edges and the copies issued past the last tile.
__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async_4(unsigned dst, const float* src, bool ok) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 4 : 0));
}
__device__ __forceinline__ void cp_async_16(unsigned dst, const float* src, bool ok) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Issue the copies of the K-tile at k0 into one stage. A goes one float per copy, straight to its
// transposed place As[k][m]: a 16-byte copy cannot scatter. Consecutive threads walk along K, so
// a warp reads whole 32-byte sectors (BK = 8: four rows of A) and writes 32 different banks.
// B is a plain copy: 16 bytes per copy inside the matrix, one float per copy at the edges.
template <bool kInterior>
__device__ __forceinline__ void copy_tile_async(float (*As)[BM + A_PAD], float (*Bs)[BN], const float* A,
                                                const float* B, int M, int N, int K, int m0, int n0, int k0) {
    // Copy i of this thread covers element idx = i * NUM_THREADS + tid of the tile. Each copy's
    // address is one step of a row stride from this thread's first, so the loop costs one
    // multiply-add per copy and the compiler keeps no per-copy pointers in registers.
    const int tid = threadIdx.x;
    constexpr int kRowsA = NUM_THREADS / BK;  // rows of A covered by one pass of the block
    const int ca = tid % BK;                  // every copy of this thread has the same k
    const float* a_src = A + (size_t)(m0 + tid / BK) * K + k0 + ca;
#pragma unroll
    for (int i = 0; i < A_ELEMS; ++i) {
        const int r = i * kRowsA + tid / BK;
        if ((BM * BK) % NUM_THREADS == 0 || r < BM) {
            const bool ok = k0 + ca < K && (kInterior || m0 + r < M);
            cp_async_4(smem_addr(&As[ca][r]), ok ? a_src + (size_t)i * kRowsA * K : A, ok);
        }
    }
    if (kInterior) {
        constexpr int kRowsB = NUM_THREADS / (BN / 4);  // whole rows: 32 * BN / WN threads, WN <= 128
        const int rb = (tid / (BN / 4)), cb = (tid % (BN / 4)) * 4;
        const float* b_src = B + (size_t)(k0 + rb) * N + n0 + cb;
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            const int r = i * kRowsB + rb;
            if ((BK * BN / 4) % NUM_THREADS == 0 || r < BK) {
                const bool ok = k0 + r < K;
                cp_async_16(smem_addr(&Bs[r][cb]), ok ? b_src + (size_t)i * kRowsB * N : B, ok);
            }
        }
    } else {  // edges are rare: plain index arithmetic, one float per copy
#pragma unroll
        for (int i = 0; i < B_ELEMS; ++i) {
            const int idx = i * NUM_THREADS + tid;
            if ((BK * BN) % NUM_THREADS == 0 || idx < BK * BN) {
                const int r = idx / BN, c = idx % BN;
                const bool ok = k0 + r < K && n0 + c < N;
                cp_async_4(smem_addr(&Bs[r][c]), ok ? B + (size_t)(k0 + r) * N + n0 + c : B, ok);
            }
        }
    }
}

// One k-step: acc += a (column) x b (row). FMA_ORDER only reorders the same multiply-adds (each
// accumulator still sums its products in k order, so the result is bit for bit the same); it
// changes which operand a run of consecutive FMAs shares and so how ptxas places and reuses
// registers: 0 = row by row, 1 = row by row with every other row reversed, 2 = column by column.
__device__ __forceinline__ void outer_product(float (&acc)[WMITER * TM][WNITER * TN], const float (&af)[WMITER * TM],
                                              const float (&bf)[WNITER * TN]) {
    constexpr int R = WMITER * TM, C = WNITER * TN;
    if (FMA_ORDER == 2) {
#pragma unroll
        for (int j = 0; j < C; ++j)
#pragma unroll
            for (int i = 0; i < R; ++i) acc[i][j] += af[i] * bf[j];
    } else {
#pragma unroll
        for (int i = 0; i < R; ++i)
#pragma unroll
            for (int jj = 0; jj < C; ++jj) {
                const int j = (FMA_ORDER == 1 && (i & 1)) ? C - 1 - jj : jj;
                acc[i][j] += af[i] * bf[j];
            }
    }
}

// The whole block's work; kInterior selects the unchecked copy of the loop (see load_global).
template <bool kInterior>
__device__ __forceinline__ void block_tile(float (*As)[BK][BM + A_PAD], float (*Bs)[BK][BN], float* C, const float* A,
                                           const float* B, int M, int N, int K, int m0, int n0) {
    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int warp_m = (warp / (BN / WN)) * WM;
    const int warp_n = (warp % (BN / WN)) * WN;
    const int lane_m = (lane / LANES_N) * TM;
    const int lane_n = (lane % LANES_N) * TN;

    const int num_tiles = (K + BK - 1) / BK;

    float acc[WMITER * TM][WNITER * TN] = {};
    float a_frag[2][WMITER * TM], b_frag[2][WNITER * TN];  // [k % 2]: fragments of two k-steps
    float4 a_next[A_LOADS], b_next[B_LOADS];

    // One k-step's fragments: each lane's TM rows of A (per warp sub-tile) and TN columns of B.
    auto load_frags = [&](float(&af)[WMITER * TM], float(&bf)[WNITER * TN], const float(*As_k)[BM + A_PAD],
                          const float(*Bs_k)[BN], int k) {
#pragma unroll
        for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4*>(&af[wm * TM + i]) =
                    *reinterpret_cast<const float4*>(&As_k[k][warp_m + wm * WSUBM + lane_m + i]);
#pragma unroll
        for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4*>(&bf[wn * TN + j]) =
                    *reinterpret_cast<const float4*>(&Bs_k[k][warp_n + wn * WSUBN + lane_n + j]);
    };

    if (!ASYNC) {
        load_global<kInterior>(a_next, b_next, A, B, M, N, K, m0, n0, 0);
        store_shared(As[0], Bs[0], a_next, b_next);
        __syncthreads();
        if (EARLY_BAR == 2) load_frags(a_frag[0], b_frag[0], As[0], Bs[0], 0);

        for (int t = 0; t < num_tiles; ++t) {
            const int cur = t & 1;
            // Issue the next tile's loads now; nothing waits for them until store_shared below.
            // No `if (t + 1 < num_tiles)` around them: past the last tile the loads are predicated
            // off (zeros), and a branch here lets the compiler merge this block with the one of
            // store_shared below, which moves the loads after the math and exposes their latency.
            load_global<kInterior>(a_next, b_next, A, B, M, N, K, m0, n0, (t + 1) * BK);

#pragma unroll
            for (int k = 0; k < BK; ++k) {
                const int f = k & 1;
                if (!(EARLY_BAR == 2 && k == 0)) load_frags(a_frag[f], b_frag[f], As[cur], Bs[cur], k);
                if (EARLY_BAR != 0 && k == BK - 1) {
                    // This thread's reads of buffer cur are all issued (the fragments above), so the
                    // hand-over can happen before the last k-step's math; see the note below.
                    store_shared(As[cur ^ 1], Bs[cur ^ 1], a_next, b_next);
                    __syncthreads();
                    if (EARLY_BAR == 2) load_frags(a_frag[0], b_frag[0], As[cur ^ 1], Bs[cur ^ 1], 0);
                }
                outer_product(acc, a_frag[f], b_frag[f]);
            }

            // Writing buffer cur^1 is safe without a barrier before it: its last readers ran in step
            // t-1, and every thread passed the barrier of step t-1 after issuing those reads. (After
            // the last tile this writes zeros that nobody reads.)
            if (EARLY_BAR == 0) {
                store_shared(As[cur ^ 1], Bs[cur ^ 1], a_next, b_next);
                __syncthreads();  // buffer cur^1 is complete before step t+1 reads it
            }
        }
    } else {
        // Prologue: the first STAGES - 1 tiles in flight, one commit group each.
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            copy_tile_async<kInterior>(As[s], Bs[s], A, B, M, N, K, m0, n0, s * BK);
            cp_async_commit();
        }
        cp_async_wait<STAGES - 2>();  // tile 0 has landed (this thread's copies) ...
        __syncthreads();              // ... and everybody's
        load_frags(a_frag[0], b_frag[0], As[0], Bs[0], 0);

        for (int t = 0; t < num_tiles; ++t) {
            const int cur = t % STAGES;
            // Refill the stage that tile t-1 used: every thread issued its last reads of it before
            // the barrier at the end of tile t-1, and has passed that barrier.
            const int fill = (t + STAGES - 1) % STAGES;
            copy_tile_async<kInterior>(As[fill], Bs[fill], A, B, M, N, K, m0, n0, (t + STAGES - 1) * BK);
            cp_async_commit();
#pragma unroll
            for (int k = 0; k < BK; ++k) {
                const int f = k & 1;
                if (k > 0) load_frags(a_frag[f], b_frag[f], As[cur], Bs[cur], k);
                if (k == BK - 1) {
                    // Tile t+1 must be complete: at most STAGES - 2 younger groups may still fly.
                    cp_async_wait<STAGES - 2>();
                    __syncthreads();
                    const int nxt = (t + 1) % STAGES;
                    load_frags(a_frag[0], b_frag[0], As[nxt], Bs[nxt], 0);
                }
                outer_product(acc, a_frag[f], b_frag[f]);
            }
        }
        cp_async_wait<0>();  // no copy may still target shared memory when the block exits
    }

#pragma unroll
    for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = m0 + warp_m + wm * WSUBM + lane_m + i;
#pragma unroll
            for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    const int col = n0 + warp_n + wn * WSUBN + lane_n + j;
                    const float* v = &acc[wm * TM + i][wn * TN + j];
                    if (kInterior && !SCALAR_C) {
                        *reinterpret_cast<float4*>(&C[(size_t)row * N + col]) = make_float4(v[0], v[1], v[2], v[3]);
                    } else if (kInterior) {
#pragma unroll
                        for (int e = 0; e < 4; ++e) C[(size_t)row * N + col + e] = v[e];
                    } else if (row < M) {
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            if (col + e < N) C[(size_t)row * N + col + e] = v[e];
                    }
                }
        }
}

extern "C" __global__ void __launch_bounds__(NUM_THREADS, MIN_BLOCKS)
    matmul_double_buffer(float* C, const float* A, const float* B, int M, int N, int K) {
    __shared__ __align__(16) float As[STAGES][BK][BM + A_PAD];
    __shared__ __align__(16) float Bs[STAGES][BK][BN];

    // Tile order: GROUP tile rows at a time (see rung 10's tile_origin), x fastest inside.
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int id = blockIdx.y * tiles_n + blockIdx.x;
    const int first_m = (id / (GROUP * tiles_n)) * GROUP;
    const int rows = min(tiles_m - first_m, GROUP);  // the last group may be shorter
    const int in_group = id % (GROUP * tiles_n);
    const int m0 = (first_m + in_group % rows) * BM;
    const int n0 = (in_group / rows) * BN;
    // float4 access needs 16-byte aligned rows: K and N multiples of 4, aligned base pointers.
    const bool aligned =
        (K % 4 == 0) && (N % 4 == 0) &&
        ((reinterpret_cast<size_t>(A) | reinterpret_cast<size_t>(B) | reinterpret_cast<size_t>(C)) % 16 == 0);
    if (aligned && m0 + BM <= M && n0 + BN <= N)  // uniform across the block: no divergence
        block_tile<true>(As, Bs, C, A, B, M, N, K, m0, n0);
    else
        block_tile<false>(As, Bs, C, A, B, M, N, K, m0, n0);
}
