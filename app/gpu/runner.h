// The runner measures one rung the way nvbench would, and checks it the way llm.c's dev/cuda
// does. A run goes through five steps, each its own function:
//   resolve  (run_plan.h, no GPU)  sizes, dtype, parameters, constraints: all bad input
//   prepare                         architecture, launch geometry, compile and load, problem
//                                   buffers with inputs and the reference (once per problem),
//                                   scratch, kernel arguments
//   check    outputs poisoned with NaN, one run, compared with the reference
//   time     warm-up, then repetitions bracketed by CUDA events, L2 flushed before each one
//   derive   GB/s, FLOP/s and the percentages of the calibrated ceilings
// Runner::record() does all of it and returns a RunRecord in every case: measured, or failed
// with its classified error (run_plan.h), or skipped.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/judge.h"
#include "gpu/timing.h"
#include "model/manifest.h"
#include "model/op_context.h"
#include "model/operation.h"
#include "model/results.h"
#include "model/run_plan.h"

namespace kl {

class GpuContext;

// A manifest scalar argument as a launch binds it: the expression evaluated into its declared type
// (an InputError naming `label` when it does not fit), or a float literal. The runner and the
// address trace (address_trace_run.h) bind arguments with it.
KernelArg manifest_scalar_arg(const ArgSpec& a, const Scope& scope, const std::string& label);

class CounterCollector;  // [counters]
class L2Flush;

class Runner {
  public:
    Runner(GpuContext& gpu, std::optional<Calibration> calibration);
    ~Runner();

    // Run and record: never throws an engine Error. A run after a fault that lost the CUDA
    // context is recorded as skipped; with skip_unsupported_arch a rung this device's
    // architecture cannot run is recorded as skipped (what `run all` does) instead of failed.
    // An NVRTC log, when the rung did not compile, goes to *compile_log.
    struct RecordOptions {
        bool skip_unsupported_arch = false;
        std::string* compile_log = nullptr;
        JudgeEvidence* evidence = nullptr;  // [judge] filled when the run's options ask for the judge's checks
    };
    RunRecord record(const ResolvedRun& run, const RecordOptions& how);
    RunRecord record(const ResolvedRun& run) { return record(run, RecordOptions{}); }

    // Throws InputError (too large, not launchable, wrong architecture), CompileError, GpuError.
    // After a GpuError, context_lost() says whether the CUDA context survived.
    RunRecord run(const ResolvedRun& run);
    // Resolves with this device's SM count, then runs (tests and small tools).
    RunRecord run(const Ladder& ladder, const Rung& rung, const RunOptions& opt);
    bool context_lost() const { return context_lost_; }
    int num_sms() const;

  private:
    struct Prepared;
    struct ProblemCache;
    // [SECTION] prepare: architecture, geometry, compile and load, problem, scratch, arguments
    std::unique_ptr<Prepared> prepare(const ResolvedRun& run, RunRecord& rec);
    void launches_of(const ResolvedRun& run, Prepared& prep);
    void load_kernels(const ResolvedRun& run, Prepared& prep, RunRecord& rec);
    // Allocates the problem's buffers, inputs and reference (kept while the problem stays the
    // same). Refuses, before allocating anything, a problem whose buffers plus the rung's
    // `scratch` (bytes, described in `scratch_list`) do not fit in free memory.
    void prepare_problem(const Operation& op, const Problem& p, uint64_t seed, const std::string& label, double scratch,
                         const std::string& scratch_list, bool plant);
    void allocate(const ResolvedRun& run, Prepared& prep, RunRecord& rec);
    void bind_arguments(const ResolvedRun& run, Prepared& prep);
    // [SECTION] check, time, derive
    Correctness check(const Operation& op, const Problem& p, Prepared& prep);
    Correctness compare_all(const Operation& op, const Problem& p);
    TimedRepetitions time_rung(Prepared& prep, const RunOptions& opt);
    static RepetitionPlan repetition_plan(const RunOptions& opt);
    L2Flush* flush_for(const RunOptions& opt);
    void derive(const ResolvedRun& run, RunRecord& rec) const;
    void measure(const ResolvedRun& run, Prepared& prep, RunRecord& rec);
    void launch_all(Prepared& prep);   // the graph's replay when the rung has one, else enqueue_all
    void enqueue_all(Prepared& prep);  // every launch, `repeat` times each

    GpuContext& gpu_;
    std::optional<Calibration> calibration_;
    std::unique_ptr<ProblemCache> cache_;
    std::unique_ptr<CounterCollector> counters_;  // [counters] opened on the first run that asks for counters
    bool context_lost_ = false;
    JudgeEvidence* evidence_ = nullptr;  // [judge] during record() only
};

}  // namespace kl
