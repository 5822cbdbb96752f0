#include "gpu/triton_launch.h"

#include "gpu/gpu_context.h"
#include "gpu/kernel_cache.h"
#include "model/operation.h"

namespace kl {

TritonKernel load_triton_kernel(GpuContext& gpu, const ResolvedRun& run, const LaunchSpec& spec, const Scope& scope,
                                dim3 grid) {
    const Rung& rung = *run.rung;
    // Pointer types from the buffers the arguments name: the problem's, then the rung's scratch.
    std::map<std::string, DType> dtypes;
    for (const auto& b : find_operation(rung.operation)->buffers(run.problem)) dtypes[b.name] = b.dtype;
    for (const auto& s : rung.scratch) dtypes[s.name] = s.dtype ? *s.dtype : run.problem.dtype;
    const DeviceInfo& dev = gpu.device();
    const std::string label = run.ladder->id + "/" + rung.id;
    TritonCompileRequest req = triton_request(rung, spec, run.params, scope, dtypes, dev.cc(), label);
    TritonCompiled compiled = compile_triton(req);
    TritonKernel k;
    k.kernel = gpu.kernels().get_code("triton:" + compiled.cache_key, compiled.cubin, compiled.name, label);
    k.shape = triton_launch_shape(compiled, grid);
    k.triton_version = compiled.triton_version;
    return k;
}

}  // namespace kl
