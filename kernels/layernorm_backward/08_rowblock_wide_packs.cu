// Rung 8 (a lab rung: measured slower than rung 7, kept to show it loses): rung 7 with a pack of
// 16 bytes in every dtype: 4 elements in fp32 (as before), 8 in bf16 and fp16.
//
// What changes from rung 7: only the pack. Rung 7 moves a row in packs of 4 elements whatever
// the dtype, so a 16-bit pack is 8 bytes: half a copy's width, for the same instructions. Here
// LNB_WIDE makes the pack 16 / esize elements (kl_vec.cuh's KlVec), everywhere the rung touches a
// row: the cp.async copy ahead (16 bytes, L2 only), the read from shared memory, the dx store,
// gamma, and the columns whose sums a thread keeps. The rest is rung 7's file, included.
// Why it should be faster (in 16 bits): Nsight Compute shows rung 7 in bf16 issue-bound, 48
// instructions an element where the arithmetic needs about 17; the rest is per-row work (about
// 300 instructions a thread a row: each pack's copy ahead, the block reduction, the row's
// statistics) spread over the 8 elements a thread owns at 512 threads. With 8-element packs a
// thread owns twice the elements for the same per-pack work: at 256 threads a bf16 row of 4,096
// costs half the per-row instructions per element. (In fp32 a pack is rung 7's already; only the
// defaults differ.)
// What to see: at the defaults (512 threads, EPT 8, as rung 7's 512 x 2 packs of 4) bf16 moves
// each array's share of a row in one 16-byte copy instead of two 8-byte ones, with the same
// registers (64: BPS blocks an SM are asked of ptxas); fp32 is rung 7. Measured on the H200
// (bf16, tuned): 17% fewer instructions than rung 7 and 7% slower: the wider pack's registers
// spill 16 bytes at 64, and the stalls move to the long and short scoreboards (local and shared
// memory). At EPT 16 (256 threads, 120-128 registers, half the warps) it loses more: the
// instructions fall 34% and latency takes over. `--counters` shows both.
// What it needs: as rung 7 (sm_80, cp.async; the statistics the forward saved), and
// cols <= TPB * EPT (the manifest checks); 16-byte-aligned rows for the pack path.
#include "kl_vec.cuh"
#define LNB_WIDE 1  // a pack is 16 bytes: KL_VEC elements (lnb_rowblock.cuh)
// The parameter is the elements a thread holds (its registers), the same in every dtype; the packs
// follow from it: EPT / 4 in fp32, EPT / 8 in 16 bits.
static_assert(EPT % KL_VEC == 0, "EPT: a whole number of 16-byte packs");
#define MAXP (EPT / KL_VEC)
// BPS blocks an SM (up to the SM's 2,048 threads): at 512 threads and EPT 8, 64 registers, as
// rung 7 has, so that the comparison changes the pack and nothing else.
#define LNB_MIN_BLOCKS ((BPS) * (TPB) <= 2048 ? (BPS) : 2048 / (TPB))
#include "07_rowblock_pipelined.cu"
