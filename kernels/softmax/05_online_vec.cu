// Rung 5 of the softmax ladder: online softmax, vectorized, the row held in registers.
//
// What changes from rung 4:
//  - 16-byte loads and stores (float4): a quarter of the memory instructions.
//  - The row is read from DRAM once: each thread keeps its VPT float4 of the row in
//    registers between computing the statistics and writing the output. Rung 4 read the row
//    twice (the second time from L2 at best).
//  - The row gets as many warps as it needs, not a whole block: a group of
//    ceil(n / (128 VPT)) warps (at most TPB / 32) owns a row, and a block serves
//    (TPB / 32) / group rows at once. Short rows (n = 256) no longer leave most of a
//    1024-thread block idle; a group of one warp needs no barrier at all.
//  - Online statistics in their cheapest form: each thread finds the max of its registers,
//    sums exp(x - its max) while replacing x by that exp, and only the (max, sum) pairs are
//    combined, in one round of shuffles (plus one shared-memory step for multi-warp groups).
//    The output is then exps * exp(thread max - row max) / row sum: one exp per element.
// Why it is faster: DRAM traffic is the ideal 2mn elements even when L2 is busy, fewer
// instructions per byte, and every thread has work at every row length.
// What to see: the best rung: near the copy line at n = 1,024..8,192 and ahead of
// torch.softmax there and at n = 65,537. At 4096 x 256 (8 MB) it is level with torch: at
// that size fixed costs (launch, the cache state after the L2 flush) dominate both.
//
// Long rows: a group holds at most TPB * VPT * 4 elements in registers (8,192 by default).
// The rest of a longer row streams: pass 1 folds it into the online statistics
// (float4 at a time), the output pass reads it again (hopefully from L2). So n >= 65,536
// works, at the cost of a second read of the part that did not fit.
// Alignment: a row's float4 body starts at the first 16-byte boundary; the up-to-3 elements
// before it (head) and after it (tail) go through a scalar loop. If `in` or `out` is not
// 16-byte aligned at all, the whole row takes the scalar loop. Any n >= 1 is correct.
// A row of all -inf gives all zeros (defined; torch gives NaN).
// What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data.

// Storage: ELEM (fp32, bf16 or fp16). The "float4" of this file is a packet of four elements
// (kl_load4 / kl_store4 of kl_vec.cuh): 16 bytes in fp32, 8 in 16 bits, converted to a float4 in
// registers. The geometry (VPT packets per thread, the manifest's grid) is the same in every
// dtype; the math is float, and the output is rounded once to ELEM.
#include "kl_vec.cuh"
#ifndef TPB
#define TPB 512
#endif
#ifndef VPT
#define VPT 4
#endif
static_assert(TPB >= 32 && TPB <= 1024 && (TPB % 32) == 0, "TPB must be whole warps, 32..1024");
static_assert(VPT >= 1 && VPT <= 16, "VPT (float4 per thread kept in registers) must be 1..16");

#define NEG_INF __int_as_float(0xff800000)
#define LOG2E 1.4426950408889634f
#define WARPS (TPB / 32)

// [SECTION] online statistics ------------------------------------------------------------

__device__ __forceinline__ float fast_exp(float d) { return exp2f(d * LOG2E); }

// exp(a - b) for a <= b, with the -inf - -inf case (nothing seen yet) defined as 0.
__device__ __forceinline__ float exp_below(float a, float b) { return (b == NEG_INF) ? 0.f : fast_exp(a - b); }

struct MaxSum {
    float m, s;
};  // s = sum of exp(x - m) over the elements seen

__device__ __forceinline__ float warp_max(float v) {
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, lane_mask));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) v += __shfl_xor_sync(0xffffffffu, v, lane_mask);
    return v;
}

// Every lane's (m, s) -> the warp's (M, S): max first, then one exp per lane, then a sum
// (as in rung 4: cheaper than merging pairs, which costs two exps per tree step).
__device__ __forceinline__ MaxSum warp_combine(MaxSum a) {
    const float m = warp_max(a.m);
    return {m, warp_sum(a.s * exp_below(a.m, m))};
}

__device__ __forceinline__ MaxSum add_element(MaxSum acc, float x) {
    if (x > acc.m) return {x, acc.s * exp_below(acc.m, x) + 1.f};
    return {acc.m, acc.s + exp_below(x, acc.m)};
}

__device__ __forceinline__ float max4(float4 q) { return fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w)); }

__device__ __forceinline__ MaxSum add_float4(MaxSum acc, float4 q) {
    const float m = fmaxf(acc.m, max4(q));
    const float base = (m == NEG_INF) ? 0.f : m;  // all -inf so far: every exp is 0
    return {m, acc.s * exp_below(acc.m, m) + fast_exp(q.x - base) + fast_exp(q.y - base) + fast_exp(q.z - base) +
                   fast_exp(q.w - base)};
}

// [SECTION] kernel -----------------------------------------------------------------------

extern "C" __global__ void __launch_bounds__(TPB)
    softmax_online_vec(ELEM* __restrict__ out, const ELEM* __restrict__ in, int rows, int cols) {
    __shared__ MaxSum warp_stats[WARPS];

    // Geometry: depends on cols only, so it is uniform over the grid. The manifest's grid
    // expression computes the same rows_per_block; the row loop keeps any grid correct.
    const int vecs_per_row = (cols + 3) / 4;
    const int warps_per_row = min(WARPS, max(1, (vecs_per_row + 32 * VPT - 1) / (32 * VPT)));
    const int rows_per_block = WARPS / warps_per_row;
    const int group_threads = warps_per_row * 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int group = warp / warps_per_row;             // == rows_per_block: leftover warps
    const int t = threadIdx.x - group * group_threads;  // thread index inside the group
    const bool vectors_ok = ((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) &
                             (KL_PACK_BYTES - 1)) == 0;

    for (long long first_row = (long long)blockIdx.x * rows_per_block; first_row < rows;
         first_row += (long long)gridDim.x * rows_per_block) {  // uniform over the block
        const long long row = first_row + group;
        const bool active = group < rows_per_block && row < rows;

        const ELEM* x = in + (active ? row : 0) * (long long)cols;
        ELEM* y = out + (active ? row : 0) * (long long)cols;
        // Row layout: [0, head) scalar | head + [0, 4 * body_vecs) float4 | rest scalar.
        int head = cols, body_vecs = 0;
        if (vectors_ok) {
            const unsigned misalign = reinterpret_cast<unsigned long long>(x) & (KL_PACK_BYTES - 1u);
            head = min(cols, (int)(((KL_PACK_BYTES - misalign) & (KL_PACK_BYTES - 1u)) / sizeof(ELEM)));
            body_vecs = (cols - head) / 4;
        }
        const int tail = head + 4 * body_vecs;
        const ELEM* body_in = x + head;  // packets of 4 elements from here
        ELEM* body_out = y + head;

        // Pass 1a: the first VPT float4 of this thread's share go to registers.
        float4 v[VPT];
        float reg_max = NEG_INF;
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            const int i = k * group_threads + t;
            v[k] = (active && i < body_vecs) ? kl_load4(body_in, i) : make_float4(NEG_INF, NEG_INF, NEG_INF, NEG_INF);
            reg_max = fmaxf(reg_max, max4(v[k]));
        }
        const float reg_base = (reg_max == NEG_INF) ? 0.f : reg_max;
        float reg_sum = 0.f;
#pragma unroll
        for (int k = 0; k < VPT; ++k) {  // x -> exp(x - reg_max), kept
            v[k].x = fast_exp(v[k].x - reg_base);
            v[k].y = fast_exp(v[k].y - reg_base);
            v[k].z = fast_exp(v[k].z - reg_base);
            v[k].w = fast_exp(v[k].w - reg_base);
            reg_sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
        }
        MaxSum acc = {reg_max, reg_sum};

        // Pass 1b: what did not fit streams through the online update.
        if (active) {
            for (int i = VPT * group_threads + t; i < body_vecs; i += group_threads)
                acc = add_float4(acc, kl_load4(body_in, i));
            for (int c = t; c < head; c += group_threads) acc = add_element(acc, kl_to_float(x[c]));
            for (int c = tail + t; c < cols; c += group_threads) acc = add_element(acc, kl_to_float(x[c]));
        }

        // Combine the (max, sum) pairs: inside each warp, then across the group's warps
        // (lane w of every warp of the group takes warp w's pair; groups are whole warps, so
        // `active` is the same on all lanes of a warp and the shuffles are safe).
        acc = warp_combine(acc);
        if (warps_per_row > 1) {  // uniform: depends on cols only
            if (lane == 0) warp_stats[warp] = acc;
            __syncthreads();
            if (active)
                acc = warp_combine(lane < warps_per_row ? warp_stats[group * warps_per_row + lane]
                                                        : MaxSum{NEG_INF, 0.f});
            __syncthreads();  // warp_stats is reused next row
        }
        if (!active) continue;

        // Pass 2: write. Registers hold exp(x - reg_max); rescale to the row's max and sum.
        const float row_shift = (acc.m == NEG_INF) ? 0.f : acc.m;
        const float inv_sum = (acc.s > 0.f) ? 1.f / acc.s : 0.f;
        const float reg_scale = exp_below(reg_max, acc.m) * inv_sum;
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            const int i = k * group_threads + t;
            if (i < body_vecs)
                kl_store4(body_out, i,
                          make_float4(v[k].x * reg_scale, v[k].y * reg_scale, v[k].z * reg_scale, v[k].w * reg_scale));
        }
        for (int i = VPT * group_threads + t; i < body_vecs; i += group_threads) {
            const float4 q = kl_load4(body_in, i);  // second read: L2 if we are lucky
            kl_store4(body_out, i,
                      make_float4(fast_exp(q.x - row_shift) * inv_sum, fast_exp(q.y - row_shift) * inv_sum,
                                  fast_exp(q.z - row_shift) * inv_sum, fast_exp(q.w - row_shift) * inv_sum));
        }
        for (int c = t; c < head; c += group_threads)
            y[c] = kl_from_float<ELEM>(fast_exp(kl_to_float(x[c]) - row_shift) * inv_sum);
        for (int c = tail + t; c < cols; c += group_threads)
            y[c] = kl_from_float<ELEM>(fast_exp(kl_to_float(x[c]) - row_shift) * inv_sum);
    }
}
