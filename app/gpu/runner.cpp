// [SECTION] index: state / prepare (architecture, geometry, compile, problem, scratch, bind) /
// check / time / derive / run and record
#include "gpu/runner.h"

#include <algorithm>
#include <cmath>

#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_context.h"
#include "gpu/judge_gpu.h"
#include "gpu/kernel_cache.h"
#include "gpu/kernel_trace.h"
#include "gpu/launch_modes.h"
#include "gpu/launch_resources.h"
#include "gpu/tensor_map.h"
#include "gpu/torch_bridge.h"
#include "gpu/triton_launch.h"
#include "model/counters.h"
#include "model/device_profile.h"
#include "model/launch_geometry.h"

namespace kl {
// [SECTION] State

struct Runner::ProblemCache {
    std::string key;      // operation + sizes + dtype + seed (+ planted)
    int64_t planted = 0;  // [judge] NaN/Inf values planted in the inputs of this problem
    ReferenceOutputs reference;
    std::vector<BufferDecl> buffers;
    std::unique_ptr<L2Flush> flush;  // made on the first cold timing, kept for the next ones
};

// A run ready to launch. Its scratch buffers live as long as it does: freed on every way out,
// errors included.
struct Runner::Prepared {
    struct Launch {
        const LaunchSpec* spec;
        cudaKernel_t kernel = nullptr;
        dim3 grid, block;
        size_t smem = 0;
        int64_t repeat = 1;  // [launch] `repeat`: enqueued this many times in a row
        std::vector<KernelArg> args;
        bool triton = false;                 // a Triton kernel: two scratch pointers follow the args
        int64_t triton_scratch[2] = {0, 0};  // bytes of its global and profile scratch (0: null)
    };
    explicit Prepared(GpuContext& g) : gpu(g) {}
    ~Prepared() {
        for (const auto& n : scratch) gpu.remove_buffer(n);
    }
    Prepared(const Prepared&) = delete;
    Prepared& operator=(const Prepared&) = delete;
    GpuContext& gpu;
    const Operation* op = nullptr;
    Scope scope;  // sizes, parameters, esize and this device's num_sms
    std::vector<Launch> launches;
    std::vector<std::string> scratch;
    std::string label;
    std::unique_ptr<GraphReplay> graph;  // [launch] `graph = true`: the launches, captured once
};

namespace {
dim3 to_dim3(const int64_t (&v)[3]) {  // checked against the device's limits by bind_to_device
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

}  // namespace

KernelArg manifest_scalar_arg(const ArgSpec& a, const Scope& scope, const std::string& label) {
    if (a.is_literal) return KernelArg::f32v(static_cast<float>(a.literal));
    int64_t v = a.value.eval(scope);
    if (a.type == ArgSpec::Type::I32) {
        if (v > 2147483647LL || v < -2147483648LL)
            throw InputError(label + ": argument '" + a.text + "' = " + std::to_string(v) + " does not fit in 32 bits");
        return KernelArg::i32v(static_cast<int32_t>(v));
    }
    if (a.type == ArgSpec::Type::I64) return KernelArg::i64v(v);
    return KernelArg::f32v(static_cast<float>(v));
}

Runner::Runner(GpuContext& gpu, std::optional<Calibration> calibration)
    : gpu_(gpu), calibration_(std::move(calibration)), cache_(std::make_unique<ProblemCache>()) {}
Runner::~Runner() = default;

int Runner::num_sms() const { return gpu_.device().sm_count; }

// [SECTION] Prepare

std::unique_ptr<Runner::Prepared> Runner::prepare(const ResolvedRun& run, RunRecord& rec) {
    auto prep = std::make_unique<Prepared>(gpu_);
    prep->op = find_operation(run.rung->operation);
    prep->label = run.label;
    prep->scope = run.scope;
    launches_of(run, *prep);
    // Compile before allocating: a rung that does not compile costs no GPU memory.
    load_kernels(run, *prep, rec);
    allocate(run, *prep, rec);
    bind_arguments(run, *prep);
    // [launch] Captured after binding (the graph holds the arguments' values), before any run.
    if (run.rung->graph) {
        Prepared& p = *prep;
        prep->graph = std::make_unique<GraphReplay>(
            gpu_, [&] { enqueue_all(p); }, prep->label);
    }
    return prep;
}

// The launches in manifest order: library launches (`builtin`) as they are, kernels with the grid,
// block and dynamic shared memory the run was bound to this device with (evaluated and checked once).
void Runner::launches_of(const ResolvedRun& run, Prepared& prep) {
    for (const LaunchSpec* spec : applicable_launches(*run.rung, run.scope)) {
        Prepared::Launch l;
        l.spec = spec;
        l.repeat = launch_repeat(*spec, run.scope, prep.label);
        if (spec->builtin.empty()) {
            auto g = std::find_if(run.geometry.begin(), run.geometry.end(),
                                  [&](const LaunchGeometry& x) { return x.spec == spec; });
            if (g == run.geometry.end()) throw InputError(prep.label + ": launch " + spec->entry + " has no geometry");
            l.grid = to_dim3(g->grid);
            l.block = to_dim3(g->block);
            l.smem = static_cast<size_t>(g->dynamic_smem);
        }
        prep.launches.push_back(std::move(l));
    }
}

// NVRTC (cached on disk), then the loaded kernel's resources checked against the device: one
// line naming the resource and the parameters to lower when a launch cannot run.
void Runner::load_kernels(const ResolvedRun& run, Prepared& prep, RunRecord& rec) {
    const Rung& rung = *run.rung;
    CompileRequest req;
    req.source_path = rung.source_path;
    req.defines = compile_defines(rung, run.params, run.problem.dtype);
    req.arch = rung_arch(rung, gpu_.device().arch());
    req.label = run.ladder->id + "/" + rung.id;
    for (auto& l : prep.launches) {
        if (!l.spec->builtin.empty()) continue;
        if (rung.is_triton()) {  // compiled by the Triton helper; block and shared memory from its metadata
            TritonKernel t = load_triton_kernel(gpu_, run, *l.spec, prep.scope, l.grid);
            l.kernel = t.kernel;
            l.block = t.shape.block;
            l.smem = static_cast<size_t>(t.shape.shared);
            l.triton = true;
            l.triton_scratch[0] = t.shape.global_scratch_bytes;
            l.triton_scratch[1] = t.shape.profile_scratch_bytes;
        } else {
            l.kernel = gpu_.kernels().get(req, l.spec->entry);
        }
        // Refuses what cannot launch (one line naming the resource), opts into large shared memory.
        rec.resources.push_back(prepare_launch(gpu_.device(), l.kernel, rung, *l.spec, l.grid, l.block,
                                               static_cast<int64_t>(l.smem), prep.label, prep.scope));
    }
}

void Runner::prepare_problem(const Operation& op, const Problem& p, uint64_t seed, const std::string& label,
                             double scratch, const std::string& scratch_list, bool plant) {
    std::string key = op.name() + "|" + p.describe() + "|" + std::to_string(seed) + (plant ? "|planted" : "");
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
        std::string what =
            label + " needs " + gib_text(buffers + scratch) + " (inputs and outputs " + gib_text(buffers);
        if (scratch > 0) what += ", scratch " + gib_text(scratch) + ": " + scratch_list;
        what += ")";
        throw InputError("problem too large for GPU memory: " + what + "; " +
                         gib_text(double(free_b) + (prepared ? buffers : 0)) + " free of " + gib_text(double(total_b)));
    }
    if (prepared) return;
    for (const auto& b : cache_->buffers) gpu_.add_buffer(b.name, b.dtype, b.elements);
    op.make_inputs(p, gpu_, seed);
    cache_->planted = plant ? plant_non_finite(gpu_, cache_->buffers, seed) : 0;  // [judge] before the reference
    op.reference(p, gpu_, cache_->reference);
    gpu_.synchronize();
    cache_->key = key;
}

// The problem (shared by the ladder's rungs), then this rung's scratch: sized first, so that the
// memory check sees the whole need.
void Runner::allocate(const ResolvedRun& run, Prepared& prep, RunRecord& rec) {
    const DType dtype = run.problem.dtype;
    double scratch_need = 0;
    std::string scratch_list;
    for (const auto& s : run.rung->scratch) {
        const double bytes =
            double(std::max<int64_t>(s.elements.eval(prep.scope), 1)) * dtype_size(s.dtype ? *s.dtype : dtype);
        scratch_need += bytes;
        scratch_list += (scratch_list.empty() ? "" : ", ") + s.name + " " + gib_text(bytes);
    }
    for (const auto& l : prep.launches)  // Triton's own scratch, when its metadata asks for some
        for (int64_t bytes : l.triton_scratch) scratch_need += double(bytes);
    prepare_problem(*prep.op, run.problem, run.options.seed, prep.label, scratch_need, scratch_list,
                    run.options.judge.plant_non_finite);
    for (const auto& s : run.rung->scratch) {
        DeviceBuffer& b =
            gpu_.add_buffer(s.name, s.dtype ? *s.dtype : dtype, std::max<int64_t>(s.elements.eval(prep.scope), 1));
        // Zeroed once: a rung may keep state there across its launches (the persistent rung's
        // grid barrier counts from zero and leaves zero behind).
        KL_CUDA_CALL(cudaMemsetAsync(b.data(), 0, b.bytes(), gpu_.stream()));
        prep.scratch.push_back(s.name);
    }
    for (size_t i = 0; i < prep.launches.size(); ++i)
        for (int which = 0; which < 2; ++which)
            if (int64_t bytes = prep.launches[i].triton_scratch[which]; bytes > 0) {
                std::string name = "triton_scratch_" + std::to_string(i) + (which ? "_profile" : "_global");
                gpu_.add_buffer(name, DType::F32, (bytes + 3) / 4);
                prep.scratch.push_back(name);
            }
    double buffer_bytes = 0;
    for (const auto& b : cache_->buffers) buffer_bytes += double(b.elements) * dtype_size(b.dtype);
    rec.values.set(tag::peak_memory_bytes, buffer_bytes + scratch_need);
}

// Buffer names -> device pointers, expressions -> i32 / i64 / f32, tmap(...) -> a TMA descriptor.
void Runner::bind_arguments(const ResolvedRun& /*run*/, Prepared& prep) {
    for (size_t i = 0; i < prep.launches.size(); ++i) {
        auto& l = prep.launches[i];
        for (const auto& a : l.spec->args) {
            if (a.kind == ArgSpec::Kind::Buffer)
                l.args.push_back(KernelArg::pointer(gpu_.buffer(a.buffer).data()));
            else if (a.kind == ArgSpec::Kind::TensorMap)
                l.args.push_back(KernelArg::tensor_map(tensor_map_arg(gpu_, a, prep.scope, prep.label)));
            else
                l.args.push_back(manifest_scalar_arg(a, prep.scope, prep.label));
        }
        if (!l.triton) continue;  // Triton's parameters end with the global and profile scratch pointers
        const void* scratch[2] = {nullptr, nullptr};
        for (int which = 0; which < 2; ++which)
            if (l.triton_scratch[which] > 0)
                scratch[which] =
                    gpu_.buffer("triton_scratch_" + std::to_string(i) + (which ? "_profile" : "_global")).data();
        l.args = pack_triton_args(std::move(l.args), scratch[0], scratch[1]);
    }
}

void Runner::enqueue_all(Prepared& prep) {
    for (auto& l : prep.launches) {
        for (int64_t k = 0; k < l.repeat; ++k) {
            if (!l.spec->builtin.empty()) {
                gpu_.run_builtin(l.spec->builtin, l.args);
                continue;
            }
            std::vector<void*> ptrs;
            for (auto& a : l.args) ptrs.push_back(a.address());
            KL_CUDA_CALL(cudaLaunchKernel(reinterpret_cast<const void*>(l.kernel), l.grid, l.block, ptrs.data(), l.smem,
                                          gpu_.stream()));
        }
    }
}

void Runner::launch_all(Prepared& prep) {
    if (prep.graph)
        prep.graph->launch();  // [launch] one call replays every launch
    else
        enqueue_all(prep);
}

// [SECTION] Check

Correctness Runner::check(const Operation& op, const Problem& p, Prepared& prep) {
    poison_outputs(gpu_, cache_->buffers);
    const GpuContext::CheckingCall checking(gpu_);  // a PyTorch peer writes the outputs on this call only
    launch_all(prep);
    gpu_.synchronize();  // a fault in the rung surfaces here
    return compare_all(op, p);
}

// The outputs as they are now against the reference (with planted NaN/Inf: compare_planted).
Correctness Runner::compare_all(const Operation& op, const Problem& p) {
    Correctness total;
    bool first = true;
    for (const auto& b : cache_->buffers) {
        if (b.role != BufferDecl::Role::Output) continue;
        auto actual = gpu_.download_as_float(gpu_.buffer(b.name));
        const auto& expected = cache_->reference.at(b.name);
        const Tolerance tol = op.tolerance_of(p, b.name);
        Correctness c = cache_->planted > 0 ? compare_planted(actual, expected, tol)
                                            : compare_outputs(actual, expected, tol, op.output_shape(p, b.name));
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

// [SECTION] Time

// The cold-L2 flush, made on first use (its buffer is twice the L2); nullptr for warm runs.
L2Flush* Runner::flush_for(const RunOptions& opt) {
    if (!opt.cold_l2) return nullptr;
    if (!cache_->flush) cache_->flush = std::make_unique<L2Flush>(gpu_);
    return cache_->flush.get();
}

RepetitionPlan Runner::repetition_plan(const RunOptions& opt) {
    RepetitionPlan plan;
    plan.warmup = opt.warmup;
    plan.min_reps = opt.min_reps;
    plan.max_reps = opt.max_reps;
    plan.budget_ms = opt.budget_ms;
    plan.hold_floor_ns = static_cast<long long>(opt.hold_floor_us * 1e3);  // [hold]
    return plan;
}

TimedRepetitions Runner::time_rung(Prepared& prep, const RunOptions& opt) {
    RepetitionPlan plan = repetition_plan(opt);
    if (opt.judge.poison_every_run) plan.before_each = [&] { poison_outputs(gpu_, cache_->buffers); };
    if (prep.graph)  // [stopwatch] (kernel_trace.h); a counters pass after timing keeps CUPTI attached
        plan.span_refusal =
            "a graph-launched rung's kernels carry no timestamps under CUPTI's serialized kernel records";
    plan.span_detach = !counters_ && !opt.counters;
    return time_each_repetition(gpu_, plan, flush_for(opt), [&] { launch_all(prep); });
}

// [SECTION] Derive: runner_derive.cpp

// [SECTION] Run and record

void Runner::measure(const ResolvedRun& run, Prepared& prep, RunRecord& rec) {
    const RunOptions& opt = run.options;
    // [modes] The first launch is timed before anything else of the run touches the GPU.
    if (opt.mode == RunMode::NoWarmup) rec.mode_timing = time_wrong_way(opt.mode, gpu_, {}, [&] { launch_all(prep); });
    if (opt.check) rec.correctness = check(*prep.op, run.problem, prep);
    if (opt.time) {
        if (opt.mode == RunMode::ShortBurst) {  // [modes] before the runner's timing heats the GPU
            rec.mode_timing = time_wrong_way(
                opt.mode, gpu_, {}, [&] { launch_all(prep); }, flush_for(opt));
        }
        const double clock_before = measure_sm_clock_mhz(gpu_);  // [clock]
        const TimedRepetitions reps = time_rung(prep, opt);
        rec.timing = summarize(reps.ms);
        record_stopwatch(reps, rec);  // [stopwatch]
        if (const L2Flush* f = flush_for(opt)) rec.l2_flush = f->name();
        if (opt.judge.poison_every_run && evidence_) {  // [judge] the last timed call's own output
            gpu_.synchronize();
            evidence_->after_timing = compare_all(*prep.op, run.problem);
        }
        rec.clock = make_clock_report(rated_sm_clock_mhz(gpu_), clock_before, measure_sm_clock_mhz(gpu_));
        add_repetition_clocks(*rec.clock, reps.ms, reps.clock_mhz);  // [clock] sustained and burst
        rec.clock->hold_us = double(reps.hold_ns) / 1e3;             // [hold]
        derive(run, rec);
        if (opt.mode == RunMode::HostClockNoSync || opt.mode == RunMode::WarmL2)  // [modes]
            rec.mode_timing = time_wrong_way(opt.mode, gpu_, repetition_plan(opt), [&] { launch_all(prep); });
    }
    // [timeline] One more repetition, traced: each kernel's start and end, after the timing.
    if (opt.timeline) {
        std::string why;
        rec.timeline = trace_kernels(
            gpu_, flush_for(opt), [&] { launch_all(prep); }, &why,
            !counters_ && !opt.counters,  // a counters pass follows: keep CUPTI attached for it
            run.rung->graph);
        if (!rec.timeline) rec.timeline_note = why;
    }
    // [counters] A separate replay pass after timing: profiling never touches a timed repetition.
    if (opt.counters) {
        if (!counters_) counters_ = std::make_unique<CounterCollector>(gpu_);
        counters_->collect([&] { launch_all(prep); }, rec);
    }
}

RunRecord Runner::run(const ResolvedRun& asked) {
    ScopedContext ctx("rung " + asked.label);
    // A rung for a newer (or another) architecture is refused before compiling.
    if (std::string need = rung_arch_refusal(*asked.rung, gpu_.device().cc()); !need.empty())
        throw InputError(asked.ladder->id + "/" + asked.rung->id + ": " + need + "; this GPU is " + gpu_.device().name +
                         " (" + gpu_.device().arch() + ")");
    // A run resolved before this GPU was opened (the CLI checks input first) is bound to it here,
    // once: what cannot launch is refused before anything is compiled.
    ResolvedRun run = asked;
    if (!run.bound_to(num_sms())) bind_to_device(run, num_sms(), gpu_.device().limits);
    const Rung& rung = *run.rung;
    RunRecord rec = identity_record(run);
    rec.l2 = run.options.cold_l2 ? "cold" : "warm";
    rec.mode = to_string(run.options.mode);
    rec.warmup = run.options.warmup;
    // The work: the operation's (ideal bytes, FLOPs) unless the rung's model counts FLOPs itself.
    const Scope& scope = run.scope;
    Work work = find_operation(rung.operation)->work(run.problem);
    rec.values.set(tag::flops, rung.model.flops.empty() ? work.flops : double(rung.model.flops.eval(scope)));
    rec.values.set(tag::ideal_bytes, work.ideal_bytes);
    if (!rung.model.bytes.empty()) rec.values.set(tag::model_bytes, double(rung.model.bytes.eval(scope)));
    rec.model_note = rung.model.note;

    std::unique_ptr<Prepared> prep = prepare(run, rec);
    const bool verify = run.options.judge.verify_inputs && evidence_;  // [judge]
    const auto before = verify ? snapshot_inputs(gpu_, cache_->buffers) : std::vector<std::vector<unsigned char>>{};
    if (evidence_) evidence_->planted_values = cache_->planted;
    try {
        measure(run, *prep, rec);
        if (verify) {
            evidence_->inputs_verified = true;
            evidence_->inputs_modified = changed_inputs(gpu_, cache_->buffers, before);
            if (!evidence_->inputs_modified.empty()) cache_->key.clear();  // the next run makes fresh inputs
        }
    } catch (const GpuError&) {
        // A sticky error (illegal address, trap) poisons the whole CUDA context.
        cudaError_t after = cudaDeviceSynchronize();
        context_lost_ = after != cudaSuccess;
        throw;
    }
    return rec;
}

RunRecord Runner::run(const Ladder& ladder, const Rung& rung, const RunOptions& opt) {
    return run(resolve_run(ladder, rung, opt, num_sms()));
}

RunRecord Runner::record(const ResolvedRun& run, const RecordOptions& how) {
    if (how.skip_unsupported_arch)
        if (std::string need = rung_arch_refusal(*run.rung, gpu_.device().cc()); !need.empty())
            return skipped_record(run, need);
    if (context_lost_) return skipped_record(run, "the GPU context was lost after an earlier fault");
    // A Triton rung's source is checked before Python is looked for (a bad one fails, whatever is
    // installed); without Python and Triton the rung is skipped with the one line saying what to install.
    if (run.rung->is_triton()) {
        try {
            check_triton_rung_source(*run.rung);
        } catch (const Error& e) { return failed_record(run, e, context_lost_); }
    }
    if (run.rung->is_triton() && !triton_availability().available)
        return skipped_record(run, triton_availability().reason);
    if (std::string why = torch_peer_refusal(*run.rung); !why.empty()) return skipped_record(run, why);
    evidence_ = how.evidence;
    struct Reset {
        JudgeEvidence*& e;
        ~Reset() { e = nullptr; }
    } reset{evidence_};
    try {
        return this->run(run);
    } catch (const Error& e) {
        if (auto* ce = dynamic_cast<const CompileError*>(&e); ce && how.compile_log) *how.compile_log = ce->log();
        return failed_record(run, e, context_lost_);
    }
}

}  // namespace kl
