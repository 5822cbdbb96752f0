// Rung 7 - Softmax under the tensor cores: intra-warpgroup pipelining and ping-pong warpgroups.
// This rung is rung 6 rescheduled (same products, masks and softmax): the copy is the lesson, diff it against 06.
//
// What changes from rung 6: the same producer, tiles, wgmmas and online softmax, scheduled so
// that the exponentials (the MUFU unit: 16 ex2 per clock per SM, 1,024 clocks per 128 x 128 tile
// of S, as long as the d = 64 tile's two GEMMs take at full tensor rate) run while the tensor
// cores multiply, instead of between their turns.
//  1. Intra-warpgroup pipelining. Rung 6 ran, per key tile j: S_j = Q K_j^T, wait, softmax,
//     O += P_j V_j, wait. Here a warpgroup issues S_j = Q K_j^T and O += P_{j-1} V_{j-1} back
//     to back, then computes the softmax of S_j while the P V product is still running: the
//     exponentials of tile j overlap the second GEMM of tile j - 1. Only the rounding of P_j
//     (whose registers P V reads as P_{j-1}) waits for it; the rescale of O by tile j's factor
//     happens in the next iteration, while S_{j+1} runs, just before O += P_j V_j is issued
//     (skipped when no row of the thread found a larger maximum). Costs S's registers a second
//     time: S_j (fp32) lives beside P_{j-1} and O.
//  2. Ping-pong (PINGPONG = 1). The two consumer warpgroups take turns to issue their GEMMs,
//     through two named barriers: warpgroup 0 issues its batch, then lets warpgroup 1 issue its
//     own, and so on; each does its softmax while the other's batch occupies the tensor cores.
//     Without it both tend to reach their GEMMs, and then their softmaxes, at the same time.
//  3. Persistent blocks (PERSISTENT = 1): one block per SM walks the work items (128 query rows
//     of one head each). Q gets its own `qempty` barrier, so the producer loads the next item's
//     Q and first K/V tiles while the consumers still finish and store the current one, instead
//     of a new block starting its pipeline from empty. Causal problems keep one block per item
//     (the manifest's grid): their items range from 1 to N / 128 key tiles, and the hardware's
//     block scheduler, which hands the next item to the first free SM, balances them better
//     than a fixed round-robin (measured: 2-3% faster).
//  4. K and V released separately: each stage has a `kempty` and a `vempty` barrier, and the
//     producer loads in the consumers' order (K_0, then K_j before V_(j-1)). A K slot is
//     refilled as soon as S has read it instead of after the P V product of the same tile, so
//     the copy engine runs more than a tile ahead with the same shared memory.
// Why it should be faster: in rung 6 the tensor cores idle while both warpgroups exponentiate;
// here one warpgroup's GEMMs cover the other's softmax, and each warpgroup's PV covers part of
// its own next softmax.
// What to see (H100, 2026-11-24 07:41 UTC, B = 8, H = 16, N = 4096, same call as PyTorch's
// SDPA): 447 TFLOP/s at d = 64 and 591 at d = 128 (causal 413 and 541), 0.91-0.95x cuDNN (486,
// 639; causal 435, 593); rung 6: 362 and 522. Without ping-pong 3-14% slower; with two stages
// as fast as with three (the separate K release is worth a stage). cuDNN itself moves 3-6%
// from call to call (669 at d = 128 in the call before): docs/tuning/attention.md has every
// version and the spread.
// Causal tiles wholly after a warpgroup's rows are no longer skipped by it (both warpgroups
// must take the same number of turns); they are masked like the diagonal ones (BN = 128 =
// BM: that happens only with BN = 64, at most once per block).
// Layout, edges and the head-dimension entries: as rung 6.
// What it needs: sm_90a only (Hopper: wgmma, setmaxnreg, TMA bulk tensor copies and mbarrier
// transaction counts are Hopper features); bf16 data.

#include <cuda_bf16.h>

#include "06_wgmma_ops.cuh"  // wgmma forms, mbarriers, TMA, setmaxnreg, named barriers

#if !defined(BN) || !defined(STAGES) || !defined(PINGPONG)
#error "BN, STAGES and PINGPONG must be defined, e.g. -DBN=128 -DSTAGES=2 -DPINGPONG=1"
#endif

#define BM 128                 // query rows per block: two consumer warpgroups of 64
#define NUM_CONSUMERS 2        // consumer warpgroups
#define NUM_THREADS (128 * 3)  // + the producer warpgroup
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232  // 168 at launch; the producer frees 128 x 128, each consumer takes 64 x 128
#define NEG_INF_F __int_as_float(0xff800000)
#define LN2 0.6931471805599453f
static_assert(BN == 64 || BN == 128, "BN must be 64 or 128 (the N of the S = Q K^T wgmma)");
static_assert(STAGES >= 2, "at least two K/V stages");

template <int D>
struct Layout {
    static constexpr int kHalves = D / 64;            // 128-byte (64-column) halves per row
    static constexpr int kQBytes = BM * D * 2;        // Q tile: kHalves boxes of BM x 64
    static constexpr int kKVBytes = BN * D * 2;       // K or V tile: kHalves boxes of BN x 64
    static constexpr int kStageBytes = 2 * kKVBytes;  // K then V
    static constexpr int kBarOffset = kQBytes + STAGES * kStageBytes;
};

template <int D>
struct Shared {
    unsigned q;    // Q tile (shared address)
    unsigned kv;   // STAGES x (K tile, V tile)
    unsigned bar;  // qfull, STAGES each of kfull, vfull, kempty, then qempty, STAGES vempty
    __device__ unsigned k(int s) const { return kv + s * Layout<D>::kStageBytes; }
    __device__ unsigned v(int s) const { return k(s) + Layout<D>::kKVBytes; }
    __device__ unsigned qfull() const { return bar; }
    __device__ unsigned kfull(int s) const { return bar + 8 * (1 + s); }
    __device__ unsigned vfull(int s) const { return bar + 8 * (1 + STAGES + s); }
    __device__ unsigned kempty(int s) const { return bar + 8 * (1 + 2 * STAGES + s); }  // S read this K tile
    __device__ unsigned qempty() const { return bar + 8 * (1 + 3 * STAGES); }           // the Q tile may be refilled
    __device__ unsigned vempty(int s) const { return bar + 8 * (2 + 3 * STAGES + s); }  // P V read this V tile
};

using Ring = StageRing<STAGES>;  // kl_tma.cuh

// Work item t (0 .. cdiv(N, BM) * B*H - 1) -> query block and head. Consecutive items are the
// query blocks of one head, so the blocks running at once share K and V in L2; causal: the
// heaviest blocks of each head first.
struct Work {
    int qb, n_tiles;  // query block, key tiles it walks (all, or up to its last row when causal)
    size_t head_row;  // first row of its head in the [B*H*N, d] matrix
    __device__ Work(int t, int N, int causal) {
        const int blocks = (N + BM - 1) / BM;
        qb = causal ? blocks - 1 - t % blocks : t % blocks;
        head_row = (size_t)(t / blocks) * N;
        const int last_key = causal ? min(N, (qb + 1) * BM) : N;
        n_tiles = (last_key + BN - 1) / BN;
    }
};

// ---------------------------------------------------------------------------------------------
// Producer: one thread issues every copy of the block.
// ---------------------------------------------------------------------------------------------
// One K or V tile into the next slot of its ring, once the consumers have released the slot.
template <int D>
__device__ __forceinline__ void produce_tile(const TmaDescriptor* map, unsigned dst, unsigned full, unsigned empty,
                                             unsigned parity, int row) {
    using L = Layout<D>;
    mbar_wait(empty, parity ^ 1);
    mbar_arrive_expect_bytes(full, L::kKVBytes);
#pragma unroll
    for (int h = 0; h < L::kHalves; ++h) tma_load_2d(dst + h * BN * 128, map, h * 64, row, full);
}

// The K and V tiles of one work item, continuing the rings, in the order the consumers read
// them: K_0, then K_j before V_(j-1), then the last V. K and V have their own ring positions
// and release barriers: a K slot is refilled as soon as S has read it, without waiting for the
// P V product of the same tile.
template <int D>
__device__ __forceinline__ void produce_kv(const Shared<D>& sh, const TmaDescriptor* mk, const TmaDescriptor* mv,
                                           int head_row, int n_tiles, Ring& kring, Ring& vring) {
    for (int kb = 0; kb <= n_tiles; ++kb) {
        if (kb < n_tiles) {
            produce_tile<D>(mk, sh.k(kring.stage), sh.kfull(kring.stage), sh.kempty(kring.stage), kring.parity,
                            head_row + kb * BN);
            kring.advance();
        }
        if (kb > 0) {
            produce_tile<D>(mv, sh.v(vring.stage), sh.vfull(vring.stage), sh.vempty(vring.stage), vring.parity,
                            head_row + (kb - 1) * BN);
            vring.advance();
        }
    }
}

// With PERSISTENT = 1 the block walks work items t = blockIdx.x, + gridDim.x, ...: the Q tile
// of the next item is loaded as soon as both consumers have issued their last S = Q K^T of the
// current one, and its first K/V tiles follow while they still finish and store the current.
template <int D>
__device__ __forceinline__ void produce(const Shared<D>& sh, const TmaDescriptor* mq, const TmaDescriptor* mk,
                                        const TmaDescriptor* mv, int N, int causal, int items) {
    using L = Layout<D>;
    Ring kring, vring;
    unsigned q_parity = 0;
    for (int t = blockIdx.x; t < items; t += gridDim.x, q_parity ^= 1) {
        const Work w(t, N, causal);
        mbar_wait(sh.qempty(), q_parity ^ 1);
        mbar_arrive_expect_bytes(sh.qfull(), L::kQBytes);
#pragma unroll
        for (int h = 0; h < L::kHalves; ++h)
            tma_load_2d(sh.q + h * BM * 128, mq, h * 64, (int)w.head_row + w.qb * BM, sh.qfull());
        produce_kv<D>(sh, mk, mv, (int)w.head_row, w.n_tiles, kring, vring);
    }
}

// ---------------------------------------------------------------------------------------------
// Consumer pieces. Accumulator layout (kl_wgmma.cuh): thread (warp w, lane l) of a warpgroup
// holds rows w*16 + l/4 (+8 for h = 1) and, in 8-column slice j, columns 8j + 2(l%4) (+1), in
// d[4j + 2h], d[4j + 2h + 1]. A row is spread over the 4 lanes of a quad.
// ---------------------------------------------------------------------------------------------

// S = Q K^T for this warpgroup's 64 rows and the stage's BN keys (issued, not waited for).
template <int D>
__device__ __forceinline__ void issue_qk(float (&s)[BN / 2], unsigned q_rows, unsigned k_tile) {
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        const int h = kk / 4, c = (kk % 4) * 32;  // 64-column half, byte step inside a 128-byte row
        wgmma_ss_kk(s, make_desc(q_rows + h * BM * 128 + c, 16, 1024), make_desc(k_tile + h * BN * 128 + c, 16, 1024),
                    kk > 0);
    }
}

// O (+)= P V: P's k16 slice kk is S's 8-column slices 2kk and 2kk + 1; V rows 16kk .. 16kk + 15.
template <int D>
__device__ __forceinline__ void issue_pv(float (&o)[D / 2], const unsigned (&p)[BN / 16][4], unsigned v_tile,
                                         bool accumulate) {
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk)
        wgmma_rs(o, p[kk], make_desc(v_tile + kk * 16 * 128, BN * 128, 1024), accumulate || kk > 0);
}

// Masks keys >= N and, when causal, keys after the row, to -inf.
__device__ __forceinline__ void mask_scores(float (&s)[BN / 2], int key0, int row0, int N, int causal) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int key = key0 + 8 * j + 2 * (lane % 4) + (e & 1), row = row0 + (e >> 1) * 8;
            if (key >= N || (causal && key > row)) s[4 * j + e] = NEG_INF_F;
        }
}

// Online softmax of one tile: updates the row maxima m (raw scores) and this thread's partial
// sums l, rescales o, and leaves P (bf16, operand layout) in p.

// Online softmax of one tile, in place: s becomes exp2 of the scaled scores minus the new row
// maximum; m and this thread's partial sums l are updated; alpha (per row half) is the factor
// O must be multiplied by before the next P V accumulates into it.
__device__ __forceinline__ void softmax_in_place(float (&s)[BN / 2], float (&m)[2], float (&l)[2], float (&alpha)[2],
                                                 float scale_log2) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float mx = m[h];
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) mx = fmaxf(mx, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float base = mx == NEG_INF_F ? 0.f : mx * scale_log2;  // no visible key yet: exp2 gives 0, not NaN
        alpha[h] = fast_exp2(m[h] * scale_log2 - base);
        m[h] = mx;
        float sum = 0.f;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
            s[4 * j + 2 * h] = fast_exp2(fmaf(s[4 * j + 2 * h], scale_log2, -base));
            s[4 * j + 2 * h + 1] = fast_exp2(fmaf(s[4 * j + 2 * h + 1], scale_log2, -base));
            sum += s[4 * j + 2 * h] + s[4 * j + 2 * h + 1];
        }
        l[h] = l[h] * alpha[h] + sum;
    }
}

// Skipped when neither of the thread's rows found a larger maximum (the factors are exactly 1):
// once the maxima settle, most tiles; a warp skips when all its lanes do.
template <int D>
__device__ __forceinline__ void rescale(float (&o)[D / 2], const float (&alpha)[2]) {
    if (alpha[0] == 1.f && alpha[1] == 1.f) return;
#pragma unroll
    for (int j = 0; j < D / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) o[4 * j + e] *= alpha[e >> 1];
}

// P = s rounded to bf16, in the A-operand layout (k16 slice kk = S's 8-column slices 2kk, 2kk + 1).
__device__ __forceinline__ void round_p(const float (&s)[BN / 2], unsigned (&p)[BN / 16][4]) {
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) p[kk][r] = pack_bf16x2(s[8 * kk + 2 * r], s[8 * kk + 2 * r + 1]);
}

// Divides by the row sums once and stores bf16 O and the fp32 lse of rows < N.
template <int D>
__device__ __forceinline__ void store_rows(__nv_bfloat16* O, float* lse, const float (&o)[D / 2], const float (&m)[2],
                                           const float (&l)[2], size_t head_row, int row0, int N, float scale) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float sum = l[h];
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        const int row = row0 + 8 * h;
        if (row >= N) continue;
        const float inv = 1.f / sum;
        unsigned* out = reinterpret_cast<unsigned*>(O + (head_row + row) * D + 2 * (lane % 4));
#pragma unroll
        for (int j = 0; j < D / 8; ++j) out[4 * j] = pack_bf16x2(o[4 * j + 2 * h] * inv, o[4 * j + 2 * h + 1] * inv);
        if (lane % 4 == 0) lse[head_row + row] = m[h] * scale + log2f(sum) * LN2;
    }
}

// Ping-pong turns: named barrier 1 + cg is "warpgroup cg may issue its GEMMs". A warpgroup waits
// on its own (bar.sync, 128 threads) for the other's release (bar.arrive, 128 threads).
__device__ __forceinline__ void turn_begin(int cg) {
    if (PINGPONG) named_sync(1 + cg, 256);
}
__device__ __forceinline__ void turn_end(int cg, bool last) {
    if (PINGPONG && !(last && cg == 1)) named_arrive(1 + (cg ^ 1), 256);  // 0 takes no turn after 1's last
}

// Scores of tile kb: masked where keys pass N or (causal) the row.
__device__ __forceinline__ void mask_if_needed(float (&s)[BN / 2], int kb, int wg_row0, int row0, int N, int causal) {
    const int key0 = kb * BN;
    if (key0 + BN > N || (causal && key0 + BN - 1 > wg_row0)) mask_scores(s, key0, row0, N, causal);
}

// One work item for one consumer warpgroup: rows cg*64 .. cg*64 + 63 of query block w.qb.
// Iteration j issues S_j = Q K_j^T, rescales O while it runs, issues O += P_{j-1} V_{j-1},
// exponentiates S_j while P V runs, and rounds P_j once P V has finished. The ring continues across
// items; q_parity is the phase of this item's Q tile.
template <int D>
__device__ __forceinline__ void consume_item(const Shared<D>& sh, __nv_bfloat16* O, float* lse, const Work& w, int N,
                                             int causal, int cg, Ring& ring, unsigned q_parity) {
    const float scale = rsqrtf((float)D), scale_log2 = scale * 1.4426950408889634f;
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
    const int wg_row0 = w.qb * BM + cg * 64;
    const int row0 = wg_row0 + warp * 16 + lane / 4;
    const unsigned q_rows = sh.q + cg * 64 * 128;
    float s[BN / 2], o[D / 2], m[2] = {NEG_INF_F, NEG_INF_F}, l[2] = {0.f, 0.f}, alpha[2];
    unsigned p[BN / 16][4];
    if (PINGPONG && cg == 1) named_arrive(1, 256);  // warpgroup 0 takes the first turn
    mbar_wait(sh.qfull(), q_parity);

    // Tile 0: S_0 alone.
    mbar_wait(sh.kfull(ring.stage), ring.parity);
    turn_begin(cg);
    wgmma_fence();
    issue_qk<D>(s, q_rows, sh.k(ring.stage));
    wgmma_commit();
    turn_end(cg, false);
    wgmma_wait<0>();
    fence_accumulators(s);
    if (lane == 0) mbar_arrive(sh.kempty(ring.stage));
    if (w.n_tiles == 1 && lane == 0) mbar_arrive(sh.qempty());  // the last read of this Q tile is done
    mask_if_needed(s, 0, wg_row0, row0, N, causal);
    softmax_in_place(s, m, l, alpha, scale_log2);
    round_p(s, p);

    for (int kb = 1; kb < w.n_tiles; ++kb) {
        Ring prev = ring;  // tile kb - 1: its V is read now, its stage freed after
        ring.advance();
        mbar_wait(sh.kfull(ring.stage), ring.parity);
        turn_begin(cg);
        wgmma_fence();
        issue_qk<D>(s, q_rows, sh.k(ring.stage));
        wgmma_commit();
        // While S_kb runs: bring O to tile kb - 1's maximum (no wgmma writes O now), then P V.
        if (kb > 1) rescale<D>(o, alpha);
        mbar_wait(sh.vfull(prev.stage), prev.parity);
        wgmma_fence();
        issue_pv<D>(o, p, sh.v(prev.stage), kb > 1);
        wgmma_commit();
        turn_end(cg, false);
        wgmma_wait<1>();  // S_kb is done; P_{kb-1} V_{kb-1} may still run
        fence_accumulators(s);
        if (lane == 0) mbar_arrive(sh.kempty(ring.stage));
        if (kb == w.n_tiles - 1 && lane == 0) mbar_arrive(sh.qempty());
        mask_if_needed(s, kb, wg_row0, row0, N, causal);
        softmax_in_place(s, m, l, alpha, scale_log2);
        wgmma_wait<0>();
        fence_accumulators(o);
        if (lane == 0) mbar_arrive(sh.vempty(prev.stage));
        round_p(s, p);
    }

    // The last tile's P V.
    mbar_wait(sh.vfull(ring.stage), ring.parity);
    turn_begin(cg);
    if (w.n_tiles > 1) rescale<D>(o, alpha);
    wgmma_fence();
    issue_pv<D>(o, p, sh.v(ring.stage), w.n_tiles > 1);
    wgmma_commit();
    turn_end(cg, true);
    wgmma_wait<0>();
    fence_accumulators(o);
    if (lane == 0) mbar_arrive(sh.vempty(ring.stage));
    ring.advance();
    store_rows<D>(O, lse, o, m, l, w.head_row, row0, N, scale);
}

// ---------------------------------------------------------------------------------------------
// The kernel body. Grid: PERSISTENT ? min(SMs, items) : items, items = cdiv(N, BM) * B*H;
// 384 threads.
// ---------------------------------------------------------------------------------------------
template <int D>
__device__ __forceinline__ void flash_pingpong(__nv_bfloat16* O, float* lse, int N, int causal, int items,
                                               const TmaDescriptor* mq, const TmaDescriptor* mk,
                                               const TmaDescriptor* mv, unsigned char* smem_raw) {
    const unsigned raw = smem_addr(smem_raw);
    const unsigned base = raw + (1024 - raw % 1024) % 1024;  // the 128-byte swizzle repeats every 1 KB
    Shared<D> sh;
    sh.q = base;
    sh.kv = base + Layout<D>::kQBytes;
    sh.bar = base + Layout<D>::kBarOffset;

    if (threadIdx.x == 0) {
        mbar_init(sh.qfull(), 1);
        mbar_init(sh.qempty(), NUM_CONSUMERS * 4);  // one arrival per consumer warp
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.kfull(s), 1);
            mbar_init(sh.vfull(s), 1);
            mbar_init(sh.kempty(s), NUM_CONSUMERS * 4);
            mbar_init(sh.vempty(s), NUM_CONSUMERS * 4);
        }
        fence_mbarrier_init();
        fence_proxy_async();
    }
    __syncthreads();

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (threadIdx.x == 0) produce<D>(sh, mq, mk, mv, N, causal, items);
    } else {
        regs_increase<CONSUMER_REGS>();
        Ring ring;
        unsigned q_parity = 0;
        for (int t = blockIdx.x; t < items; t += gridDim.x, q_parity ^= 1)
            consume_item<D>(sh, O, lse, Work(t, N, causal), N, causal, wg - 1, ring, q_parity);
    }
}

// Q, K, V travel as tensor maps (their pointers are there for the engine's checks and unused);
// items = cdiv(N, 128) * B * H work items.
#define FLASH_PINGPONG_ENTRY(NAME, D)                                                                              \
    extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)                                                   \
        NAME(__nv_bfloat16* O, float* lse, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, \
             int N, int causal, int items, const __grid_constant__ TmaDescriptor mq,                               \
             const __grid_constant__ TmaDescriptor mk, const __grid_constant__ TmaDescriptor mv) {                 \
        extern __shared__ __align__(16) unsigned char smem[];                                                      \
        (void)Q;                                                                                                   \
        (void)K;                                                                                                   \
        (void)V;                                                                                                   \
        flash_pingpong<D>(O, lse, N, causal, items, &mq, &mk, &mv, smem);                                          \
    }
FLASH_PINGPONG_ENTRY(attention_flash_pingpong_d64, 64)
FLASH_PINGPONG_ENTRY(attention_flash_pingpong_d128, 128)
