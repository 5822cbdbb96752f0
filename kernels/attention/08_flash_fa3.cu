// Rung 8 - The consumers kept at the tensor cores: O leaves by the copy engine, and at d = 64 a
// third consumer warpgroup.
// This rung is rung 7 with a TMA-store epilogue and a third consumer: the copy is the lesson, diff it against 07.
//
// What changes from rung 7: the same producer, rings, wgmmas, online softmax and ping-pong, and:
//  1. The epilogue (TMA_STORE = 1). Rung 7's consumers wrote O from registers, 4 bytes per
//     thread per store (a warp store covers 8 rows x 16 bytes), and only then turned to the next
//     work item. Here each warpgroup writes its 64 rows of O, already divided by the row sums,
//     as bf16 into a shared-memory tile in the 128-byte swizzled layout, and one thread hands the
//     tile to the copy engine (`cp.async.bulk.tensor` global <- shared, a bulk group): the
//     warpgroup goes on to the next item's S = Q K^T while the copy engine writes. Before the
//     tile is reused an item later, its issuing thread waits for the copy engine to have read it
//     (`cp.async.bulk.wait_group.read`). A warpgroup whose rows run past N (the last block of a
//     head when N is not a multiple of 64) keeps rung 7's register stores: the tensor map spans
//     all heads' rows, so a box would write into the next head.
//  2. Three consumer warpgroups at d = 64 (WG64 = 3: 192 query rows per block). At d = 64 a
//     warpgroup's two products take as long (at the full tensor rate) as its exponentials, so
//     with two warpgroups the other's products barely cover one's softmax; with three, two
//     others' products do. Registers: 512 threads, the producer gives back down to 32, each
//     consumer takes 160 (S, P and O: 128 of them at BN = 128). The ping-pong turns go round
//     the three warpgroups.
//  3. A warpgroup takes only the key tiles its own rows need: none when its rows all lie past N
//     (a ragged last block), and when causal none wholly after its last row (at BM = 192 the
//     first warpgroup of a block would otherwise compute up to two fully masked tiles). For
//     those tiles it only keeps the protocol: waits for the tile, takes and passes its turn,
//     releases the stage, so the other warpgroups have the tensor cores to themselves.
// Why it should be faster: the tensor cores idle less at the two places rung 7 left them idle,
// the end of each work item (the O stores) and, at d = 64, the softmax not covered by the other
// warpgroup's products.
// What to see: level with cuDNN at d = 64 and d = 128, ahead of rung 7 at d = 64 (the third
// warpgroup); the TMA store pays at short sequences and the global store requests fall to the
// lse's; docs/tuning/attention.md, round 3, has every variant, the predictions and the figures.
// Registers: at d = 64 the compiler keeps the item loop's Q parity in 8 bytes of local memory
// (one store and one load per work item, outside the key loop, read off the SASS).
// Layout, edges and the head-dimension entries: as rungs 6 and 7; the O tile of each warpgroup
// is kHalves boxes of 64 x 64, like Q's.
// What it needs: sm_90a only (Hopper: wgmma, setmaxnreg, TMA bulk tensor copies and mbarrier
// transaction counts are Hopper features); bf16 data.

#include <cuda_bf16.h>

#include "06_wgmma_ops.cuh"  // wgmma forms, mbarriers, TMA loads, setmaxnreg, named barriers

#if !defined(BN) || !defined(STAGES) || !defined(PINGPONG) || !defined(TMA_STORE) || !defined(WG64)
#error "BN, STAGES, PINGPONG, TMA_STORE and WG64 must be defined, e.g. -DBN=128 -DSTAGES=2 -DPINGPONG=1"
#endif

#define NEG_INF_F __int_as_float(0xff800000)
#define LN2 0.6931471805599453f
#define EPILOGUE_BAR 4  // named barriers 4 + cg: one warpgroup's epilogue (1 .. 3 are the turns)
static_assert(BN == 64 || BN == 128, "BN must be 64 or 128 (the N of the S = Q K^T wgmma)");
static_assert(STAGES >= 2, "at least two K/V stages");
static_assert(WG64 == 2 || WG64 == 3, "two or three consumer warpgroups at d = 64");

// D: head dimension; NC: consumer warpgroups (64 query rows each).
template <int D, int NC>
struct Cfg {
    static constexpr int kBM = 64 * NC;               // query rows per block
    static constexpr int kHalves = D / 64;            // 128-byte (64-column) halves per row
    static constexpr int kQBytes = kBM * D * 2;       // Q tile: kHalves boxes of kBM x 64
    static constexpr int kKVBytes = BN * D * 2;       // K or V tile: kHalves boxes of BN x 64
    static constexpr int kStageBytes = 2 * kKVBytes;  // K then V
    static constexpr int kOWgBytes = 64 * D * 2;      // one warpgroup's O tile: kHalves boxes of 64 x 64
    static constexpr int kOOffset = kQBytes + STAGES * kStageBytes;
    static constexpr int kBarOffset = kOOffset + (TMA_STORE ? NC * kOWgBytes : 0);
    static constexpr int kProducerRegs = NC == 3 ? 32 : 40;
    static constexpr int kConsumerRegs = NC == 3 ? 160 : 232;  // 65,536 / 128 = 512 per thread in all
    static_assert(kProducerRegs + NC * kConsumerRegs <= 512, "register file: 64 K per SM");
};

template <int D, int NC>
struct Shared {
    unsigned q;    // Q tile (shared address)
    unsigned kv;   // STAGES x (K tile, V tile)
    unsigned o;    // NC O tiles (TMA_STORE)
    unsigned bar;  // qfull, STAGES each of kfull, vfull, kempty, then qempty, STAGES vempty
    __device__ unsigned k(int s) const { return kv + s * Cfg<D, NC>::kStageBytes; }
    __device__ unsigned v(int s) const { return k(s) + Cfg<D, NC>::kKVBytes; }
    __device__ unsigned qfull() const { return bar; }
    __device__ unsigned kfull(int s) const { return bar + 8 * (1 + s); }
    __device__ unsigned vfull(int s) const { return bar + 8 * (1 + STAGES + s); }
    __device__ unsigned kempty(int s) const { return bar + 8 * (1 + 2 * STAGES + s); }  // S read this K tile
    __device__ unsigned qempty() const { return bar + 8 * (1 + 3 * STAGES); }           // the Q tile may be refilled
    __device__ unsigned vempty(int s) const { return bar + 8 * (2 + 3 * STAGES + s); }  // P V read this V tile
};

using Ring = StageRing<STAGES>;  // kl_tma.cuh

// Work item t (0 .. cdiv(N, BM) * B*H - 1) -> query block and head, as rung 7.
template <int BM>
struct Work {
    int qb, n_tiles;  // query block, key tiles the block walks (all, or up to its last row when causal)
    size_t head_row;  // first row of its head in the [B*H*N, d] matrix
    __device__ Work(int t, int N, int causal) {
        const int blocks = (N + BM - 1) / BM;
        qb = causal ? blocks - 1 - t % blocks : t % blocks;
        head_row = (size_t)(t / blocks) * N;
        const int last_key = causal ? min(N, (qb + 1) * BM) : N;
        n_tiles = (last_key + BN - 1) / BN;
    }
    // Key tiles warpgroup cg computes: none if its rows all lie past N, up to its last row when causal.
    __device__ int tiles_of(int cg, int N, int causal) const {
        const int r0 = qb * BM + cg * 64;
        if (r0 >= N) return 0;
        return causal ? (min(N, r0 + 64) + BN - 1) / BN : n_tiles;
    }
};

// ---------------------------------------------------------------------------------------------
// Producer: one thread issues every copy of the block (as rung 7, with kBM-row Q boxes).
// ---------------------------------------------------------------------------------------------
template <int D, int NC>
__device__ __forceinline__ void produce_tile(const TmaDescriptor* map, unsigned dst, unsigned full, unsigned empty,
                                             unsigned parity, int row) {
    mbar_wait(empty, parity ^ 1);
    mbar_arrive_expect_bytes(full, Cfg<D, NC>::kKVBytes);
#pragma unroll
    for (int h = 0; h < Cfg<D, NC>::kHalves; ++h) tma_load_2d(dst + h * BN * 128, map, h * 64, row, full);
}

template <int D, int NC>
__device__ __forceinline__ void produce(const Shared<D, NC>& sh, const TmaDescriptor* mq, const TmaDescriptor* mk,
                                        const TmaDescriptor* mv, int N, int causal, int items) {
    using C = Cfg<D, NC>;
    Ring kring, vring;
    unsigned q_parity = 0;
    for (int t = blockIdx.x; t < items; t += gridDim.x, q_parity ^= 1) {
        const Work<C::kBM> w(t, N, causal);
        const int head_row = (int)w.head_row;
        mbar_wait(sh.qempty(), q_parity ^ 1);
        mbar_arrive_expect_bytes(sh.qfull(), C::kQBytes);
#pragma unroll
        for (int h = 0; h < C::kHalves; ++h)
            tma_load_2d(sh.q + h * C::kBM * 128, mq, h * 64, head_row + w.qb * C::kBM, sh.qfull());
        // K_0, then K_j before V_(j-1), then the last V: the consumers' order.
        for (int kb = 0; kb <= w.n_tiles; ++kb) {
            if (kb < w.n_tiles) {
                produce_tile<D, NC>(mk, sh.k(kring.stage), sh.kfull(kring.stage), sh.kempty(kring.stage), kring.parity,
                                    head_row + kb * BN);
                kring.advance();
            }
            if (kb > 0) {
                produce_tile<D, NC>(mv, sh.v(vring.stage), sh.vfull(vring.stage), sh.vempty(vring.stage), vring.parity,
                                    head_row + (kb - 1) * BN);
                vring.advance();
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Consumer pieces (as rung 7). Accumulator layout (kl_wgmma.cuh): thread (warp w, lane l) of a
// warpgroup holds rows w*16 + l/4 (+8 for h = 1) and, in 8-column slice j, columns 8j + 2(l%4)
// (+1), in d[4j + 2h], d[4j + 2h + 1]. A row is spread over the 4 lanes of a quad.
// ---------------------------------------------------------------------------------------------
template <int D, int BM>
__device__ __forceinline__ void issue_qk(float (&s)[BN / 2], unsigned q_rows, unsigned k_tile) {
    const unsigned long long q_desc = make_desc(q_rows, 16, 1024), k_desc = make_desc(k_tile, 16, 1024);
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
        const int h = kk / 4, c = (kk % 4) * 32;  // 64-column half, byte step inside a 128-byte row
        wgmma_ss_kk(s, desc_plus(q_desc, h * BM * 128 + c), desc_plus(k_desc, h * BN * 128 + c), kk > 0);
    }
}

template <int D>
__device__ __forceinline__ void issue_pv(float (&o)[D / 2], const unsigned (&p)[BN / 16][4], unsigned v_tile,
                                         bool accumulate) {
    const unsigned long long v_desc = make_desc(v_tile, BN * 128, 1024);
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) wgmma_rs(o, p[kk], desc_plus(v_desc, kk * 16 * 128), accumulate || kk > 0);
}

// Scores of tile kb masked to -inf where keys pass N or (causal) the row.
__device__ __forceinline__ void mask_if_needed(float (&s)[BN / 2], int kb, int wg_row0, int row0, int N, int causal) {
    const int key0 = kb * BN, lane = threadIdx.x % 32;
    if (!(key0 + BN > N || (causal && key0 + BN - 1 > wg_row0))) return;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int key = key0 + 8 * j + 2 * (lane % 4) + (e & 1), row = row0 + (e >> 1) * 8;
            if (key >= N || (causal && key > row)) s[4 * j + e] = NEG_INF_F;
        }
}

// Online softmax of one tile, in place (rung 7): s becomes exp2 of the scaled scores minus the
// new row maximum; m and the thread's partial sums l are updated; alpha is O's factor.
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

// Skipped when neither of the thread's rows found a larger maximum (the factors are exactly 1).
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

// Ping-pong turns round the NC warpgroups: named barrier 1 + cg is "warpgroup cg may issue its
// GEMMs"; each warpgroup waits on its own (bar.sync) and releases the next (bar.arrive).
template <int NC>
__device__ __forceinline__ void turn_begin(int cg) {
    if (PINGPONG) named_sync(1 + cg, 256);
}
template <int NC>
__device__ __forceinline__ void turn_end(int cg, bool last) {
    if (PINGPONG && !(last && cg == NC - 1)) named_arrive(1 + (cg + 1) % NC, 256);  // none after the last's last
}

// ---------------------------------------------------------------------------------------------
// Epilogue
// ---------------------------------------------------------------------------------------------
// (The TMA store and its bulk-group waits are kl_tma.cuh's: tma_store_2d, bulk_commit,
// bulk_wait_read<0> until the copy engine has read every committed store, bulk_wait<0> until
// it has written them out; st_shared_b32 is kl_ptx.cuh's.)

// Row sums over the quad, 1 / sum per row half, and the lse of rows < N.
__device__ __forceinline__ void finish_rows(float* lse, const float (&m)[2], const float (&l)[2], float (&inv)[2],
                                            size_t head_row, int row0, int N, float scale) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float sum = l[h];
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        sum += __shfl_xor_sync(0xffffffffu, sum, 2);
        inv[h] = 1.f / sum;
        const int row = row0 + 8 * h;
        if (row < N && lane % 4 == 0) lse[head_row + row] = m[h] * scale + log2f(sum) * LN2;
    }
}

// Rung 7's epilogue: bf16 O of rows < N straight from registers.
template <int D>
__device__ __forceinline__ void store_rows(__nv_bfloat16* O, const float (&o)[D / 2], const float (&inv)[2],
                                           size_t head_row, int row0, int N) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int row = row0 + 8 * h;
        if (row >= N) continue;
        unsigned* out = reinterpret_cast<unsigned*>(O + (head_row + row) * D + 2 * (lane % 4));
#pragma unroll
        for (int j = 0; j < D / 8; ++j)
            out[4 * j] = pack_bf16x2(o[4 * j + 2 * h] * inv[h], o[4 * j + 2 * h + 1] * inv[h]);
    }
}

// The copy engine's epilogue for a warpgroup whose 64 rows are all < N: O into the warpgroup's
// swizzled tile (16-byte chunk c of row r sits at chunk c ^ (r % 8); a warp's 8 rows then hit
// 32 different banks), then one thread stores the kHalves boxes. The tile is rewritten only
// after the copy engine has read the previous item's.
template <int D>
__device__ __forceinline__ void store_tile(unsigned tile, const TmaDescriptor* mo, const float (&o)[D / 2],
                                           const float (&inv)[2], int first_row, int cg) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
    const bool issuer = threadIdx.x % 128 == 0;
    if (issuer) bulk_wait_read<0>();
    named_sync(EPILOGUE_BAR + cg, 128);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int r = warp * 16 + lane / 4 + 8 * h;
#pragma unroll
        for (int j = 0; j < D / 8; ++j) {
            const unsigned addr = tile + (j / 8) * 64 * 128 + r * 128 + (((j % 8) ^ (r % 8)) << 4) + 4 * (lane % 4);
            st_shared_b32(addr, pack_bf16x2(o[4 * j + 2 * h] * inv[h], o[4 * j + 2 * h + 1] * inv[h]));
        }
    }
    fence_proxy_async();  // the copy engine reads what these generic stores wrote
    named_sync(EPILOGUE_BAR + cg, 128);
    if (issuer) {
#pragma unroll
        for (int h = 0; h < D / 64; ++h) tma_store_2d(mo, tile + h * 64 * 128, h * 64, first_row);
        bulk_commit();
    }
}

// ---------------------------------------------------------------------------------------------
// One work item for one consumer warpgroup
// ---------------------------------------------------------------------------------------------
struct Item {
    int head_row;                      // < 2^31: TMA coordinates are 32-bit
    int wg_row0, row0, mine, n_tiles;  // warpgroup's first row, thread's first row, its tiles, the block's
};

// Tiles 0 .. mine - 1 of the warpgroup's rows, as rung 7: iteration j issues S_j = Q K_j^T,
// rescales O while it runs, issues O += P_{j-1} V_{j-1}, exponentiates S_j while P V runs and
// rounds P_j once P V is done; then the last P V. Leaves O, m, l for the epilogue.
template <int D, int NC>
__device__ __forceinline__ void compute_tiles(const Shared<D, NC>& sh, const Item& it, float (&o)[D / 2], float (&m)[2],
                                              float (&l)[2], int N, int causal, int cg, Ring& ring) {
    const float scale_log2 = rsqrtf((float)D) * 1.4426950408889634f;
    const int lane = threadIdx.x % 32;
    const unsigned q_rows = sh.q + cg * 64 * 128;
    float s[BN / 2], alpha[2];
    unsigned p[BN / 16][4];

    mbar_wait(sh.kfull(ring.stage), ring.parity);
    turn_begin<NC>(cg);
    wgmma_fence();
    issue_qk<D, Cfg<D, NC>::kBM>(s, q_rows, sh.k(ring.stage));
    wgmma_commit();
    turn_end<NC>(cg, false);
    wgmma_wait<0>();
    fence_accumulators(s);
    if (lane == 0) mbar_arrive(sh.kempty(ring.stage));
    if (it.mine == 1 && lane == 0) mbar_arrive(sh.qempty());  // the last read of this Q tile is done
    mask_if_needed(s, 0, it.wg_row0, it.row0, N, causal);
    softmax_in_place(s, m, l, alpha, scale_log2);
    round_p(s, p);

    for (int kb = 1; kb < it.mine; ++kb) {
        Ring prev = ring;  // tile kb - 1: its V is read now, its stage freed after
        ring.advance();
        mbar_wait(sh.kfull(ring.stage), ring.parity);
        turn_begin<NC>(cg);
        wgmma_fence();
        issue_qk<D, Cfg<D, NC>::kBM>(s, q_rows, sh.k(ring.stage));
        wgmma_commit();
        if (kb > 1) rescale<D>(o, alpha);
        mbar_wait(sh.vfull(prev.stage), prev.parity);
        wgmma_fence();
        issue_pv<D>(o, p, sh.v(prev.stage), kb > 1);
        wgmma_commit();
        turn_end<NC>(cg, false);
        wgmma_wait<1>();  // S_kb is done; P_{kb-1} V_{kb-1} may still run
        fence_accumulators(s);
        if (lane == 0) mbar_arrive(sh.kempty(ring.stage));
        if (kb == it.mine - 1 && lane == 0) mbar_arrive(sh.qempty());
        mask_if_needed(s, kb, it.wg_row0, it.row0, N, causal);
        softmax_in_place(s, m, l, alpha, scale_log2);
        wgmma_wait<0>();
        fence_accumulators(o);
        if (lane == 0) mbar_arrive(sh.vempty(prev.stage));
        round_p(s, p);
    }

    mbar_wait(sh.vfull(ring.stage), ring.parity);
    turn_begin<NC>(cg);
    if (it.mine > 1) rescale<D>(o, alpha);
    wgmma_fence();
    issue_pv<D>(o, p, sh.v(ring.stage), it.mine > 1);
    wgmma_commit();
    turn_end<NC>(cg, it.mine == it.n_tiles);
    wgmma_wait<0>();
    fence_accumulators(o);
    if (lane == 0) mbar_arrive(sh.vempty(ring.stage));
    ring.advance();
}

// Tiles mine .. n_tiles - 1, which none of the warpgroup's rows need: the protocol without the
// work (wait for the tile, so the ring cannot be lapped; take the turn; release the stage).
template <int D, int NC>
__device__ __forceinline__ void pass_tiles(const Shared<D, NC>& sh, const Item& it, int cg, Ring& ring) {
    const int lane = threadIdx.x % 32;
    if (it.mine == 0) {  // the turn the last P V would have taken, and the Q tile is not needed
        turn_begin<NC>(cg);
        turn_end<NC>(cg, false);
        if (lane == 0) mbar_arrive(sh.qempty());
    }
    for (int kb = it.mine; kb < it.n_tiles; ++kb) {
        mbar_wait(sh.kfull(ring.stage), ring.parity);
        turn_begin<NC>(cg);
        turn_end<NC>(cg, kb == it.n_tiles - 1);
        if (lane == 0) mbar_arrive(sh.kempty(ring.stage));
        mbar_wait(sh.vfull(ring.stage), ring.parity);
        if (lane == 0) mbar_arrive(sh.vempty(ring.stage));
        ring.advance();
    }
}

template <int D, int NC>
__device__ __forceinline__ void consume_item(const Shared<D, NC>& sh, __nv_bfloat16* O, float* lse,
                                             const TmaDescriptor* mo, const Work<Cfg<D, NC>::kBM>& w, int N, int causal,
                                             int cg, Ring& ring, unsigned q_parity) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
    Item it;
    it.head_row = (int)w.head_row;
    it.wg_row0 = w.qb * Cfg<D, NC>::kBM + cg * 64;
    it.row0 = it.wg_row0 + warp * 16 + lane / 4;
    it.mine = w.tiles_of(cg, N, causal);
    it.n_tiles = w.n_tiles;
    if (PINGPONG && cg == NC - 1) named_arrive(1, 256);  // warpgroup 0 takes the first turn
    mbar_wait(sh.qfull(), q_parity);
    if (it.mine > 0) {
        float o[D / 2], m[2] = {NEG_INF_F, NEG_INF_F}, l[2] = {0.f, 0.f}, inv[2];
        compute_tiles<D, NC>(sh, it, o, m, l, N, causal, cg, ring);
        finish_rows(lse, m, l, inv, it.head_row, it.row0, N, rsqrtf((float)D));
        if (TMA_STORE && it.wg_row0 + 64 <= N)
            store_tile<D>(sh.o + cg * Cfg<D, NC>::kOWgBytes, mo, o, inv, it.head_row + it.wg_row0, cg);
        else
            store_rows<D>(O, o, inv, it.head_row, it.row0, N);
    }
    pass_tiles<D, NC>(sh, it, cg, ring);
}

// ---------------------------------------------------------------------------------------------
// The kernel body. Grid: PERSISTENT ? min(SMs, items) : items, items = cdiv(N, 64 NC) * B*H;
// 128 (NC + 1) threads.
// ---------------------------------------------------------------------------------------------
template <int D, int NC>
__device__ __forceinline__ void flash_fa3(__nv_bfloat16* O, float* lse, int N, int causal, int items,
                                          const TmaDescriptor* mq, const TmaDescriptor* mk, const TmaDescriptor* mv,
                                          const TmaDescriptor* mo, unsigned char* smem_raw) {
    using C = Cfg<D, NC>;
    const unsigned raw = smem_addr(smem_raw);
    const unsigned base = raw + (1024 - raw % 1024) % 1024;  // the 128-byte swizzle repeats every 1 KB
    Shared<D, NC> sh;
    sh.q = base;
    sh.kv = base + C::kQBytes;
    sh.o = base + C::kOOffset;
    sh.bar = base + C::kBarOffset;

    if (threadIdx.x == 0) {
        mbar_init(sh.qfull(), 1);
        mbar_init(sh.qempty(), NC * 4);  // one arrival per consumer warp
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(sh.kfull(s), 1);
            mbar_init(sh.vfull(s), 1);
            mbar_init(sh.kempty(s), NC * 4);
            mbar_init(sh.vempty(s), NC * 4);
        }
        fence_mbarrier_init();
        fence_proxy_async();
    }
    __syncthreads();

    const int wg = warpgroup_uniform();
    if (wg == 0) {
        regs_decrease<C::kProducerRegs>();
        if (threadIdx.x == 0) produce<D, NC>(sh, mq, mk, mv, N, causal, items);
    } else {
        regs_increase<C::kConsumerRegs>();
        Ring ring;
        unsigned q_parity = 0;
        for (int t = blockIdx.x; t < items; t += gridDim.x, q_parity ^= 1)
            consume_item<D, NC>(sh, O, lse, mo, Work<C::kBM>(t, N, causal), N, causal, wg - 1, ring, q_parity);
        if (TMA_STORE && threadIdx.x % 128 == 0) bulk_wait<0>();  // shared memory outlives the last store
    }
}

// Q, K, V and O travel as tensor maps too (the pointers are for the engine's checks; O's is
// used by the register epilogue); items = cdiv(N, 64 NC) * B * H work items.
#define FLASH_FA3_ENTRY(NAME, D, NC)                                                                                 \
    extern "C" __global__ void __launch_bounds__(128 * (NC + 1), 1) NAME(                                            \
        __nv_bfloat16* O, float* lse, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, int N, \
        int causal, int items, const __grid_constant__ TmaDescriptor mq, const __grid_constant__ TmaDescriptor mk,   \
        const __grid_constant__ TmaDescriptor mv, const __grid_constant__ TmaDescriptor mo) {                        \
        extern __shared__ __align__(16) unsigned char smem[];                                                        \
        (void)Q;                                                                                                     \
        (void)K;                                                                                                     \
        (void)V;                                                                                                     \
        flash_fa3<D, NC>(O, lse, N, causal, items, &mq, &mk, &mv, &mo, smem);                                        \
    }
FLASH_FA3_ENTRY(attention_flash_fa3_d64, 64, WG64)
FLASH_FA3_ENTRY(attention_flash_fa3_d128, 128, 2)
