// The roof, measured by you: out = in for a rows x cols fp32 matrix, written from an empty body.
//
// The workbook compiles this file with the copy_row_walk rung's parameters as macros (TPB threads
// per block, EPT rows each thread copies) and launches it on a grid of cdiv(cols, TPB) x
// min(cdiv(rows, EPT), 65535) blocks of TPB threads. Fill in the body: every element of `out`
// must be written (the check poisons `out` with NaN first, so an element you miss is caught), at
// odd shapes too (37 x 1000 and 1 x 4099 are checked every time), and `in` must not change.
// Then make it fast: neighbouring threads should touch neighbouring addresses, and each thread
// should have several loads in flight before its first store.
#ifndef TPB
#define TPB 256
#endif
#ifndef EPT
#define EPT 4
#endif

extern "C" __global__ void __launch_bounds__(TPB)
    copy_row_walk(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
    // TODO: this block's threads cover columns blockIdx.x * TPB .. + TPB - 1, and rows in groups of
    // EPT starting at blockIdx.y * EPT; gridDim.y may be smaller than rows / EPT (it stops at 65535).
}
