#include "model/run_plan.h"

#include <algorithm>
#include <exception>

namespace kl {

Problem resolve_problem(const Ladder& ladder, const Rung& rung, const RunOptions& opt) {
    const Operation* op = find_operation(rung.operation);
    if (!op) throw InputError("rung " + rung.id + ": unknown operation '" + rung.operation + "'");
    Problem p;
    p.dtype = opt.dtype ? *opt.dtype : rung.dtypes.front();
    p.compute = rung.compute;
    if (!p.compute.empty() && p.dtype != DType::F32)
        throw InputError("rung " + rung.id + ": compute = \"" + p.compute + "\" applies to fp32 data only, not " +
                         to_string(p.dtype));
    if (std::find(rung.dtypes.begin(), rung.dtypes.end(), p.dtype) == rung.dtypes.end()) {
        std::string list;
        for (DType d : rung.dtypes) list += (list.empty() ? "" : ", ") + to_string(d);
        throw InputError("rung " + rung.id + " does not support dtype " + to_string(p.dtype) + " (it supports " + list +
                         ")");
    }
    for (const auto& [name, v] : ladder.default_sizes) p.sizes[name] = v;
    for (const auto& [name, v] : opt.sizes) {
        if (!p.sizes.count(name)) {
            std::string list;
            for (const auto& [k, d] : ladder.default_sizes) list += (list.empty() ? "" : ", ") + k;
            throw InputError("ladder " + ladder.id + " has no size axis '" + name + "' (it has " + list + ")");
        }
        p.sizes[name] = v;
    }
    // Keep only the axes of this rung's operation (a ladder may mix operations).
    std::map<std::string, int64_t> own;
    for (const auto& axis : op->size_axes()) {
        int64_t v = p.sizes.at(axis.name);
        if (v < axis.min || v > axis.max)
            throw InputError("size " + axis.name + "=" + std::to_string(v) + " is out of range for " + op->name() +
                             " (" + std::to_string(axis.min) + ".." + std::to_string(axis.max) + ")");
        own[axis.name] = v;
    }
    p.sizes = own;
    return p;
}

namespace {
// "elementwise/vector_add TPB=128 n=1048576 fp32"
std::string run_label(const ResolvedRun& run) {
    std::string label = run.ladder->id + "/" + run.rung->id;
    for (const auto& [k, v] : run.params) label += " " + k + "=" + std::to_string(v);
    return label + " " + run.problem.describe();
}
}  // namespace

ResolvedRun resolve_run(const Ladder& ladder, const Rung& rung, const RunOptions& opt, int num_sms) {
    ResolvedRun run;
    run.ladder = &ladder;
    run.rung = &rung;
    run.options = opt;
    run.problem = resolve_problem(ladder, rung, opt);
    run.params = resolve_params(rung, opt.params);
    check_constraints(rung, make_scope(run.problem.sizes, run.params, run.problem.dtype, num_sms));
    run.label = run_label(run);
    return run;
}

void bind_to_device(ResolvedRun& run, int num_sms, const DeviceLimits& limits) {
    if (num_sms <= 0) throw InputError(run.label + ": no device to bind the launch geometry to");
    run.scope = make_scope(run.problem.sizes, run.params, run.problem.dtype, num_sms);
    run.geometry = evaluate_launch_geometry(*run.rung, run.scope);
    run.bound_sms = 0;  // until the geometry is known to launch there
    check_launch_geometry(run.ladder->id + "/" + run.rung->id, *run.rung, run.geometry, run.scope, limits);
    run.bound_sms = num_sms;
}

LadderRung resolve_ladder_rung(const Ladder& ladder, const Rung& rung, const RunOptions& opt, int num_sms) {
    try {
        return {resolve_run(ladder, rung, opt, num_sms), ""};
    } catch (const ManifestError&) {
        throw;  // an expression the manifest cannot evaluate is the manifest's fault, never a skip
    } catch (const InputError& at_these_sizes) {
        // An axis the ladder lacks is a malformed size, for every rung alike: never a skip.
        for (const auto& [axis, v] : opt.sizes)
            if (std::none_of(ladder.default_sizes.begin(), ladder.default_sizes.end(),
                             [&](const auto& d) { return d.first == axis; }))
                throw;
        const std::exception_ptr refusal = std::current_exception();
        RunOptions at_defaults = opt;
        at_defaults.sizes.clear();
        LadderRung out;
        try {
            out.run = resolve_run(ladder, rung, at_defaults, num_sms);
        } catch (const InputError&) {
            std::rethrow_exception(refusal);  // refused at any size: the parameters or the dtype
        }
        out.run.options = opt;
        for (auto& [axis, v] : out.run.problem.sizes)
            if (auto it = opt.sizes.find(axis); it != opt.sizes.end()) v = it->second;
        out.run.label = run_label(out.run);
        out.unfit = at_these_sizes.what();
        const std::string prefix = "rung " + rung.id + ": ";  // the record and every listing name the rung
        if (out.unfit.rfind(prefix, 0) == 0) out.unfit.erase(0, prefix.size());
        return out;
    }
}

// [SECTION] Records of runs that did not measure

std::string error_kind_of(const Error& e, bool context_lost) {
    if (dynamic_cast<const CompileError*>(&e)) return "compile";
    if (dynamic_cast<const GpuError*>(&e)) return context_lost ? "fault" : "gpu";
    return "input";
}

RunRecord identity_record(const ResolvedRun& run) {
    RunRecord rec;
    rec.ladder = run.ladder->id;
    rec.rung = run.rung->id;
    rec.title = run.rung->title;
    rec.operation = run.rung->operation;
    rec.reference = run.rung->reference;
    rec.params = run.params;
    rec.sizes = run.problem.sizes;
    rec.dtype = run.problem.dtype;
    return rec;
}

RunRecord failed_record(const ResolvedRun& run, const Error& e, bool context_lost) {
    RunRecord rec = identity_record(run);
    rec.error_kind = error_kind_of(e, context_lost);
    rec.error = e.what();
    return rec;
}

RunRecord skipped_record(const ResolvedRun& run, const std::string& why) {
    RunRecord rec = identity_record(run);
    rec.error_kind = "skipped";
    rec.error = why;
    return rec;
}

ExitCode exit_code_of(const RunRecord& rec) {
    if (rec.error_kind == "gpu" || rec.error_kind == "fault") return ExitCode::GpuError;
    if (rec.error_kind == "input" || rec.error_kind == "compile") return ExitCode::BadInput;
    if (!rec.error_kind.empty()) return ExitCode::Ok;  // skipped
    if (rec.correctness && !rec.correctness->passed) return ExitCode::Incorrect;
    return ExitCode::Ok;
}

void fill_reference_ratios(std::vector<RunRecord>& runs) {
    for (auto& r : runs) {
        if (!r.timing || r.reference) continue;
        for (const auto& ref : runs) {
            if (!ref.reference || !ref.timing || ref.ladder != r.ladder || ref.sizes != r.sizes) continue;
            // Same dtype, or for mixed-precision ladders the reference of the rung's dtype.
            if (ref.dtype != r.dtype) continue;
            if (!r.values.has(tag::pct_reference) || ref.rung.find(to_string(r.dtype)) != std::string::npos)
                r.values.set(tag::pct_reference, 100.0 * ref.timing->median_ms / r.timing->median_ms);
        }
    }
}

}  // namespace kl
