// Element types a problem can be stored in, and how NVRTC sees them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace kl {

enum class DType { F32, BF16, F16 };

std::string to_string(DType t);  // "fp32", "bf16", "fp16"
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

}  // namespace kl
