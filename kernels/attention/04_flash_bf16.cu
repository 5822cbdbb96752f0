// Rung 4 - FlashAttention-2 on tensor cores: bf16 Q, K, V, O; fp32 scores, statistics, sums.
//
// What changes from rung 3: both matrix products of the inner loop run on tensor cores with
// mma.sync.m16n8k16 (16 x 8 x 16 multiply-adds per warp instruction, fp32 accumulators), and
// the work is split the FlashAttention-2 way:
//  - a block of 4 warps owns BM query rows (16 or 32 per warp) and loops over key tiles of BN;
//    each warp owns whole rows, so the row max and sum need only shuffles between the 4 lanes
//    that hold a row, never a barrier;
//  - S = Q K^T lands in registers; the online softmax runs there; the probabilities are rounded
//    to bf16 and reused directly as the A operand of O += P V: the accumulator layout of one
//    mma is the operand layout of the next, so P never touches shared memory;
//  - K and V tiles arrive by cp.async into two shared-memory stages: tile j + 1 is in flight
//    while tile j is computed. Rows are padded by 16 bytes so ldmatrix reads 8 rows from 8
//    different bank groups. Q is loaded once (and kept in registers when they allow);
//  - the division by l happens once at the end; per tile only exp(m - m_new) touches o, and at
//    d = 128 not even that when no row of the warp found a larger max (exact: the factor is 1),
//    which saves issue slots once the maxima have settled. At d = 64 the rescale is cheap (64
//    multiplies per row half) and the warp vote cost more than it saved, so that entry always
//    rescales (measured both ways: docs/tuning/attention.md).
// Causal: query block i stops at its diagonal; inside it, a warp skips tiles that lie entirely
// after its own rows; only tiles crossing a warp's diagonal (or the end of the sequence) pay
// for the element mask. Blocks start heaviest first. Scores use exp2 with log2(e) / sqrt(d)
// folded into one FFMA.
// Why it should be faster: tensor cores do ~15x the math of the CUDA cores, bf16 halves the
// bytes, and one pass over K and V per query block keeps the traffic O(N d) per block.
// What to see: level with or a little ahead of PyTorch's FlashAttention-2 backend
// (docs/benchmarks-attention.md), d = 128 ahead of d = 64. 32 rows per warp matter:
// each K/V fragment loaded by ldmatrix feeds two mma instructions instead of one.
//
// d = 64 and d = 128 are two instantiations of one template, each its own entry point; the
// manifest launches the one whose `when` matches the problem's d. Their tile shapes are the
// parameters BM64/BN64 and BM128/BN128. N may be anything >= 1: rows and keys past N are
// zero-filled by cp.async and masked.
// What it needs: sm_80 (Ampere) or newer: mma.sync.m16n8k16 with bf16 operands and cp.async are
// Ampere instructions; bf16 data.

#include <cuda_bf16.h>

#include "kl_ptx.cuh"  // smem_addr, cp.async, ldmatrix, fast_exp2 (kernels/common)

#if !defined(BM64) || !defined(BN64) || !defined(BM128) || !defined(BN128)
#error "BM64, BN64, BM128 and BN128 must be defined, e.g. -DBM64=128 -DBN64=64 -DBM128=128 -DBN128=64"
#endif

#define WARPS 4
#define THREADS (32 * WARPS)
#define NEG_INF_F __int_as_float(0xff800000)
#define LN2 0.6931471805599453f

// ---------------------------------------------------------------------------------------------
// The warp-level MMA (cp.async, ldmatrix, smem_addr and fast_exp2 are in kl_ptx.cuh)
// ---------------------------------------------------------------------------------------------
// c += a (16 x 16, row) * b (16 x 8, col), fp32 accumulators. Lane (g = lane / 4, t = lane % 4)
// holds c[0], c[1] at row g, columns 2t, 2t+1 and c[2], c[3] at row g + 8, same columns.
__device__ __forceinline__ void mma_16816(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// c = a * b, accumulators starting from zero (the hardware reads the zero register).
__device__ __forceinline__ void mma_16816_zero(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%10, %10, %10, %10};\n"
        : "=f"(c[0]), "=f"(c[1]), "=f"(c[2]), "=f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.f));
}

// Two floats -> one register of two bf16, the first in the low half (the lower column).
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned*>(&v);
}

// ---------------------------------------------------------------------------------------------
// Tiles: ROWS rows of a [N][D] bf16 matrix into shared memory, rows padded to D + 8 elements.
// ---------------------------------------------------------------------------------------------
template <int D>
struct Layout {
    static constexpr int kStride = (D + 8) * 2;  // bytes per shared row: 16-byte pad
};

template <int D, int ROWS>
__device__ __forceinline__ void load_tile(unsigned dst, const __nv_bfloat16* src, int row0, int N) {
    constexpr int kChunksPerRow = D / 8;
    constexpr int kRowsPerPass = THREADS / kChunksPerRow;  // rows one pass of all threads covers
    static_assert(THREADS % kChunksPerRow == 0 && ROWS % kRowsPerPass == 0, "every thread copies whole 16-byte chunks");
    // Thread t copies chunk t % kChunksPerRow of rows t / kChunksPerRow + i * kRowsPerPass: one
    // base address per thread, the passes differ by constants.
    const int r = threadIdx.x / kChunksPerRow, c = threadIdx.x % kChunksPerRow;
    const __nv_bfloat16* g = src + (long long)(row0 + r) * D + c * 8;
    dst += r * Layout<D>::kStride + c * 16;
#pragma unroll
    for (int i = 0; i < ROWS / kRowsPerPass; ++i) {
        const bool inside = row0 + r + i * kRowsPerPass < N;
        cp_async_16(dst + i * kRowsPerPass * Layout<D>::kStride, inside ? g + i * kRowsPerPass * D : src,
                    inside ? 16 : 0);
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel body for one head dimension and tile shape. kSkipRescale: skip rescaling o when
// no row of the warp found a larger max in the tile (exact; pays for its vote at d = 128 only).
// kLateRefill: issue the next tile's copy after S = Q K^T instead of at the loop's top (pays at
// d = 128 only; both measured in docs/tuning/attention.md).
// ---------------------------------------------------------------------------------------------
template <int D, int BM, int BN, bool kSkipRescale, bool kLateRefill>
__device__ __forceinline__ void flash_bf16(__nv_bfloat16* O, float* lse, const __nv_bfloat16* Q, const __nv_bfloat16* K,
                                           const __nv_bfloat16* V, int N, int causal, unsigned char* smem) {
    constexpr int MT = BM / (16 * WARPS);  // 16-row mma tiles per warp
    constexpr int NT = BN / 8;             // 8-key column tiles of S
    constexpr int KD = D / 16;             // 16-deep steps over the head dimension
    constexpr int DT = D / 8;              // 8-column tiles of O
    constexpr int STRIDE = Layout<D>::kStride;
    constexpr bool kQInRegs = MT * D <= 128;  // 32 registers of Q fragments at most
    static_assert(MT >= 1 && BM == MT * 16 * WARPS, "BM must be 64 or 128 (16 or 32 rows per warp)");
    static_assert(BN % 16 == 0, "BN must be a multiple of 16");
    // log2(e) / sqrt(D): scores become exp2 arguments with one FFMA.
    constexpr float kScaleLog2 = D == 64 ? 0.18033688011112042f : 0.12751743082459868f;
    constexpr float kScale = D == 64 ? 0.125f : 0.08838834764831843f;  // 1 / sqrt(D)

    const unsigned sQ = smem_addr(smem);
    const unsigned sK0 = sQ + BM * STRIDE;       // K stage s at sK0 + s * BN * STRIDE
    const unsigned sV0 = sK0 + 2 * BN * STRIDE;  // V stage s at sV0 + s * BN * STRIDE

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int g = lane / 4, t = lane % 4;
    const int q0 = (gridDim.x - 1 - blockIdx.x) * BM;  // heaviest (causal) query blocks first
    const int wr0 = warp * 16 * MT;                    // this warp's first row inside the block
    const int warp_first = q0 + wr0, warp_last = q0 + wr0 + 16 * MT - 1;
    const long long head = (long long)blockIdx.y * N;
    Q += head * D;
    K += head * D;
    V += head * D;

    const int key_end = causal ? min(N, q0 + BM) : N;
    const int tiles = (key_end + BN - 1) / BN;

    // Prologue: Q and the first K, V tiles in one group.
    load_tile<D, BM>(sQ, Q, q0, N);
    load_tile<D, BN>(sK0, K, 0, N);
    load_tile<D, BN>(sV0, V, 0, N);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();

    // ldmatrix addresses, per lane. A operand (Q rows, 16 x 16 per x4): lanes 0-15 give rows
    // 0-15 at columns 0-7, lanes 16-31 the same rows at columns 8-15.
    const unsigned q_lane = sQ + (wr0 + (lane % 16)) * STRIDE + (lane / 16) * 16;
    // B operand from K (keys x d, non-transposed): matrices (keys 0-7, d 0-7), (keys 0-7, d 8-15),
    // (keys 8-15, d 0-7), (keys 8-15, d 8-15) -> b0, b1 of key tile 2np, then of 2np + 1.
    const unsigned k_lane = (lane % 8 + (lane / 16) * 8) * STRIDE + ((lane / 8) % 2) * 16;
    // B operand from V (keys x d, transposed): matrices (keys 0-7, d 0-7), (keys 8-15, d 0-7),
    // (keys 0-7, d 8-15), (keys 8-15, d 8-15) -> b0, b1 of d tile 2dp, then of 2dp + 1.
    const unsigned v_lane = (lane % 16) * STRIDE + (lane / 16) * 16;

    unsigned qf[kQInRegs ? MT : 1][kQInRegs ? KD : 1][4];
    if (kQInRegs) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int kk = 0; kk < KD; ++kk)
                ldmatrix_x4(qf[kQInRegs ? mt : 0][kQInRegs ? kk : 0], q_lane + mt * 16 * STRIDE + kk * 32);
    }

    float o[MT][DT][4];
    float m[MT][2], l[MT][2];  // per row half: rows g and g + 8 of each mma tile
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int dt = 0; dt < DT; ++dt) o[mt][dt][0] = o[mt][dt][1] = o[mt][dt][2] = o[mt][dt][3] = 0.f;
        m[mt][0] = m[mt][1] = NEG_INF_F;
        l[mt][0] = l[mt][1] = 0.f;  // this lane's partial sums; the 4 lanes of a row add up at the end
    }

    // Copies tile j + 1 into the stage tile j - 1 used (every warp is past the barrier that ended
    // tile j - 1). One commit per iteration either way, so the wait at the loop's top stays exact.
    auto refill_next_stage = [&](int j) {
        if (j + 1 < tiles) {
            const int stage = (j + 1) % 2;
            load_tile<D, BN>(sK0 + stage * BN * STRIDE, K, (j + 1) * BN, N);
            load_tile<D, BN>(sV0 + stage * BN * STRIDE, V, (j + 1) * BN, N);
        }
        cp_async_commit();
    };

    for (int j = 0; j < tiles; ++j) {
        if (j > 0) {
            cp_async_wait<0>();  // tile j (issued one iteration ago) has landed for this thread...
            __syncthreads();     // ...for all threads; and everyone is done with tile j - 1
        }
        const int k0 = j * BN;
        if (!kLateRefill) refill_next_stage(j);
        if (causal && k0 > warp_last) {  // every key of the tile is after this warp's rows
            if (kLateRefill) refill_next_stage(j);
            continue;
        }
        const unsigned sK = sK0 + (j % 2) * BN * STRIDE + k_lane;
        const unsigned sV = sV0 + (j % 2) * BN * STRIDE + v_lane;

        // S = Q K^T (raw scores, fp32).
        float s[MT][NT][4];  // the first k-step writes them (mma with zero accumulators): no clearing
#pragma unroll
        for (int kk = 0; kk < KD; ++kk) {
            unsigned a[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                if (kQInRegs) {
#pragma unroll
                    for (int r = 0; r < 4; ++r) a[mt][r] = qf[kQInRegs ? mt : 0][kQInRegs ? kk : 0][r];
                } else {
                    ldmatrix_x4(a[mt], q_lane + mt * 16 * STRIDE + kk * 32);
                }
            }
#pragma unroll
            for (int np = 0; np < NT / 2; ++np) {
                unsigned b[4];
                ldmatrix_x4(b, sK + np * 16 * STRIDE + kk * 32);
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    if (kk == 0) {
                        mma_16816_zero(s[mt][2 * np], a[mt], b[0], b[1]);
                        mma_16816_zero(s[mt][2 * np + 1], a[mt], b[2], b[3]);
                    } else {
                        mma_16816(s[mt][2 * np], a[mt], b[0], b[1]);
                        mma_16816(s[mt][2 * np + 1], a[mt], b[2], b[3]);
                    }
                }
            }
        }

        // At d = 128 the next tile's copy is issued only now, after S = Q K^T: issued at the loop's
        // top, its 16 cp.async per thread queued with the 48 ldmatrix of Q K^T in the same
        // memory-instruction queue, and the warps stalled there ("mio throttle" on ldmatrix 10x
        // higher in Nsight Compute). It still has the softmax and P V to land. At d = 64 the early copy measured 6%
        // faster: keep it.
        if (kLateRefill) refill_next_stage(j);

        // Mask keys past N and, on tiles crossing this warp's diagonal, keys after the query.
        if (k0 + BN > N || (causal && k0 + BN - 1 > warp_first)) {
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int key = k0 + nt * 8 + 2 * t + (e % 2);
                        const int row = warp_first + mt * 16 + g + (e / 2) * 8;
                        if (key >= N || (causal && key > row)) s[mt][nt][e] = NEG_INF_F;
                    }
        }

        // Online softmax, in registers. alpha = exp(m - m_new) rescales l and o. With kSkipRescale,
        // when no row of the warp found a larger max in this tile (every alpha exactly 1), the
        // warp skips the D / 2 multiplies per row half: most tiles, once the maxima have settled.
        float alpha[MT][2];
        bool grew = false;
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                float mx = NEG_INF_F;
#pragma unroll
                for (int nt = 0; nt < NT; ++nt) mx = fmaxf(mx, fmaxf(s[mt][nt][2 * h], s[mt][nt][2 * h + 1]));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));  // the 4 lanes of a row
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                const float m_new = fmaxf(m[mt][h], mx);
                const bool row_grew = m_new > m[mt][h];
                grew |= row_grew;
                // No visible key yet (m_new = -inf): subtract 0, not -inf, so exp2 gives 0, not NaN.
                const float base = m_new == NEG_INF_F ? 0.f : m_new * kScaleLog2;
                alpha[mt][h] = row_grew ? fast_exp2(m[mt][h] * kScaleLog2 - base) : 1.f;
                m[mt][h] = m_new;
                float sum = 0.f;
#pragma unroll
                for (int nt = 0; nt < NT; ++nt) {
                    s[mt][nt][2 * h] = fast_exp2(fmaf(s[mt][nt][2 * h], kScaleLog2, -base));
                    s[mt][nt][2 * h + 1] = fast_exp2(fmaf(s[mt][nt][2 * h + 1], kScaleLog2, -base));
                    sum += s[mt][nt][2 * h] + s[mt][nt][2 * h + 1];
                }
                l[mt][h] = l[mt][h] * alpha[mt][h] + sum;
            }
        if (!kSkipRescale || __any_sync(0xffffffffu, grew)) {
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int dt = 0; dt < DT; ++dt) {
                    o[mt][dt][0] *= alpha[mt][0];
                    o[mt][dt][1] *= alpha[mt][0];
                    o[mt][dt][2] *= alpha[mt][1];
                    o[mt][dt][3] *= alpha[mt][1];
                }
        }

        // O += P V: the S accumulators of key tiles 2kk, 2kk + 1 are the A fragment of step kk.
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) {
            unsigned a[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                a[mt][0] = pack_bf16(s[mt][2 * kk][0], s[mt][2 * kk][1]);          // row g, keys 2t, 2t+1
                a[mt][1] = pack_bf16(s[mt][2 * kk][2], s[mt][2 * kk][3]);          // row g + 8
                a[mt][2] = pack_bf16(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);  // row g, keys 8 + 2t, ...
                a[mt][3] = pack_bf16(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);  // row g + 8
            }
#pragma unroll
            for (int dp = 0; dp < D / 16; ++dp) {
                unsigned b[4];
                ldmatrix_x4_trans(b, sV + kk * 16 * STRIDE + dp * 32);
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    mma_16816(o[mt][2 * dp], a[mt], b[0], b[1]);
                    mma_16816(o[mt][2 * dp + 1], a[mt], b[2], b[3]);
                }
            }
        }
    }

    // Epilogue: add the 4 lanes' partial sums, divide once, store bf16 O and the fp32 lse.
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            float sum = l[mt][h];
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            const int row = warp_first + mt * 16 + g + h * 8;
            if (row >= N) continue;
            const float inv = 1.f / sum;
            unsigned* out = reinterpret_cast<unsigned*>(O + (head + row) * D + 2 * t);
#pragma unroll
            for (int dt = 0; dt < DT; ++dt) out[dt * 4] = pack_bf16(o[mt][dt][2 * h] * inv, o[mt][dt][2 * h + 1] * inv);
            if (t == 0) lse[head + row] = m[mt][h] * kScale + log2f(sum) * LN2;
        }
}

// Grid: (ceil(N / BM), B * H); 128 threads; shared memory (BM + 4 * BN) * (d + 8) * 2 bytes.
extern "C" __global__ void __launch_bounds__(THREADS, 2)
    attention_flash_bf16_d64(__nv_bfloat16* O, float* lse, const __nv_bfloat16* Q, const __nv_bfloat16* K,
                             const __nv_bfloat16* V, int N, int causal) {
    extern __shared__ __align__(16) unsigned char smem[];
    flash_bf16<64, BM64, BN64, false, false>(O, lse, Q, K, V, N, causal, smem);
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
    attention_flash_bf16_d128(__nv_bfloat16* O, float* lse, const __nv_bfloat16* Q, const __nv_bfloat16* K,
                              const __nv_bfloat16* V, int N, int causal) {
    extern __shared__ __align__(16) unsigned char smem[];
    flash_bf16<128, BM128, BN128, true, true>(O, lse, Q, K, V, N, causal, smem);
}
