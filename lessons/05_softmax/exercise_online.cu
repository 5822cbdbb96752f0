// Exercise: an online-softmax row, from an empty body (lesson 5, step 12).
//
// y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r) for each row r of a rows x cols
// fp32 matrix (row-major; `in` is x, `out` is y), with the row's maximum and sum found in ONE
// pass over it (a running maximum m and a running sum s of exp(x - m), rescaled by exp(m - m')
// whenever the maximum grows to m'), then a second pass that writes the output: two reads of
// each row instead of three.
//
// How it is launched (the online rung's launch; TPB and UNROLL arrive as macros, 256 and 4
// unless changed; UNROLL is yours to use or ignore):
//   grid  = rows                one block per row: block r owns row r
//   block = TPB                 a multiple of 32, 32..1024; rows are long (65,536 at the main size)
// What you may assume: rows, cols >= 1; nothing about cols being a multiple of anything.
// Defined results: a row whose maximum is -inf (every value -inf, NaN aside) gives all zeros.
// Otherwise a NaN anywhere in a row makes the whole row NaN, and so does a +inf (exp(inf - inf)
// is NaN), as the three-pass formula gives: take care that your running update does not turn
// these into something finite.
// The hidden checks run odd shapes (37 x 1000, 3 x 100003, 1 x 1 and the main size less one on
// each axis), poison `out` with NaN before every run, plant NaN and Inf in `in`, and compare `in`
// byte for byte after the last run.
// The goal: correct everywhere, and faster than warp_shuffle (three passes over each row) on
// this GPU, at rows of 65,536 floats: there the saved pass is a saved DRAM read.
#include "kl_common.cuh"

extern "C" __global__ void softmax_online(ELEM* __restrict__ out, const ELEM* __restrict__ in, int rows, int cols) {
    // TODO: pass 1, the running (max, sum) of each thread, combined across the block; pass 2,
    // the output. As it stands nothing is written: the check sees the NaN poison.
}
