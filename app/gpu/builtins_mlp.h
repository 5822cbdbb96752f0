// Library routines of the mlp ladder (kernels/mlp/) and its reference rungs: cuBLAS GEMMs with a
// bf16 output or on a column slice, and cuBLASLt's GEMM with the GELU epilogue; and of the matmul
// ladder's fp8 rungs: cuBLASLt's fp8 (e4m3) GEMM with per-tensor scales, and its fp32 reference. builtins.cpp
// lists them with the others; arguments arrive resolved, in manifest order.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gpu/routine_target.h"
#include "model/op_context.h"

namespace kl {

using BuiltinRoutine = std::function<void(const std::string&, const std::vector<KernelArg>&, const RoutineTarget&)>;

// name -> routine, merged into builtins.cpp's table.
const std::map<std::string, BuiltinRoutine>& mlp_builtins();

}  // namespace kl
