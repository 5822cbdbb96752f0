// Rung 5 - GeLU in the epilogue of the matmul ladder's fastest GEMM (paired blocks, rung 18).
//
// What changes from rung 4: the GEMM underneath. Rung 4 grew from matmul rung 12 (one block per
// SM, 128 x 192 tiles, every block fetching its own B), and its first product stayed 1.2-2%
// slower than cuBLAS's plain GEMM at 8192 x 16384 x 4096, which is the whole margin the lesson's
// line needs. Here the first product is matmul rung 18's kernel (kernels/common/kl_cluster_gemm.cuh):
//  - blocks work in pairs (a thread-block cluster of 2) on two tiles stacked along M that need the
//    same B: each block fetches half of the B tile and the copy engine multicasts it into both, so
//    W1 is read from L2 half as often;
//  - tiles are 128 x 256 (two consumer warpgroups, one m64n256k16 wgmma each per 16-deep step);
//  - the pairs walk their stacks in the grouped order with GROUP_M = 16 tile rows, which rung 18
//    measured reading a fifth less from DRAM than 8 at 4096^3 and 8192^3.
// The epilogue is rung 4's idea at rung 18's grain: each consumer writes GeLU(acc) in bf16 into
// 64 x 64 sub-tiles (8 KB, 128-byte swizzled), two buffers taking turns, and one thread per
// warpgroup hands each to a TMA store, waiting only until the store two sub-tiles back has read
// its buffer. The warpgroup then starts its next tile while the last stores drain.
// Why it is faster: per K-tile rung 18's loop is 3-4% faster than rung 4's 128 x 192 one, and
// half of W1's reads from L2 go away with the multicast. 128 x 256 tiles leave a last round that
// is nearly empty at this shape (2,048 stacks for 66 pairs); TAIL = 1 cuts the stacks left after
// the whole rounds into 64-column pieces, all of K (GeLU needs whole sums), one per pair, and the
// pairs that come free first take them from a queue (QUEUE = 1, pinned: SMs keep slightly
// different paces, so the pairs finish their whole tiles apart).
// What to see: the first product's own time (the timeline) against the unfused plan's cuBLAS
// GEMM, and the whole MLP against rung 4 and unfused; TAIL = 0 and 1; CLUSTER = 1 runs the same
// code unpaired (the multicast's worth); TANH = 16 computes GeLU's tanh for two elements with one
// packed fp16 SFU instruction (gelu.cuh), slower and less exact: the conversions cost more than
// the SFU saves.
// What it needs: sm_90a (wgmma, TMA multicast, clusters), bf16. As matmul rung 18, a first
// launch pads X and W1 when D or F is not a multiple of 8 (their rows are then not 16-byte
// aligned, which a tensor map needs); H's map needs F % 8 == 0 too, and without it the consumers
// store GeLU(acc) element by element. Its lab rung, gelu_cluster_lab, keeps the switches this
// rung pins (BM, GROUP_M, LAG, QUEUE and the measuring form STAMPS); their history, with each
// prediction and measurement, is in docs/tuning/mlp.md ("Rung 5's header").
// Error: as rung 4 (fp32 sums, one rounding of GeLU's result to bf16).

#include <cuda_bf16.h>

#include "gelu.cuh"  // the tanh-form GeLU on the SFU (this folder)

#define BK 64                   // one 128-byte swizzled row of bf16 per K-tile, as rung 18's default
#define CROWS 64                // one m64 wgmma per consumer per step
#define STREAMK 0               // GeLU is not linear: a tile's sums cannot be finished in pieces
#define PAIR_N 0                // pairs stacked along M share W1's tile (the piece path relies on it)
#include "kl_cluster_gemm.cuh"  // rung 18's pair, walk, ring and producer (kernels/common)

#define SUB_COLS 64  // a store sub-tile: 64 rows x 64 bf16 = one 128-byte swizzle row each
static_assert(BN % SUB_COLS == 0, "a consumer's columns must be whole sub-tiles");
#ifndef TANH
#error "TANH must be defined: 32 (tanh.approx.f32 per element) or 16 (tanh.approx.f16x2 per pair)"
#endif
static_assert(TANH == 32 || TANH == 16, "TANH must be 32 (one SFU tanh per element) or 16 (one per pair)");

// GeLU of one accumulator pair (two neighbouring columns), as TANH asks.
__device__ __forceinline__ __nv_bfloat162 gelu_pair(float x0, float x1) {
    float g0, g1;
    if (TANH == 16) {
        mlp_gelu2_f16_tanh(x0, x1, g0, g1);
    } else {
        g0 = mlp_gelu(x0);
        g1 = mlp_gelu(x1);
    }
    return __floats2bfloat162_rn(g0, g1);
}

// One consumer warpgroup's epilogue: its 64 x BN accumulators as GeLU(acc) in bf16, sub-tile by
// sub-tile through two shared-memory buffers to TMA stores. Accumulator layout (kl_wgmma.cuh): in
// 8-column slice s, thread (warp w, lane l) holds rows 16w + l/4 (+8) and columns 8s + 2(l%4)
// (+1). One slice of a row is 16 bytes of bf16, so slice q of sub-tile j is chunk q of the
// buffer's 128-byte row, placed at chunk q ^ (r % 8) (the swizzle); r % 8 = l / 4 for both of a
// thread's rows, so one store instruction's 32 lanes cover 8 rows x 16 bytes in 32 banks.
template <int kN>  // accumulators per thread: BN / 2 for a whole tile, 32 for a 64-column piece
__device__ __forceinline__ void store_gelu_tile(const Shared& sh, const float (&d)[kN], const TmaDescriptor* map_h,
                                                int cg, int row0, int col0, int first_buf) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
    const bool issuer = threadIdx.x % 128 == 0;
    const unsigned key = lane / 4;
#pragma unroll
    for (int j = 0; j < 2 * kN / SUB_COLS; ++j) {
        // The buffers alternate over every sub-tile this warpgroup stores: a whole tile's four start
        // at buffer 0; pieces (one sub-tile each, always after the whole tiles) alternate by
        // first_buf, so the one written now is never the one the last store may still read.
        const unsigned buf = smem_addr(sh.sub(cg, (first_buf + j) % 2));
        if (issuer) bulk_wait_read<1>();  // the store that last used this buffer (j - 2) has read it
        warpgroup_sync(1 + cg);
        const unsigned row_base = buf + (warp * 16 + lane / 4) * 128 + (lane % 4) * 4;
#pragma unroll
        for (int q = 0; q < SUB_COLS / 8; ++q)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int s = j * (SUB_COLS / 8) + q;
                const __nv_bfloat162 v = gelu_pair(d[4 * s + 2 * h], d[4 * s + 2 * h + 1]);
                const unsigned addr = row_base + h * 1024 + ((q ^ key) << 4);
                st_shared_b32(addr, *reinterpret_cast<const unsigned*>(&v));
            }
        fence_proxy_async();  // these writes, before the copy engine reads the buffer
        warpgroup_sync(1 + cg);
        if (issuer) {
            tma_store_2d(map_h, buf, col0 + j * SUB_COLS, row0);
            bulk_commit();
        }
    }
}

// Without a tensor map of H (F % 8 != 0) the same values go out element by element, with guards.
template <int kN>
__device__ __forceinline__ void store_gelu_direct(const float (&d)[kN], __nv_bfloat16* H, int M, int N, int row0,
                                                  int col0) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
#pragma unroll
    for (int s = 0; s < kN / 4; ++s)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = row0 + warp * 16 + lane / 4 + h * 8, col = col0 + s * 8 + (lane % 4) * 2;
            if (row >= M) continue;
            const __nv_bfloat162 v = gelu_pair(d[4 * s + 2 * h], d[4 * s + 2 * h + 1]);
            if (col < N) H[(size_t)row * N + col] = v.x;
            if (col + 1 < N) H[(size_t)row * N + col + 1] = v.y;
        }
}

// ---------------------------------------------------------------------------------------------
// The work of a cluster (TAIL): rung 18's walk hands out whole stacks, and with 128 x 256 tiles at
// GPT's shape the last of 32 rounds holds 2 stacks for 66 pairs: 64 pairs idle for a whole tile's
// time (3% of the kernel). With TAIL = 1 the stacks left after the whole rounds are cut into
// 64-column pieces (four per tile), dealt out one per cluster in turn: the last round takes a
// quarter of a tile's time. A piece is its tile's rows by 64 columns, all of K: GeLU needs the
// whole sum, so cutting along K (rung 18's STREAMK) is not an option here.
// ---------------------------------------------------------------------------------------------
// A piece's K-tile needs A and one box of B, half a stage: its loads are few and small, and the
// ring's STAGES of them in flight, not the tensor cores, set its pace (measured: the last round
// took 0.55-0.65 of a tile's time, not a quarter). With TAIL = 2 a stage holds two of a piece's
// K-tiles (A, A, B, B), so twice the bytes are in flight; that needs BN >= BM + 128.
#ifndef TAIL
#error \
    "TAIL must be defined: 0 (whole tiles to the end), 1 (left-over stacks cut into 64-column pieces) or 2 (pieces, two K-tiles per stage)"
#endif
static_assert(TAIL == 0 || TAIL == 1 || TAIL == 2, "TAIL must be 0, 1 or 2");
static_assert(TAIL < 2 || 2 * (A_STAGE_BYTES + BK * 128) <= STAGE_BYTES,
              "TAIL = 2 puts two K-tiles of a piece (A and one box of B each) in one stage: BN >= BM + 128");
#define PIECE_KTILES (TAIL == 2 ? 2 : 1)  // a piece's K-tiles per stage

// Where K-tile h of a stage lies: one K-tile per stage (whole tiles; TAIL = 1 pieces) at a(s) and
// b(s); two (TAIL = 2 pieces) as A, A, B, B.
template <int kPerStage>
__device__ __forceinline__ unsigned char* stage_a(const Shared& sh, int s, int h) {
    return sh.a(s) + h * A_STAGE_BYTES;
}
template <int kPerStage>
__device__ __forceinline__ unsigned char* stage_b(const Shared& sh, int s, int h) {
    return kPerStage == 1 ? sh.b(s) : sh.a(s) + 2 * A_STAGE_BYTES + h * (BK * 128);
}

struct Job {
    int stack, piece;  // piece: -1 for the whole tile, else its 64-column piece
};

// The jobs of a launch, numbered: the stacks run whole (0 ... whole_all - 1, in rung 18's walk
// order), then the pieces of the stacks left over (TAIL). The first `whole` are dealt out in turn
// (cluster c: c, c + G, ...); from there on, with QUEUE, jobs come from kl_cluster_gemm.cuh's
// queue in number order (QUEUE = 1: the last round's stacks, or TAIL's pieces; 2: all); without
// it the pieces are dealt out in turn as well.
struct Jobs {
    Walk w;  // rung 18's walk: the grouped origin of each stack
    int whole_all, whole, pieces, next_whole, next_piece, clusters, n;
    __device__ void init(int M, int N, int K, int cluster, int clusters_) {
        const int tiles_m = (M + BM - 1) / BM;
        w.init(tiles_m, (N + BN - 1) / BN, (K + BK - 1) / BK, cluster, clusters_);
        const int stacks = w.stacks_m * w.stacks_n, left = stacks % clusters_;
        whole_all = stacks - (TAIL ? left : 0);
        whole = QUEUE == 2 ? 0 : QUEUE == 1 && !TAIL ? stacks - left : whole_all;
        pieces = TAIL ? left * (BN / 64) : 0;
        next_whole = cluster;
        next_piece = cluster;
        clusters = clusters_;
        n = N;
    }
    __device__ int queued() const { return whole_all - whole + pieces; }
    // Job number i as a stack and piece; false for a piece wholly past N's edge (a partial last
    // tile column), which is skipped.
    __device__ bool decode(int i, Job& j) const {
        if (i < whole_all) {
            j = Job{i, -1};
            return true;
        }
        const int p = i - whole_all;
        j = Job{whole_all + p / (BN / 64), p % (BN / 64)};
        int m0, n0;
        w.origin(j.stack, 0, m0, n0);
        return n0 + j.piece * 64 < n;
    }
    // The jobs dealt out in turn (all of them without QUEUE).
    __device__ bool next(Job& j) {
        if (next_whole < whole) {
            j = Job{next_whole, -1};
            next_whole += clusters;
            return true;
        }
        for (; !QUEUE && next_piece < pieces; next_piece += clusters)
            if (decode(whole_all + next_piece, j)) {
                next_piece += clusters;
                return true;
            }
        return false;
    }
    __device__ void origin(const Job& j, int rank, int& m0, int& n0) const {
        w.origin(j.stack, rank, m0, n0);
        if (j.piece >= 0) n0 += j.piece * 64;
    }
};

// The producer, as rung 18's (kl_cluster_gemm.cuh) for whole tiles; for a piece the stage holds A
// and one 64-column box of B (twice, with TAIL = 2), which block 0 of a pair fetches into both.
__device__ __forceinline__ void produce_job(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                            Ring& ring, const Jobs& js, const Job& j, int rank) {
    int m0, n0;
    js.origin(j, rank, m0, n0);
    const int per_stage = TAIL && j.piece >= 0 ? PIECE_KTILES : 1;
    for (int kt = 0; kt < js.w.k_tiles; kt += per_stage) {
        mbar_wait(sh.empty(ring.stage), ring.parity ^ 1);
        if (!TAIL || j.piece < 0) {  // rung 18's whole tile (kl_cluster_gemm.cuh)
            load_stage(sh, map_a, map_b, ring, m0, n0, kt, rank);
        } else {  // a piece: A and one box of B per K-tile, B fetched by block 0
            // (with an odd K-tile count the last stage's second K-tile lies past K: the copy
            // engine fills it with zeros and counts its bytes all the same)
            const unsigned full = sh.full(ring.stage);
            mbar_arrive_expect_bytes(full, PIECE_KTILES * (A_STAGE_BYTES + BK * 128));
#pragma unroll
            for (int h = 0; h < PIECE_KTILES; ++h) {
                tma_load_2d(smem_addr(stage_a<PIECE_KTILES>(sh, ring.stage, h)), map_a, (kt + h) * BK, m0, full);
                const unsigned dst = smem_addr(stage_b<PIECE_KTILES>(sh, ring.stage, h));
                if (CLUSTER == 1)
                    tma_load_2d(dst, map_b, n0, (kt + h) * BK, full);
                else if (rank == 0)
                    tma_load_2d_multicast(dst, map_b, n0, (kt + h) * BK, full, (1u << CLUSTER) - 1);
            }
        }
        ring.advance();
    }
}

__device__ __forceinline__ void produce_jobs(const Shared& sh, const TmaDescriptor* map_a, const TmaDescriptor* map_b,
                                             Jobs js, int rank, int* queue) {
    Ring ring;
    Job j;
    while (js.next(j)) produce_job(sh, map_a, map_b, ring, js, j, rank);
    if (QUEUE)
        produce_queued(sh, ring, TailQueue(queue, js.queued(), js.clusters), rank, [&](int i) {
            Job q;
            if (js.decode(js.whole + i, q)) produce_job(sh, map_a, map_b, ring, js, q, rank);
        });
}

// The consumers' next job: dealt in turn, then (QUEUE) the one their producer tagged.
__device__ __forceinline__ bool next_job(Jobs& js, const Shared& sh, const Ring& ring, Job& j) {
    if (js.next(j)) return true;
    if (QUEUE == 0) return false;
    const int i = queued_job(sh, ring);
    return i >= 0 && js.decode(js.whole + i, j);
}

// One tile (kN = BN / 2) or piece (kN = 32) of a consumer warpgroup: rung 18's loop over K, a
// stage at a time (kPerStage K-tiles each: 2 for TAIL = 2's pieces). With an odd K-tile count the
// last stage's second K-tile lies past K: the copy engine filled it with zeros, and it is
// multiplied all the same, because a branch between wgmmas makes ptxas serialize every wgmma of
// the kernel (its warning C7520; measured: the first product 6% slower).
template <int kN, int kPerStage>
__device__ __forceinline__ void mma_tile(const Shared& sh, float (&d)[kN], Ring& ring, int k_tiles, int cg, int rank,
                                         Stagger& stagger) {
    const int lane = threadIdx.x % 32;
    int previous = -1;  // the stage whose batch may still be running
    for (int kt = 0; kt < k_tiles; kt += kPerStage) {
        mbar_wait(sh.full(ring.stage), ring.parity);
        wgmma_fence();
#pragma unroll
        for (int h = 0; h < kPerStage; ++h) {
            const unsigned sA = smem_addr(stage_a<kPerStage>(sh, ring.stage, h)) + cg * (64 * A_ROW_BYTES);
            const unsigned sB = smem_addr(stage_b<kPerStage>(sh, ring.stage, h));
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk)
                wgmma_bf16(d, desc_a_k_major(sA + kk * 32), make_desc(sB + kk * 16 * 128, BK * 128, 1024),
                           kt + h > 0 || kk > 0);
        }
        wgmma_commit();
        wgmma_wait<1>();  // the previous batch is done: its stage can be refilled
        fence_accumulators(d);
        if (previous >= 0 && lane == 0) release(sh, previous, rank);
        previous = ring.stage;
        ring.advance();
        stagger.after_ktiles(kt);
    }
    wgmma_wait<0>();
    fence_accumulators(d);
    if (lane == 0) release(sh, previous, rank);
    stagger.after_ktiles(LAG);
}

template <int kN>
__device__ __forceinline__ void store_gelu(const Shared& sh, const float (&d)[kN], const TmaDescriptor* map_h,
                                           __nv_bfloat16* H, int M, int N, int cg, int row0, int col0, int first_buf) {
    if (N % 8 == 0)
        store_gelu_tile(sh, d, map_h, cg, row0, col0, first_buf);  // the copy engine clips the edges
    else
        store_gelu_direct(d, H, M, N, row0, col0);
}

// A consumer warpgroup: each job's K-tiles, then the GeLU epilogue.
__device__ __forceinline__ void consume(const Shared& sh, __nv_bfloat16* H, int M, int N, int cg, Jobs js, int rank,
                                        const TmaDescriptor* map_h) {
    float d[BN / 2];  // not zeroed: each tile's first wgmma runs with accumulate = 0
    // A piece's 64 columns use the first 32 accumulators (the same registers).
    float(&d_piece)[32] = *reinterpret_cast<float(*)[32]>(&d[0]);
    Ring ring;
    Job j;
    int pieces = 0;       // pieces stored so far: picks the store buffer of the next
    int done = 0;         // jobs finished (STAMPS: the block timeline)
    Stagger stagger(cg);  // LAG > 0: consumer 1 runs LAG K-tiles behind consumer 0
    while (next_job(js, sh, ring, j)) {
        stagger.before_unit();
        int m0, n0;
        js.origin(j, rank, m0, n0);
        const int row0 = m0 + cg * 64;
        if (!TAIL || j.piece < 0) {  // (with TAIL = 0 the piece path is not compiled)
            mma_tile<BN / 2, 1>(sh, d, ring, js.w.k_tiles, cg, rank, stagger);
            stamp_unit(cg, ++done);
            if (row0 < M) store_gelu(sh, d, map_h, H, M, N, cg, row0, n0, 0);  // not a stack's spare tile
        } else {
            mma_tile<32, PIECE_KTILES>(sh, d_piece, ring, js.w.k_tiles, cg, rank, stagger);
            stamp_unit(cg, ++done);
            if (row0 < M) store_gelu(sh, d_piece, map_h, H, M, N, cg, row0, n0, pieces++ % 2);
        }
    }
    if (threadIdx.x % 128 == 0) bulk_wait<0>();  // the last stores have written H before the block ends
}

// The first product with GeLU: H = GeLU(X W1), X T x D (M x K), W1 D x F (K x N), H T x F in
// bf16. The grid is a whole number of clusters (the manifest rounds it); X and W1 are the
// padded copies when rows were not aligned, so their tensor maps are always valid.
extern "C" __global__ void CLUSTER_DIMS __launch_bounds__(NUM_THREADS, 1)
    mlp_gemm_gelu_cluster(__nv_bfloat16* H, const __nv_bfloat16* X, const __nv_bfloat16* W1, int M, int N, int K,
                          const __grid_constant__ TmaDescriptor map_x, const __grid_constant__ TmaDescriptor map_w1,
                          const __grid_constant__ TmaDescriptor map_h, float* queue) {
    stamp_block(true);
    extern __shared__ unsigned char smem_raw[];
    Shared sh;
    carve_shared(sh, smem_raw);
    (void)X;
    (void)W1;

    const int rank = CLUSTER == 1 ? 0 : int(cluster_rank());
    Jobs js;
    js.init(M, N, K, blockIdx.x / CLUSTER, gridDim.x / CLUSTER);
    init_ring(sh);

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        regs_decrease<PRODUCER_REGS>();
        if (threadIdx.x == 0) produce_jobs(sh, &map_x, &map_w1, js, rank, reinterpret_cast<int*>(queue));
    } else {
        regs_increase<CONSUMER_REGS>();
        consume(sh, H, M, N, wg - 1, js, rank, &map_h);
    }
    if (CLUSTER > 1) cluster_sync();  // no block leaves while its peer may still signal it
    stamp_block(false);
}
