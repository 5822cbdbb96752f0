#include "model/dtype.h"

#include <cmath>
#include <cstring>

namespace kl {

std::string to_string(DType t) {
    switch (t) {
        case DType::F32: return "fp32";
        case DType::BF16: return "bf16";
        case DType::F16: return "fp16";
        case DType::E4M3: return "fp8e4m3";
    }
    return "?";
}

std::optional<DType> parse_dtype(const std::string& s) {
    if (s == "fp32" || s == "f32" || s == "float") return DType::F32;
    if (s == "bf16") return DType::BF16;
    if (s == "fp16" || s == "f16" || s == "half") return DType::F16;
    if (s == "fp8e4m3" || s == "e4m3" || s == "fp8") return DType::E4M3;
    return std::nullopt;
}

int dtype_size(DType t) { return t == DType::F32 ? 4 : t == DType::E4M3 ? 1 : 2; }

std::string dtype_cuda_name(DType t) {
    switch (t) {
        case DType::F32: return "float";
        case DType::BF16: return "__nv_bfloat16";
        case DType::F16: return "__half";
        case DType::E4M3: return "__nv_fp8_e4m3";
    }
    return "float";
}

std::string dtype_macro(DType t) {
    switch (t) {
        case DType::F32: return "ELEM_IS_FP32";
        case DType::BF16: return "ELEM_IS_BF16";
        case DType::F16: return "ELEM_IS_FP16";
        case DType::E4M3: return "ELEM_IS_FP8E4M3";
    }
    return "ELEM_IS_FP32";
}

float dtype_epsilon(DType t) {
    switch (t) {
        case DType::F32: return std::ldexp(1.0f, -24);
        case DType::BF16: return std::ldexp(1.0f, -8);
        case DType::F16: return std::ldexp(1.0f, -11);
        case DType::E4M3: return std::ldexp(1.0f, -4);
    }
    return 0;
}

uint16_t float_to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (std::isnan(f)) return 0x7fc0;
    u += 0x7fff + ((u >> 16) & 1);  // round to nearest even
    return static_cast<uint16_t>(u >> 16);
}

float bf16_to_float(uint16_t b) {
    uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t float_to_half(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffff;
    if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
    if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00);
    if (exp <= 0) {
        if (exp < -10) return static_cast<uint16_t>(sign);
        mant |= 0x800000;
        uint32_t shift = static_cast<uint32_t>(14 - exp);
        uint32_t half_mant = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half_mant & 1))) ++half_mant;
        return static_cast<uint16_t>(sign | half_mant);
    }
    uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
    return static_cast<uint16_t>(h);
}

float half_to_float(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float f;
    if (exp == 0) {
        f = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -f : f;
    }
    uint32_t u = exp == 31 ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp - 15 + 127) << 23) | (mant << 13));
    std::memcpy(&f, &u, 4);
    return f;
}

float e4m3_to_float(uint8_t b) {
    const int exp = (b >> 3) & 0xF, mant = b & 7;
    if (exp == 15 && mant == 7) return std::nanf("");
    const float mag = exp == 0 ? std::ldexp(float(mant), -9) : std::ldexp(1.0f + float(mant) / 8, exp - 7);
    return (b & 0x80) ? -mag : mag;
}

uint8_t float_to_e4m3(float f) {
    if (std::isnan(f)) return 0x7F;
    const uint8_t sign = std::signbit(f) ? 0x80 : 0;
    const float a = std::fabs(f);
    if (a >= 448.0f) return sign | 0x7E;  // satfinite: the largest finite value
    if (a < std::ldexp(1.0f, -6)) {       // subnormal: multiples of 2^-9 (8 of them reach 2^-6)
        return sign | static_cast<uint8_t>(std::nearbyint(std::ldexp(a, 9)));
    }
    int e = 0;
    const float m = std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
    int exp = e - 1 + 7;
    int q = static_cast<int>(std::nearbyint((2 * m - 1) * 8));  // ties to even (default rounding mode)
    if (q == 8) q = 0, ++exp;
    const int code = (exp << 3) | q;
    return sign | static_cast<uint8_t>(code > 0x7E ? 0x7E : code);
}

}  // namespace kl
