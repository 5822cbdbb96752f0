// `kladder trace` on a GPU (issue 39's address view): the rung's kernel, compiled by NVRTC to PTX
// at the run's parameters, instrumented (model/ptx_instrument.h), loaded, and launched once with
// the rung's own inputs, arguments and launch shape; the one warp's records come back as an
// AddressTrace (model/address_trace.h). Launches before the traced one run once each (a
// `repeat` is not repeated), as they are: they may make its inputs. Launches after it do not
// run. Nothing is timed or checked.
#pragma once
#include <array>
#include <cstdint>

#include "model/address_trace.h"
#include "model/run_plan.h"

namespace kl {

class GpuContext;

struct TraceRequest {
    std::array<int64_t, 3> block = {0, 0, 0};  // which block
    int warp = 0;                              // which warp of it (linear thread index / 32)
    int launch = 0;                            // which of the rung's kernel launches (0: the first)
    uint32_t capacity = 1u << 16;              // records kept; the rest are dropped and counted
};

// Throws InputError (a Triton rung, a TMA argument, a block or warp outside the launch, no such
// launch), CompileError, GpuError. `run` must be bound to this GPU (bind_to_device).
AddressTrace trace_addresses(GpuContext& gpu, const ResolvedRun& run, const TraceRequest& req);

}  // namespace kl
