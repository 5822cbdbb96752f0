// The GPU half of Triton rungs (the contract is in triton_rung.h): compile one launch of a
// resolved Triton rung through the helper (cached), load its cubin with the same loader as NVRTC
// output (cudaLibraryLoadData), and say how to launch it.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "model/run_plan.h"
#include "model/triton_rung.h"

namespace kl {

class GpuContext;

struct TritonKernel {
    cudaKernel_t kernel = nullptr;
    TritonLaunchShape shape;
    std::string triton_version;
};

// Throws InputError (no Triton: its one line), CompileError (the helper's one line), GpuError.
TritonKernel load_triton_kernel(GpuContext& gpu, const ResolvedRun& run, const LaunchSpec& spec, const Scope& scope,
                                dim3 grid);

}  // namespace kl
