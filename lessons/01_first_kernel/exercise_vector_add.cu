// Your first rung: vector add, c = a + b, written by you.
//
// The workbook compiles this file with the parameters of the vector_add rung as macros (TPB
// threads per block, EPT elements per thread, ELEM the element type) and launches it with
// cdiv(n, TPB * EPT) blocks of TPB threads. Fill in the body: every element i < n of c must be
// written (the check poisons c with NaN first, so an element you miss is caught), at odd sizes
// too (n = 1000003, 4097, 33 are checked every time). Then make it fast: neighbouring threads
// should touch neighbouring elements.
#include "kl_common.cuh"

extern "C" __global__ void vector_add(ELEM* __restrict__ c, const ELEM* __restrict__ a, const ELEM* __restrict__ b,
                                      long long n) {
    // TODO: this block covers TPB * EPT consecutive elements starting at blockIdx.x * TPB * EPT.
    // kl_to_float(a[i]) reads an element as float; kl_from_float<ELEM>(v) writes one back.
}
