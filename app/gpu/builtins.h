// Library routines a manifest launch can name with `builtin = "..."`: the cuBLAS references
// of the matmul ladder and the GEMM steps of naive attention. Arguments arrive resolved
// (device pointers and integers) in manifest order; each routine documents its order.
#pragma once
#include <string>
#include <vector>

#include "gpu/routine_target.h"
#include "model/op_context.h"

namespace kl {

bool is_builtin(const std::string& name);
std::vector<std::string> builtin_names();
// Throws InputError on a wrong argument list, GpuError on a cuBLAS failure.
void run_builtin(const std::string& name, const std::vector<KernelArg>& args, const RoutineTarget& gpu);

}  // namespace kl
