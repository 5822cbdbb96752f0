// Dtype-generic vector loads and stores for the memory-bound ladders (elementwise, softmax):
// the same rung file serves fp32, bf16 and fp16 storage, with every value converted to float
// in registers (fp32 math whatever the storage).
//
// Two shapes:
//  - KlVec: one 16-byte access, KL_VEC elements (4 fp32 or 8 bf16/fp16). The widest load a
//    thread can issue; the element count changes with the dtype, so a rung's grid must count
//    vectors of 16 / esize elements (the manifest's `esize`).
//  - KlPack4: four elements in one access: 16 bytes in fp32 (a float4), 8 bytes in 16 bits.
//    For rungs whose geometry is written in groups of four elements (the softmax rungs sized
//    their registers and grids in float4): the layout stays the same in every dtype, and a
//    16-bit warp load covers 256 bytes instead of 512.
// Pointers must be aligned to the access size (16 bytes for KlVec, 4 * sizeof(ELEM) for
// KlPack4); the rungs check alignment and fall back to element loops where it fails.
#pragma once
#include "kl_common.cuh"

#define KL_VEC (16 / (int)sizeof(ELEM))  // elements per 16-byte vector
#define KL_PACK_BYTES (4 * (int)sizeof(ELEM))

struct KlVec {
    float f[KL_VEC];
};

union KlVecRaw {
    uint4 raw;
    ELEM e[KL_VEC];
};

__device__ __forceinline__ KlVec kl_vec_unpack(const KlVecRaw& r) {
    KlVec v;
#pragma unroll
    for (int k = 0; k < KL_VEC; ++k) v.f[k] = kl_to_float(r.e[k]);
    return v;
}

__device__ __forceinline__ KlVecRaw kl_vec_pack(const KlVec& v) {
    KlVecRaw r;
#pragma unroll
    for (int k = 0; k < KL_VEC; ++k) r.e[k] = kl_from_float<ELEM>(v.f[k]);
    return r;
}

// Vector i of p (elements i * KL_VEC ... + KL_VEC - 1); streaming (evict-first) variants for
// data touched once.
__device__ __forceinline__ KlVec kl_load_vec(const ELEM* p, long long i) {
    KlVecRaw r;
    r.raw = reinterpret_cast<const uint4*>(p)[i];
    return kl_vec_unpack(r);
}
__device__ __forceinline__ KlVec kl_load_vec_cs(const ELEM* p, long long i) {
    KlVecRaw r;
    r.raw = __ldcs(reinterpret_cast<const uint4*>(p) + i);
    return kl_vec_unpack(r);
}
__device__ __forceinline__ void kl_store_vec(ELEM* p, long long i, const KlVec& v) {
    reinterpret_cast<uint4*>(p)[i] = kl_vec_pack(v).raw;
}
__device__ __forceinline__ void kl_store_vec_cs(ELEM* p, long long i, const KlVec& v) {
    __stcs(reinterpret_cast<uint4*>(p) + i, kl_vec_pack(v).raw);
}

// [SECTION] four elements at a time, as a float4 in registers

template <int BYTES>
struct KlRawOf;
template <>
struct KlRawOf<8> {
    typedef uint2 type;
};
template <>
struct KlRawOf<16> {
    typedef uint4 type;
};
typedef KlRawOf<KL_PACK_BYTES>::type KlPack4Bits;  // uint4 in fp32, uint2 in 16 bits

union KlPack4Raw {
    KlPack4Bits raw;
    ELEM e[4];
};
__device__ __forceinline__ float4 kl_load4(const ELEM* p, long long i) {
    KlPack4Raw r;
    r.raw = reinterpret_cast<const KlPack4Bits*>(p)[i];
    return make_float4(kl_to_float(r.e[0]), kl_to_float(r.e[1]), kl_to_float(r.e[2]), kl_to_float(r.e[3]));
}
__device__ __forceinline__ void kl_store4(ELEM* p, long long i, float4 v) {
    KlPack4Raw r;
    r.e[0] = kl_from_float<ELEM>(v.x);
    r.e[1] = kl_from_float<ELEM>(v.y);
    r.e[2] = kl_from_float<ELEM>(v.z);
    r.e[3] = kl_from_float<ELEM>(v.w);
    reinterpret_cast<KlPack4Bits*>(p)[i] = r.raw;
}

// One element, as float.
__device__ __forceinline__ float kl_load1(const ELEM* p, long long i) { return kl_to_float(p[i]); }
__device__ __forceinline__ void kl_store1(ELEM* p, long long i, float v) { p[i] = kl_from_float<ELEM>(v); }
