// 16-byte loads and stores with an L2 eviction policy (rung 7 of the layernorm ladder).
//
// Codes, as rung 7's parameters name them:
//   loads  0: ld.global.cs, evict first (rung 4's x and r)       1: ld.global.nc, normal
//          2: ld.global.nc with an L2::evict_first cache policy
//   stores 0: st.global, write-back, normal (rung 4's s)          1: st.global.cs, streaming (rung 4's y)
//          2: st.global with an L2::evict_last cache policy       3: with an L2::evict_first policy
// A cache policy is a 64-bit value made by `createpolicy`; fraction 1.0 applies it to every line
// the instruction touches. Policies are hints: they change which lines L2 evicts first, never what
// a load returns or what memory holds once the kernel ends.
#pragma once

template <int P>
__device__ __forceinline__ uint4 ln_ld16(const uint4* p) {
    static_assert(P >= 0 && P <= 2, "load policy 0..2");
    if constexpr (P == 0) {
        return __ldcs(p);
    } else if constexpr (P == 1) {
        return __ldg(p);
    } else {
        unsigned long long pol;
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        uint4 v;
        asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p), "l"(pol));
        return v;
    }
}

template <int P>
__device__ __forceinline__ void ln_st16(uint4* p, uint4 v) {
    static_assert(P >= 0 && P <= 3, "store policy 0..3");
    if constexpr (P == 0) {
        *p = v;
    } else if constexpr (P == 1) {
        __stcs(p, v);
    } else {
        unsigned long long pol;
        if constexpr (P == 2)
            asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
        else
            asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                     "r"(v.w), "l"(pol)
                     : "memory");
    }
}
