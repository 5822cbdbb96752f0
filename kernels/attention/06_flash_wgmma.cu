// Rung 6 - FlashAttention on Hopper's machinery: wgmma, TMA and warp specialization.
//
// What changes from rung 4: the algorithm (one pass, online softmax in registers, P reused as
// an operand) stays; who does what, and with which instructions, changes.
//  1. wgmma instead of mma.sync. A warpgroup (4 warps, 128 threads) issues one asynchronous
//     64 x N x 16 multiply-add that reads its operands straight from shared memory: S = Q K^T
//     takes Q and K from shared memory (no ldmatrix, no operand registers), O += P V takes P
//     from registers (S's accumulator layout is already the A-fragment layout, so P is just S
//     rounded to bf16 in place) and V from shared memory. One instruction covers a 64 x 128 x 16
//     product where rung 4 needed 64 mma.sync.
//  2. TMA instead of cp.async. One thread of a producer warp issues one bulk tensor copy per
//     64-column half of a Q, K or V tile; the copy engine computes every address, zero-fills what
//     lies past the tensor and writes the 128-byte swizzle wgmma reads. Tiles arrive through a
//     ring of STAGES K/V stages: `kfull`/`vfull` mbarriers complete when their bytes have landed,
//     `empty` completes when every consumer warp has finished the wgmmas reading the stage.
//     K and V have their own barriers so S = Q K^T starts before V has arrived.
//  3. Warp specialization: a producer warpgroup only copies; two consumer warpgroups own 64 query
//     rows each (BM = 128 per block) and only wait, multiply and do the softmax. setmaxnreg moves
//     registers from the producer (down to 40) to the consumers (up to 232), which hold S
//     (BN / 2 fp32), P (BN / 4) and O (d / 2 fp32) per thread.
// Why it should be faster: wgmma runs at the H100's full tensor rate (mma.sync reaches about
// two thirds of it), reads operands without ldmatrix traffic through the registers, and the
// consumers spend no issue slots on copies or address arithmetic.
// What it does not do yet (rung 7): inside a warpgroup, QK^T, softmax and PV still run one after
// the other, so the tensor cores idle while a warpgroup exponentiates; only the other consumer
// warpgroup, scheduled by chance, can fill that gap.
// What to see: against rung 4, a small gain at d = 64 and a large one at d = 128, the floor's
// shape (the serial softmax caps d = 64 at half the tensor rate, d = 128 at two thirds), still
// behind cuDNN; the figures and the variants tried are in docs/tuning/attention.md.
//
// Layout: Q, K, V are [B, H, N, d] bf16, seen by the tensor maps as one [B*H*N, d] matrix. A tile
// may run past its head's last row into the next head (or past the tensor, zero-filled): keys
// >= N are masked to -inf, so their P is exactly 0 and the finite V rows they meet add nothing;
// query rows >= N are computed but never stored. Causal: query block i walks keys up to its last
// row; tiles crossing a warpgroup's diagonal or the end of the sequence are masked element-wise;
// tiles wholly after a warpgroup's rows are skipped by it. Blocks start heaviest first.
// d = 64 and d = 128 are two entries of one template; the manifest picks by `when`.
// What it needs: sm_90a only (Hopper: wgmma, setmaxnreg, TMA bulk tensor copies and mbarrier
// transaction counts are Hopper features); bf16 data.

#include <cuda_bf16.h>

#include "06_wgmma_ops.cuh"

#if !defined(BN) || !defined(STAGES)
#error "BN and STAGES must be defined, e.g. -DBN=128 -DSTAGES=2"
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
    unsigned bar;  // qfull, then STAGES each of kfull, vfull, empty
    __device__ unsigned k(int s) const { return kv + s * Layout<D>::kStageBytes; }
    __device__ unsigned v(int s) const { return k(s) + Layout<D>::kKVBytes; }
    __device__ unsigned qfull() const { return bar; }
    __device__ unsigned kfull(int s) const { return bar + 8 * (1 + s); }
    __device__ unsigned vfull(int s) const { return bar + 8 * (1 + STAGES + s); }
    __device__ unsigned empty(int s) const { return bar + 8 * (1 + 2 * STAGES + s); }
};

using Ring = StageRing<STAGES>;  // kl_tma.cuh

// Key tiles query block qb walks: all of them, or up to its last row when causal.
__device__ __forceinline__ int key_tiles(int qb, int N, int causal) {
    const int last_key = causal ? min(N, (qb + 1) * BM) : N;
    return (last_key + BN - 1) / BN;
}

// ---------------------------------------------------------------------------------------------
// Producer: one thread issues every copy of the block.
// ---------------------------------------------------------------------------------------------
template <int D>
__device__ __forceinline__ void produce(const Shared<D>& sh, const TmaDescriptor* mq, const TmaDescriptor* mk,
                                        const TmaDescriptor* mv, int head_row, int qb, int n_tiles) {
    using L = Layout<D>;
    mbar_arrive_expect_bytes(sh.qfull(), L::kQBytes);
#pragma unroll
    for (int h = 0; h < L::kHalves; ++h) tma_load_2d(sh.q + h * BM * 128, mq, h * 64, head_row + qb * BM, sh.qfull());
    Ring ring;
    for (int kb = 0; kb < n_tiles; ++kb) {
        mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
        const int row = head_row + kb * BN;
        mbar_arrive_expect_bytes(sh.kfull(ring.stage), L::kKVBytes);
#pragma unroll
        for (int h = 0; h < L::kHalves; ++h)
            tma_load_2d(sh.k(ring.stage) + h * BN * 128, mk, h * 64, row, sh.kfull(ring.stage));
        mbar_arrive_expect_bytes(sh.vfull(ring.stage), L::kKVBytes);
#pragma unroll
        for (int h = 0; h < L::kHalves; ++h)
            tma_load_2d(sh.v(ring.stage) + h * BN * 128, mv, h * 64, row, sh.vfull(ring.stage));
        ring.advance();
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
template <int D>
__device__ __forceinline__ void softmax_tile(float (&s)[BN / 2], float (&m)[2], float (&l)[2], float (&o)[D / 2],
                                             unsigned (&p)[BN / 16][4], float scale_log2, bool rescale) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float mx = m[h];
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) mx = fmaxf(mx, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        // No visible key yet (max -inf): subtract 0, not -inf, so exp2 gives 0, not NaN.
        const float base = mx == NEG_INF_F ? 0.f : mx * scale_log2;
        const float alpha = fast_exp2(m[h] * scale_log2 - base);
        m[h] = mx;
        float sum = 0.f;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
            s[4 * j + 2 * h] = fast_exp2(fmaf(s[4 * j + 2 * h], scale_log2, -base));
            s[4 * j + 2 * h + 1] = fast_exp2(fmaf(s[4 * j + 2 * h + 1], scale_log2, -base));
            sum += s[4 * j + 2 * h] + s[4 * j + 2 * h + 1];
        }
        l[h] = l[h] * alpha + sum;
        if (rescale) {
#pragma unroll
            for (int j = 0; j < D / 8; ++j) {
                o[4 * j + 2 * h] *= alpha;
                o[4 * j + 2 * h + 1] *= alpha;
            }
        }
    }
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

// One consumer warpgroup: rows cg*64 .. cg*64 + 63 of query block qb.
template <int D>
__device__ __forceinline__ void consume(const Shared<D>& sh, __nv_bfloat16* O, float* lse, size_t head_row, int qb,
                                        int n_tiles, int N, int causal, int cg) {
    const float scale = rsqrtf((float)D), scale_log2 = scale * 1.4426950408889634f;
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
    const int wg_row0 = qb * BM + cg * 64;            // first query row of this warpgroup
    const int row0 = wg_row0 + warp * 16 + lane / 4;  // this thread's rows: row0, row0 + 8
    const unsigned q_rows = sh.q + cg * 64 * 128;
    float s[BN / 2], o[D / 2], m[2] = {NEG_INF_F, NEG_INF_F}, l[2] = {0.f, 0.f};
    unsigned p[BN / 16][4];
    mbar_wait(sh.qfull(), 0);
    Ring ring;
    bool started = false;
    for (int kb = 0; kb < n_tiles; ++kb, ring.advance()) {
        const int key0 = kb * BN;
        if (causal && key0 > wg_row0 + 63) {  // wholly after this warpgroup's rows: nothing to do
            if (lane == 0) mbar_arrive(sh.empty(ring.stage));
            continue;
        }
        mbar_wait(sh.kfull(ring.stage), ring.parity);
        wgmma_fence();
        issue_qk<D>(s, q_rows, sh.k(ring.stage));
        wgmma_commit();
        wgmma_wait<0>();
        fence_accumulators(s);
        if (key0 + BN > N || (causal && key0 + BN - 1 > wg_row0)) mask_scores(s, key0, row0, N, causal);
        softmax_tile<D>(s, m, l, o, p, scale_log2, started);
        mbar_wait(sh.vfull(ring.stage), ring.parity);
        wgmma_fence();
        issue_pv<D>(o, p, sh.v(ring.stage), started);
        wgmma_commit();
        wgmma_wait<0>();
        fence_accumulators(o);
        if (lane == 0) mbar_arrive(sh.empty(ring.stage));
        started = true;
    }
    store_rows<D>(O, lse, o, m, l, head_row, row0, N, scale);
}

// ---------------------------------------------------------------------------------------------
// The kernel body. Grid (cdiv(N, BM), B*H), 384 threads.
// ---------------------------------------------------------------------------------------------
template <int D>
__device__ __forceinline__ void flash_wgmma(__nv_bfloat16* O, float* lse, int N, int causal, const TmaDescriptor* mq,
                                            const TmaDescriptor* mk, const TmaDescriptor* mv, unsigned char* smem_raw) {
    const unsigned raw = smem_addr(smem_raw);
    const unsigned base = raw + (1024 - raw % 1024) % 1024;  // the 128-byte swizzle repeats every 1 KB
    Shared<D> sh;
    sh.q = base;
    sh.kv = base + Layout<D>::kQBytes;
    sh.bar = base + Layout<D>::kBarOffset;
    const int qb = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;  // causal: heaviest blocks first
    const size_t head_row = (size_t)blockIdx.y * N;
    const int n_tiles = key_tiles(qb, N, causal);

    if (threadIdx.x == 0) {
        mbar_init(sh.qfull(), 1);
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.kfull(s), 1);
            mbar_init(sh.vfull(s), 1);
            mbar_init(sh.empty(s), NUM_CONSUMERS * 4);  // one arrival per consumer warp
        }
        fence_mbarrier_init();
        fence_proxy_async();
    }
    __syncthreads();

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (threadIdx.x == 0) produce<D>(sh, mq, mk, mv, (int)head_row, qb, n_tiles);
    } else {
        regs_increase<CONSUMER_REGS>();
        consume<D>(sh, O, lse, head_row, qb, n_tiles, N, causal, wg - 1);
    }
}

// Q, K, V travel as tensor maps (their pointers are there for the engine's checks and unused).
#define FLASH_WGMMA_ENTRY(NAME, D)                                                                                  \
    extern "C" __global__ void __launch_bounds__(NUM_THREADS, 1)                                                    \
        NAME(__nv_bfloat16* O, float* lse, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,  \
             int N, int causal, const __grid_constant__ TmaDescriptor mq, const __grid_constant__ TmaDescriptor mk, \
             const __grid_constant__ TmaDescriptor mv) {                                                            \
        extern __shared__ __align__(16) unsigned char smem[];                                                       \
        (void)Q;                                                                                                    \
        (void)K;                                                                                                    \
        (void)V;                                                                                                    \
        flash_wgmma<D>(O, lse, N, causal, &mq, &mk, &mv, smem);                                                     \
    }
FLASH_WGMMA_ENTRY(attention_flash_wgmma_d64, 64)
FLASH_WGMMA_ENTRY(attention_flash_wgmma_d128, 128)
