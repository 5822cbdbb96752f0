// `kladder ptx LADDER --rung R [-p K=V ...] [--dtype D] [--arch sm_90]`: the PTX NVRTC makes of a
// rung at those parameters, on standard output (no GPU needed); R may be one of the learner's
// rungs in the workspace. The window's PTX view runs this
// as a child process, so the window itself links no CUDA library (not even NVRTC). A rung that
// does not compile is exit 2 with NVRTC's message and log on standard error. For a Triton rung
// the PTX (or, with --stage ttgir, the TritonGPU IR) is Triton's, through the Triton helper
// (triton_rung.h) at the ladder's default sizes; without Triton, exit 2 with what to install.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/errors.h"
#include "base/printable.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "gpu/compiler.h"
#include "model/device_profile.h"
#include "model/dtype.h"
#include "model/manifest.h"
#include "model/operation.h"
#include "model/run_plan.h"
#include "model/triton_rung.h"
#include "model/workspace.h"

namespace kl::cli {

namespace {
struct PtxOptions {
    std::string ladder, rung, dtype, arch = "sm_90", stage = "ptx";
    std::vector<std::string> params;
};

// Triton's PTX or TTGIR of the first launch that applies at the ladder's default sizes.
int print_triton_ptx(const PtxOptions& opt, const Ladder& L, const Rung& r, DType dtype, int cc) {
    RunOptions ro;
    ro.dtype = dtype;
    const Problem p = resolve_problem(L, r, ro);
    const ParamValues pv = resolve_params(r, parse_assignments(opt.params, "--param"));
    const Scope scope = make_scope(p.sizes, pv, dtype, 0);
    check_constraints(r, scope);
    std::map<std::string, DType> dtypes;
    for (const auto& b : find_operation(r.operation)->buffers(p)) dtypes[b.name] = b.dtype;
    for (const auto& s : r.scratch) dtypes[s.name] = s.dtype ? *s.dtype : dtype;
    const std::string label = L.id + "/" + r.id;
    try {
        TritonCompiled c =
            compile_triton(triton_request(r, *applicable_launches(r, scope).front(), pv, scope, dtypes, cc, label));
        const std::string text = printable_lines(opt.stage == "ttgir" ? c.ttgir : c.ptx);
        std::fwrite(text.data(), 1, text.size(), stdout);
        return 0;
    } catch (const CompileError& e) {
        std::fprintf(stderr, "%s\n%s\n", printable(e.what(), kMessageChars).c_str(), printable_lines(e.log()).c_str());
        return static_cast<int>(ExitCode::BadInput);
    }
}

int print_ptx(const PtxOptions& opt) {
    auto ladders = load_ladders_or_throw();
    Ladder L = find_ladder_or_throw(ladders, opt.ladder);
    std::string workspace_error;  // a learner's rung comes from the workspace (model/workspace.h)
    if (!L.find_rung(opt.rung)) merge_learner_rungs(L, workspace_root(), &workspace_error);
    const Rung* r = L.find_rung(opt.rung);
    if (!r && !workspace_error.empty()) throw InputError(workspace_error);
    if (!r) throw InputError("ladder " + L.id + " has no rung '" + opt.rung + "' (nor has your workspace)");
    if (r->source_path.empty()) throw InputError(L.id + "/" + r->id + " calls a library routine: it has no PTX");
    ArchName an = parse_arch(opt.arch);
    if (an.cc < 50) throw InputError("--arch: '" + opt.arch + "' is not a target such as sm_90");
    DType dtype = DType::F32;
    if (!opt.dtype.empty()) {
        auto d = parse_dtype(opt.dtype);
        if (!d) throw InputError("--dtype: unknown dtype '" + opt.dtype + "' (fp32, bf16, fp16)");
        dtype = *d;
    }
    if (opt.stage != "ptx" && opt.stage != "ttgir") throw InputError("--stage: '" + opt.stage + "' (ptx or ttgir)");
    if (r->is_triton()) {
        if (opt.dtype.empty()) dtype = r->dtypes.front();
        return print_triton_ptx(opt, L, *r, dtype, an.cc);
    }
    if (opt.stage != "ptx") throw InputError("--stage ttgir: " + L.id + "/" + r->id + " is a CUDA rung (PTX only)");
    CompileRequest req;
    req.source_path = r->source_path;
    req.defines = compile_defines(*r, resolve_params(*r, parse_assignments(opt.params, "--param")), dtype);
    req.arch = rung_arch(*r, opt.arch);
    req.output = CompileRequest::Output::Ptx;
    req.label = L.id + "/" + r->id;
    try {
        CompiledCode c = compile_kernel(req);
        const std::string text = printable_lines(c.code);  // PTX names the source files it came from
        std::fwrite(text.data(), 1, text.size(), stdout);
        return 0;
    } catch (const CompileError& e) {
        std::fprintf(stderr, "%s\n%s\n", printable(e.what(), kMessageChars).c_str(), printable_lines(e.log()).c_str());
        return static_cast<int>(ExitCode::BadInput);
    }
}
}  // namespace

Action add_ptx_command(CLI::App& app) {
    auto opt = std::make_shared<PtxOptions>();
    app.add_option("ladder", opt->ladder, "ladder id (see `kladder list ladders`)")->required();
    app.add_option("-r,--rung", opt->rung, "rung id")->required();
    app.add_option("-p,--param", opt->params, "rung parameter, e.g. --param TPB=128 (repeatable)");
    app.add_option("--dtype", opt->dtype, "element type: fp32, bf16 or fp16 (default fp32)");
    app.add_option("--arch", opt->arch, "target, e.g. sm_86 (default sm_90; a rung may pick its own sm_90a)");
    app.add_option("--stage", opt->stage, "Triton rungs: ptx (default) or ttgir, the TritonGPU IR");
    return [opt] { return print_ptx(*opt); };
}

}  // namespace kl::cli
