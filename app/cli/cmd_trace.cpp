// `kladder trace LADDER RUNG [-p K=V] [-s axis=N] [--block X[,Y[,Z]]] [--warp W] [--json FILE]`:
// the address view of issue 39. The rung's kernel at these parameters, instrumented
// (model/ptx_instrument.h) and launched once on the GPU with the rung's own inputs and launch
// shape: for one warp, each load and store to global and shared memory, the address of every
// lane, the 32-byte sectors the warp-level access touches against the fewest that could hold its
// bytes, and for shared memory each lane's bank and the access's conflict degree. --json writes
// the trace (docs/formats.md, "Address traces"), which the window's address view shows as a
// recording of this GPU on this day. Without a GPU: one line, exit 3.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/printable.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "gpu/address_trace_run.h"
#include "gpu/gpu_context.h"
#include "model/dtype.h"
#include "model/manifest.h"
#include "model/run_plan.h"

namespace kl::cli {

namespace {
struct TraceOptions {
    std::string ladder, rung, dtype, block = "0", json_path;
    std::vector<std::string> params, sizes;
    int warp = 0, launch = 0;
    int64_t capacity = 1 << 16;
};

std::array<int64_t, 3> parse_block_index(const std::string& text) {
    std::array<int64_t, 3> b = {0, 0, 0};
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
        const size_t comma = text.find(',', start);
        b[i] = parse_integer(text.substr(start, comma - start), "--block");
        if (b[i] < 0) throw InputError("--block: '" + text + "' has a negative index");
        if (comma == std::string::npos) return b;
        start = comma + 1;
    }
    throw InputError("--block: '" + text + "' has more than three indices (x,y,z)");
}

int trace_command(const TraceOptions& opt) {
    auto ladders = load_ladders_or_throw();
    const Ladder& L = find_ladder_or_throw(ladders, opt.ladder);
    const Rung* r = L.find_rung(opt.rung);
    if (!r) throw InputError("ladder " + L.id + " has no rung '" + opt.rung + "'");
    RunOptions ro;
    ro.sizes = parse_assignments(opt.sizes, "--size");
    ro.params = parse_assignments(opt.params, "--param");
    if (!opt.dtype.empty()) {
        auto d = parse_dtype(opt.dtype);
        if (!d) throw InputError("--dtype: unknown dtype '" + opt.dtype + "' (fp32, bf16, fp16)");
        ro.dtype = *d;
    }
    TraceRequest req;
    req.block = parse_block_index(opt.block);
    req.warp = opt.warp;
    req.launch = opt.launch;
    req.capacity = static_cast<uint32_t>(opt.capacity);
    resolve_run(L, *r, ro, 0);  // bad sizes, parameters and constraints are refused before the GPU is opened
    GpuContext gpu;             // throws GpuError "no CUDA GPU found on this machine" -> exit 3
    ResolvedRun run = resolve_run(L, *r, ro, gpu.device().sm_count);
    bind_to_device(run, gpu.device().sm_count, gpu.device().limits);
    const AddressTrace t = trace_addresses(gpu, run, req);
    const std::string text = printable_lines(address_trace_text(t));
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (!opt.json_path.empty()) {
        write_file_atomically(opt.json_path, address_trace_json(t));
        std::printf("trace written to %s\n", printable(opt.json_path).c_str());
    }
    return 0;
}
}  // namespace

Action add_trace_command(CLI::App& app) {
    auto opt = std::make_shared<TraceOptions>();
    app.add_option("ladder", opt->ladder, "ladder id (see `kladder list ladders`)")->required();
    app.add_option("rung", opt->rung, "rung id")->required();
    app.add_option("-p,--param", opt->params, "rung parameter, e.g. --param TILE=32 (repeatable)");
    app.add_option("-s,--size", opt->sizes, "problem size, e.g. --size rows=1024 (repeatable)");
    app.add_option("--dtype", opt->dtype, "element type: fp32, bf16 or fp16 (default: the rung's first)");
    app.add_option("--block", opt->block, "the traced block: x or x,y or x,y,z (default 0)");
    app.add_option("--warp", opt->warp, "the traced warp of that block (linear thread index / 32, default 0)")
        ->check(CLI::Range(0, 31));
    app.add_option("--launch", opt->launch, "which of the rung's kernel launches (default 0, the first)")
        ->check(CLI::Range(0, 64));
    app.add_option("--max-records", opt->capacity, "records kept (default 65536; the rest are counted as dropped)")
        ->check(CLI::Range(1, 1 << 24));
    app.add_option("--json", opt->json_path, "write the trace to this file (docs/formats.md, Address traces)");
    return [opt] { return trace_command(*opt); };
}

}  // namespace kl::cli
