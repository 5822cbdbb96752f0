// The two sides of the divergence ladder's branch: two different series, each `terms` steps of
// dependent arithmetic per element, so that a warp's time is its instruction issues and a branch
// that runs both sides costs their sum. Every rung calls exactly these, so all rungs give the
// same bits; the reference (reference.cu) sums the same series in closed form, in fp64.
#pragma once

// Even elements: sum_{k<terms} r^k with r = x/2, by Horner's rule (one FMA a term).
// |r| <= 1/2 for x in [-1, 1): the values lie in [2/3, 2).
__device__ __forceinline__ float kl_series_even(float x, int terms) {
    const float r = 0.5f * x;
    float v = 0.0f;
    for (int k = 0; k < terms; ++k) v = fmaf(v, r, 1.0f);
    return v;
}

// Odd elements: half of sum_{k<terms} q^k with q = -x^2/2, as a running power (a multiply and
// an add a term: another instruction stream than the even side's). Values in (1/3, 1/2]: no odd
// element can pass for an even one, so a rung that sends an element down the wrong side fails.
__device__ __forceinline__ float kl_series_odd(float x, int terms) {
    const float q = -0.5f * x * x;
    float s = 0.0f, t = 1.0f;
    for (int k = 0; k < terms; ++k) {
        s = s + t;
        t = t * q;
    }
    return 0.5f * s;
}
