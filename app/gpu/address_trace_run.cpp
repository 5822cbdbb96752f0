#include "gpu/address_trace_run.h"
#include "gpu/runner.h"

#include <cstring>

#include "base/errors.h"
#include "gpu/compiler.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_context.h"
#include "gpu/kernel_cache.h"
#include "gpu/launch_resources.h"
#include "model/dtype.h"
#include "model/launch_geometry.h"
#include "model/operation.h"
#include "model/results.h"

namespace kl {

namespace {

constexpr const char* kTraceBufferName = "kl_address_trace";

std::vector<KernelArg> traced_launch_args(GpuContext& gpu, const LaunchSpec& spec, const Scope& scope,
                                          const std::string& label) {
    std::vector<KernelArg> args;
    for (const auto& a : spec.args) {
        if (a.kind == ArgSpec::Kind::Buffer)
            args.push_back(KernelArg::pointer(gpu.buffer(a.buffer).data()));
        else if (a.kind == ArgSpec::Kind::TensorMap)
            throw InputError(label + ": launch " + spec.entry + " takes a TMA tensor map: TMA copies are not traced");
        else
            args.push_back(manifest_scalar_arg(a, scope, label));
    }
    return args;
}

// The problem's buffers with the runner's inputs (same seed, same values), and zeroed scratch.
void prepare_traced_buffers(GpuContext& gpu, const ResolvedRun& run, const Operation& op) {
    gpu.clear_buffers();
    for (const auto& b : op.buffers(run.problem)) gpu.add_buffer(b.name, b.dtype, b.elements);
    op.make_inputs(run.problem, gpu, run.options.seed);
    for (const auto& s : run.rung->scratch) {
        DeviceBuffer& b = gpu.add_buffer(s.name, s.dtype ? *s.dtype : run.problem.dtype,
                                         std::max<int64_t>(s.elements.eval(run.scope), 1));
        KL_CUDA_CALL(cudaMemsetAsync(b.data(), 0, b.bytes(), gpu.stream()));
    }
}

void check_traced_target(const LaunchGeometry& g, const TraceRequest& req, const std::string& label) {
    for (int i = 0; i < 3; ++i)
        if (req.block[i] < 0 || req.block[i] >= g.grid[i])
            throw InputError(label + ": --block " + std::to_string(req.block[0]) + "," + std::to_string(req.block[1]) +
                             "," + std::to_string(req.block[2]) + " is outside the grid (" + std::to_string(g.grid[0]) +
                             ", " + std::to_string(g.grid[1]) + ", " + std::to_string(g.grid[2]) + ")");
    const int64_t warps = (g.threads() + 31) / 32;
    if (req.warp < 0 || req.warp >= warps)
        throw InputError(label + ": --warp " + std::to_string(req.warp) + ": a block of " +
                         std::to_string(g.threads()) + " threads has warps 0.." + std::to_string(warps - 1));
}

std::vector<TraceRecord> read_trace_records(GpuContext& gpu, DeviceBuffer& buf, uint32_t capacity, uint64_t* total) {
    const auto header = gpu.download_bytes(buf, 0, kTraceHeaderBytes);
    uint32_t appended = 0;
    std::memcpy(&appended, header.data(), 4);
    *total = appended;
    const uint32_t kept = std::min(appended, capacity);
    const auto bytes =
        gpu.download_bytes(buf, kTraceHeaderBytes, static_cast<size_t>(kept) * static_cast<size_t>(kTraceRecordBytes));
    std::vector<TraceRecord> recs(kept);
    for (uint32_t i = 0; i < kept; ++i) {
        const unsigned char* p = bytes.data() + static_cast<size_t>(i) * kTraceRecordBytes;
        std::memcpy(&recs[i].address, p, 8);
        std::memcpy(&recs[i].site, p + 8, 4);
        std::memcpy(&recs[i].lane_seq, p + 12, 4);
    }
    return recs;
}

}  // namespace

AddressTrace trace_addresses(GpuContext& gpu, const ResolvedRun& run, const TraceRequest& req) {
    const Rung& rung = *run.rung;
    const std::string label = run.ladder->id + "/" + rung.id;
    if (rung.is_triton()) throw InputError(label + " is a Triton rung: its PTX is Triton's, and is not traced");
    if (rung.source_path.empty()) throw InputError(label + " calls a library routine: it has no kernel to trace");
    const Operation* op = find_operation(rung.operation);
    std::vector<const LaunchGeometry*> kernels;
    for (const auto& g : run.geometry)
        if (g.spec->builtin.empty()) kernels.push_back(&g);
    if (req.launch < 0 || req.launch >= static_cast<int>(kernels.size()))
        throw InputError(label + ": --launch " + std::to_string(req.launch) + ": the rung has " +
                         std::to_string(kernels.size()) + " kernel launch(es) at these sizes");
    const LaunchGeometry& traced = *kernels[req.launch];
    check_traced_target(traced, req, label);

    CompileRequest creq;
    creq.source_path = rung.source_path;
    creq.defines = compile_defines(rung, run.params, run.problem.dtype);
    creq.arch = rung_arch(rung, gpu.device().arch());
    creq.output = CompileRequest::Output::Ptx;
    creq.label = label;
    const CompiledCode ptx = compile_kernel(creq);
    const InstrumentedPtx inst = instrument_ptx(ptx.code);

    prepare_traced_buffers(gpu, run, *op);
    const uint32_t cap = req.capacity;
    DeviceBuffer& tbuf =
        gpu.add_buffer(kTraceBufferName, DType::F32, (kTraceHeaderBytes + int64_t(cap) * kTraceRecordBytes) / 4);
    std::vector<unsigned char> header(kTraceHeaderBytes, 0);
    const uint32_t words[8] = {0,
                               cap,
                               0,
                               0,
                               static_cast<uint32_t>(req.block[0]),
                               static_cast<uint32_t>(req.block[1]),
                               static_cast<uint32_t>(req.block[2]),
                               static_cast<uint32_t>(req.warp)};
    std::memcpy(header.data(), words, sizeof words);
    gpu.upload_bytes(tbuf, 0, header);

    // Launches before the traced one run once each, as they are (they may make its inputs):
    // kernels from the runner's cubin, library routines through the builtins.
    int kernel_index = 0;
    for (const LaunchSpec* spec : applicable_launches(rung, run.scope)) {
        std::vector<KernelArg> args = traced_launch_args(gpu, *spec, run.scope, label);
        if (!spec->builtin.empty()) {
            gpu.run_builtin(spec->builtin, args);
            continue;
        }
        const LaunchGeometry& g = *kernels[kernel_index];
        const bool is_traced = kernel_index++ == req.launch;
        const dim3 grid(unsigned(g.grid[0]), unsigned(g.grid[1]), unsigned(g.grid[2]));
        const dim3 block(unsigned(g.block[0]), unsigned(g.block[1]), unsigned(g.block[2]));
        cudaKernel_t k = nullptr;
        if (is_traced) {
            k = gpu.kernels().get_code("trace|" + ptx.cache_key, inst.ptx, spec->entry, label + " (traced)");
            args.push_back(KernelArg::pointer(tbuf.data()));
        } else {
            CompileRequest cubin = creq;
            cubin.output = CompileRequest::Output::Cubin;
            k = gpu.kernels().get(cubin, spec->entry);
        }
        prepare_launch(gpu.device(), k, rung, *spec, grid, block, g.dynamic_smem, label, run.scope);
        gpu.launch_kernel(k, label + " " + spec->entry, grid, block, std::move(args), size_t(g.dynamic_smem));
        if (is_traced) break;
    }
    gpu.synchronize();

    AddressTrace t;
    t.ladder = run.ladder->id;
    t.rung = rung.id;
    t.entry = traced.spec->entry;
    t.dtype = to_string(run.problem.dtype);
    t.params = run.params;
    t.sizes = run.problem.sizes;
    t.block = req.block;
    t.warp = req.warp;
    for (int i = 0; i < 3; ++i) {
        t.grid[i] = traced.grid[i];
        t.block_dim[i] = traced.block[i];
    }
    t.device = gpu.device().name;
    t.date = iso_now_utc();
    t.sites = inst.sites;  // numbered over the whole module, as the records name them
    t.not_traced = inst.not_traced;
    const std::vector<TraceRecord> recs = read_trace_records(gpu, tbuf, cap, &t.records);
    gpu.remove_buffer(kTraceBufferName);
    t.dropped = t.records > cap ? t.records - cap : 0;
    t.accesses = group_warp_accesses(recs, t.sites);
    return t;
}

}  // namespace kl
