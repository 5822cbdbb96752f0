// Before a rung's kernel launches: read what the loaded kernel uses (registers, static shared
// memory, spills, its own thread limit), refuse a launch the device cannot run in one line that
// teaches (occupancy.h's launch_refusal), opt into more than 48 KB of dynamic shared memory
// where the device allows it, and compute the theoretical occupancy, cross-checked with the
// runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor.
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "model/launch_geometry.h"  // shrink_advice
#include "model/manifest.h"
#include "model/results.h"

namespace kl {

// Throws InputError "<label>: cannot launch: <resource>: ..." for a launch that cannot run;
// what to change is worked out in `scope` (the run's sizes and parameters: shrink_advice).
LaunchResources prepare_launch(const DeviceInfo& device, cudaKernel_t kernel, const Rung& rung, const LaunchSpec& spec,
                               dim3 grid, dim3 block, int64_t dynamic_smem, const std::string& label,
                               const Scope& scope);

}  // namespace kl
