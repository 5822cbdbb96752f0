// [SECTION] index: Problem resolution / Preparation (compile, bind) / Correctness / Timing / Run
#include "runner.h"

#include <algorithm>
#include <cmath>

#include "builtins.h"
#include "counters.h"
#include "cuda_check.h"
#include "gpu_context.h"
#include "device_profile.h"
#include "kernel_cache.h"
#include "launch_geometry.h"
#include "launch_resources.h"
#include "tensor_map.h"
#include "timing.h"

namespace kl {

// [SECTION] Problem resolution

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

// [SECTION] Preparation

struct Runner::ProblemCache {
    std::string key;  // operation + sizes + dtype + seed
    ReferenceOutputs reference;
    std::vector<BufferDecl> buffers;
    std::unique_ptr<L2Flush> flush;  // made on the first cold timing, kept for the next ones
};

struct Runner::Prepared {
    struct Launch {
        const LaunchSpec* spec;
        cudaKernel_t kernel = nullptr;
        dim3 grid, block;
        size_t smem = 0;
        std::vector<KernelArg> args;
    };
    std::vector<Launch> launches;
    std::string label;
};

namespace {
dim3 make_dim(const std::vector<Expr>& e, const Scope& s, const std::string& what, const std::string& label) {
    int64_t v[3] = {1, 1, 1};
    for (size_t i = 0; i < e.size(); ++i) v[i] = e[i].eval(s);
    for (int i = 0; i < 3; ++i)
        if (v[i] < 1 || v[i] > (i == 0 && what == "grid" ? 2147483647LL : 65535LL))
            throw InputError(label + ": " + what + " dimension " + std::to_string(i) + " = " + std::to_string(v[i]) +
                             " is not launchable");
    return dim3(static_cast<unsigned>(v[0]), static_cast<unsigned>(v[1]), static_cast<unsigned>(v[2]));
}

// A `tmap(...)` argument: its expressions evaluated, checked against the buffer, encoded.
std::shared_ptr<const TensorMapBytes> tensor_map_arg(GpuContext& gpu, const ArgSpec& a, const Scope& scope,
                                                     const std::string& label) {
    DeviceBuffer& buf = gpu.buffer(a.tmap.buffer);
    TensorMapRequest req;
    req.base = buf.data();
    req.dtype = buf.dtype();
    req.rows = a.tmap.rows.eval(scope);
    req.cols = a.tmap.cols.eval(scope);
    req.box_rows = a.tmap.box_rows.eval(scope);
    req.box_cols = a.tmap.box_cols.eval(scope);
    req.swizzle = a.tmap.swizzle;
    const std::string what = label + ": argument '" + a.text + "'";
    if (req.rows > 0 && req.cols > 0 && req.rows * req.cols > buf.elements())
        throw InputError(what + ": " + std::to_string(req.rows) + " x " + std::to_string(req.cols) +
                         " elements exceed buffer " + a.tmap.buffer + " (" + std::to_string(buf.elements()) + ")");
    return encode_tensor_map_2d(req, what);
}

std::string gib(double bytes) {
    char s[32];
    std::snprintf(s, sizeof s, "%.2f GiB", bytes / 1073741824.0);
    return s;
}

std::string describe_params(const ParamValues& params) {
    std::string s;
    for (const auto& [k, v] : params) s += " " + k + "=" + std::to_string(v);
    return s;
}
}  // namespace

Runner::Runner(GpuContext& gpu, std::optional<Calibration> calibration)
    : gpu_(gpu), calibration_(std::move(calibration)), cache_(std::make_unique<ProblemCache>()) {}

Runner::~Runner() = default;

void Runner::prepare_problem(const Operation& op, const Problem& p, uint64_t seed, const std::string& label,
                             double scratch, const std::string& scratch_list) {
    std::string key = op.name() + "|" + p.describe() + "|" + std::to_string(seed);
    const bool prepared = key == cache_->key;
    if (!prepared) {
        cache_->key.clear();
        cache_->reference.clear();
        gpu_.clear_buffers();
        cache_->buffers = op.buffers(p);
    }
    // Refuse what cannot fit before allocating anything: the problem's buffers (unless they are
    // already there) and the rung's scratch, in one message with the whole need.
    double buffers = 0;
    for (const auto& b : cache_->buffers) buffers += double(b.elements) * dtype_size(b.dtype);
    const double need = (prepared ? 0 : buffers) + scratch;
    size_t free_b = 0, total_b = 0;
    KL_CUDA_CALL(cudaMemGetInfo(&free_b, &total_b));
    if (need > 0.9 * double(free_b)) {
        std::string what = label + " needs " + gib(buffers + scratch) + " (inputs and outputs " + gib(buffers);
        if (scratch > 0) what += ", scratch " + gib(scratch) + ": " + scratch_list;
        what += ")";
        throw InputError("problem too large for GPU memory: " + what + "; " +
                         gib(double(free_b) + (prepared ? buffers : 0)) + " free of " + gib(double(total_b)));
    }
    if (prepared) return;
    for (const auto& b : cache_->buffers) gpu_.add_buffer(b.name, b.dtype, b.elements);
    op.make_inputs(p, gpu_, seed);
    op.reference(p, gpu_, cache_->reference);
    gpu_.synchronize();
    cache_->key = key;
}

void Runner::launch_all(Prepared& prep) {
    for (auto& l : prep.launches) {
        if (!l.spec->builtin.empty()) {
            run_builtin(l.spec->builtin, l.args, gpu_);
            continue;
        }
        std::vector<void*> ptrs;
        for (auto& a : l.args) ptrs.push_back(a.address());
        KL_CUDA_CALL(cudaLaunchKernel(reinterpret_cast<const void*>(l.kernel), l.grid, l.block, ptrs.data(), l.smem,
                                      gpu_.stream()));
    }
}

// [SECTION] Correctness

Correctness Runner::check(const Operation& op, const Problem& p, Prepared& prep) {
    for (const auto& b : cache_->buffers)
        if (b.role == BufferDecl::Role::Output) gpu_.poison(gpu_.buffer(b.name));
    launch_all(prep);
    gpu_.synchronize();  // a fault in the rung surfaces here
    Correctness total;
    bool first = true;
    for (const auto& b : cache_->buffers) {
        if (b.role != BufferDecl::Role::Output) continue;
        auto actual = gpu_.download_as_float(gpu_.buffer(b.name));
        Correctness c =
            compare_outputs(actual, cache_->reference.at(b.name), op.tolerance(p), op.output_shape(p, b.name));
        if (first) {
            total = c;
            first = false;
            continue;
        }
        total.passed = total.passed && c.passed;
        total.rel_l2 = std::max(total.rel_l2, c.rel_l2);
        total.max_abs = std::max(total.max_abs, c.max_abs);
        total.elements += c.elements;
        total.mismatches += c.mismatches;
        total.nan_count += c.nan_count;
        total.unwritten += c.unwritten;
        for (const auto& m : c.first_mismatches)
            if (total.first_mismatches.size() < 8) total.first_mismatches.push_back(m);
    }
    return total;
}

// [SECTION] Timing

TimingStats Runner::time_rung(Prepared& prep, const RunOptions& opt) {
    if (opt.cold_l2 && !cache_->flush) cache_->flush = std::make_unique<L2Flush>(gpu_);
    RepetitionPlan plan;
    plan.warmup = opt.warmup;
    plan.min_reps = opt.min_reps;
    plan.max_reps = opt.max_reps;
    plan.budget_ms = opt.budget_ms;
    return time_repetitions(gpu_, plan, opt.cold_l2 ? cache_->flush.get() : nullptr, [&] { launch_all(prep); });
}

// [SECTION] Run

RunRecord Runner::run(const Ladder& ladder, const Rung& rung, const RunOptions& opt) {
    // Everything that needs no GPU is checked first, so bad input never reaches a launch.
    Problem p = resolve_problem(ladder, rung, opt);
    const Operation& op = *find_operation(rung.operation);
    ParamValues params = resolve_params(rung, opt.params);
    Scope scope = make_scope(p.sizes, params, p.dtype, gpu_.device().sm_count);
    check_constraints(rung, scope);

    // A rung for a newer (or another) architecture is refused before compiling.
    if (std::string need = rung_arch_refusal(rung, gpu_.device().cc()); !need.empty())
        throw InputError(ladder.id + "/" + rung.id + ": " + need + "; this GPU is " + gpu_.device().name + " (" +
                         gpu_.device().arch() + ")");
    check_launch_geometry(ladder.id + "/" + rung.id, rung, scope, gpu_.device().limits);  // grid, block, smem
    Prepared prep;
    prep.label = ladder.id + "/" + rung.id + describe_params(params) + " " + p.describe();
    ScopedContext ctx("rung " + prep.label);

    RunRecord rec;
    rec.ladder = ladder.id;
    rec.rung = rung.id;
    rec.title = rung.title;
    rec.operation = rung.operation;
    rec.reference = rung.reference;
    rec.params = params;
    rec.sizes = p.sizes;
    rec.dtype = to_string(p.dtype);
    rec.l2 = opt.cold_l2 ? "cold" : "warm";
    rec.warmup = opt.warmup;
    Work work = op.work(p);
    rec.flops = rung.model.flops.empty() ? work.flops : double(rung.model.flops.eval(scope));
    rec.ideal_bytes = work.ideal_bytes;
    if (!rung.model.bytes.empty()) rec.model_bytes = double(rung.model.bytes.eval(scope));
    rec.model_note = rung.model.note;

    // Compile before allocating: a rung that does not compile costs no GPU memory.
    std::vector<std::string> defines = compile_defines(rung, params, p.dtype);
    CompileRequest req;
    req.source_path = rung.source_path;
    req.defines = defines;
    req.arch = rung_arch(rung, gpu_.device().arch());
    req.label = ladder.id + "/" + rung.id;
    for (const auto& spec : rung.launches) {
        if (!spec.applies(scope)) continue;  // `when` (one entry per head dimension, say)
        Prepared::Launch l;
        l.spec = &spec;
        if (spec.builtin.empty()) {
            l.kernel = gpu_.kernels().get(req, spec.entry);
            l.grid = make_dim(spec.grid, scope, "grid", prep.label);
            l.block = make_dim(spec.block, scope, "block", prep.label);
            int64_t smem = spec.smem.empty() ? 0 : spec.smem.eval(scope);
            if (smem < 0) throw InputError(prep.label + ": shared memory '" + spec.smem.text() + "' is negative");
            l.smem = static_cast<size_t>(smem);
            // Refuses what cannot launch (one line naming the resource), opts into large shared memory.
            rec.resources.push_back(
                prepare_launch(gpu_.device(), l.kernel, rung, spec, l.grid, l.block, smem, prep.label));
        }
        prep.launches.push_back(std::move(l));
    }

    // The rung's scratch, sized first so that the memory check sees the whole need.
    double scratch_need = 0;
    std::string scratch_list;
    for (const auto& s : rung.scratch) {
        const double bytes =
            double(std::max<int64_t>(s.elements.eval(scope), 1)) * dtype_size(s.dtype ? *s.dtype : p.dtype);
        scratch_need += bytes;
        scratch_list += (scratch_list.empty() ? "" : ", ") + s.name + " " + gib(bytes);
    }
    prepare_problem(op, p, opt.seed, prep.label, scratch_need, scratch_list);
    // Scratch buffers live for this rung only: freed on every way out, errors included.
    struct ScratchGuard {
        GpuContext& gpu;
        std::vector<std::string> names;
        ~ScratchGuard() {
            for (const auto& n : names) gpu.remove_buffer(n);
        }
    } scratch_guard{gpu_, {}};
    for (const auto& s : rung.scratch) {
        gpu_.add_buffer(s.name, s.dtype ? *s.dtype : p.dtype, std::max<int64_t>(s.elements.eval(scope), 1));
        scratch_guard.names.push_back(s.name);
    }
    double buffer_bytes = 0;
    for (const auto& b : cache_->buffers) buffer_bytes += double(b.elements) * dtype_size(b.dtype);
    rec.peak_memory_bytes = buffer_bytes + scratch_need;

    for (auto& l : prep.launches) {
        for (const auto& a : l.spec->args) {
            if (a.kind == ArgSpec::Kind::Buffer) {
                l.args.push_back(KernelArg::pointer(gpu_.buffer(a.buffer).data()));
            } else if (a.kind == ArgSpec::Kind::TensorMap) {
                l.args.push_back(KernelArg::tensor_map(tensor_map_arg(gpu_, a, scope, prep.label)));
            } else if (a.is_literal) {
                l.args.push_back(KernelArg::f32v(static_cast<float>(a.literal)));
            } else {
                int64_t v = a.value.eval(scope);
                if (a.type == ArgSpec::Type::I32) {
                    if (v > 2147483647LL || v < -2147483648LL)
                        throw InputError(prep.label + ": argument '" + a.text + "' = " + std::to_string(v) +
                                         " does not fit in 32 bits");
                    l.args.push_back(KernelArg::i32v(static_cast<int32_t>(v)));
                } else if (a.type == ArgSpec::Type::I64) {
                    l.args.push_back(KernelArg::i64v(v));
                } else {
                    l.args.push_back(KernelArg::f32v(static_cast<float>(v)));
                }
            }
        }
    }

    try {
        if (opt.check) rec.correctness = check(op, p, prep);
        if (opt.time) {
            rec.timing = time_rung(prep, opt);
            double s = rec.timing->median_ms * 1e-3;
            rec.gbps = rec.ideal_bytes / s / 1e9;
            rec.tflops = rec.flops / s / 1e12;
            if (calibration_ && calibration_->copy_gbps > 0) rec.pct_copy = 100.0 * rec.gbps / calibration_->copy_gbps;
            if (calibration_ && rec.flops > 0) {
                double ceiling = p.dtype == DType::F32 ? calibration_->sgemm_tflops : calibration_->bf16_tflops;
                if (ceiling > 0) rec.pct_gemm = 100.0 * rec.tflops / ceiling;
            }
        }
        // [counters] A separate replay pass after timing: profiling never touches a timed repetition.
        if (opt.counters) {
            if (!counters_) counters_ = std::make_unique<CounterCollector>(gpu_);
            counters_->collect([&] { launch_all(prep); }, rec);
        }
    } catch (const GpuError&) {
        // A sticky error (illegal address, trap) poisons the whole CUDA context.
        cudaError_t after = cudaDeviceSynchronize();
        context_lost_ = after != cudaSuccess;
        throw;
    }
    return rec;
}

void fill_reference_ratios(std::vector<RunRecord>& runs) {
    for (auto& r : runs) {
        if (!r.timing || r.reference) continue;
        for (const auto& ref : runs) {
            if (!ref.reference || !ref.timing || ref.ladder != r.ladder || ref.sizes != r.sizes) continue;
            // Same dtype, or for mixed-precision ladders the reference of the rung's dtype.
            if (ref.dtype != r.dtype) continue;
            if (!r.pct_reference || ref.rung.find(r.dtype == "fp32" ? "fp32" : r.dtype) != std::string::npos)
                r.pct_reference = 100.0 * ref.timing->median_ms / r.timing->median_ms;
        }
    }
}

}  // namespace kl
