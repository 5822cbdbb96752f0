// Element types a problem can be stored in, and how NVRTC sees them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace kl {

// E4M3: fp8 with 4 exponent and 3 mantissa bits (max 448, NaN 0x7F/0xFF, no infinity), for the
// fp8 GEMM of the matmul ladder (per-tensor scales live in the operation, not in the type).
enum class DType { F32, BF16, F16, E4M3 };

std::string to_string(DType t);  // "fp32", "bf16", "fp16", "fp8e4m3"
std::optional<DType> parse_dtype(const std::string& s);
int dtype_size(DType t);               // bytes per element
std::string dtype_cuda_name(DType t);  // "float", "__nv_bfloat16", "__half"
std::string dtype_macro(DType t);      // "ELEM_IS_FP32", ...
float dtype_epsilon(DType t);          // unit roundoff of the storage format

// Conversions between float and the 16-bit formats on the host (round to nearest even).
uint16_t float_to_bf16(float f);
float bf16_to_float(uint16_t b);
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
// fp8 e4m3 (round to nearest even, saturating to +-448 as cvt.satfinite does; NaN stays NaN).
uint8_t float_to_e4m3(float f);
float e4m3_to_float(uint8_t b);

}  // namespace kl
