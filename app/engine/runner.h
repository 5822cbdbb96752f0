// The runner measures one rung the way nvbench would, and checks it the way llm.c's dev/cuda
// does: resolve parameters and check constraints (before any GPU work), compile, make inputs
// and the reference once per problem, poison the outputs with NaN, run once and compare,
// then warm up and time many repetitions with CUDA events, flushing L2 before each one.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "manifest.h"
#include "operation.h"
#include "results.h"

namespace kl {

class GpuContext;
class CounterCollector;  // [counters]

struct RunOptions {
    std::map<std::string, int64_t> sizes;  // overrides of the ladder's default sizes
    ParamValues params;                    // overrides of the rung's defaults
    std::optional<DType> dtype;            // default: the rung's first dtype
    int warmup = 2;                        // untimed runs after the checked one
    int min_reps = 10, max_reps = 300;
    double budget_ms = 400;  // stop repeating after this much timed GPU time (past min_reps)
    bool cold_l2 = true;     // flush L2 before every timed repetition
    bool check = true;       // compare against the reference
    bool time = true;
    bool counters = false;  // [counters] read hardware counters in a replay pass after timing (counters.h)
    uint64_t seed = 20261122;
};

// The problem a rung runs on with these options: sizes (defaults + overrides, validated
// against the operation's axes) and dtype (validated against the rung). No GPU needed.
Problem resolve_problem(const Ladder& ladder, const Rung& rung, const RunOptions& opt);

class Runner {
  public:
    Runner(GpuContext& gpu, std::optional<Calibration> calibration);
    ~Runner();

    // Throws InputError (bad parameter, size, constraint, too large), CompileError, GpuError.
    // After a GpuError, context_lost() says whether the CUDA context survived.
    RunRecord run(const Ladder& ladder, const Rung& rung, const RunOptions& opt);
    bool context_lost() const { return context_lost_; }

  private:
    struct Prepared;
    struct ProblemCache;
    // Allocates the problem's buffers, inputs and reference (kept while the problem stays the
    // same). Refuses, before allocating anything, a problem whose buffers plus the rung's
    // `scratch` (bytes, described in `scratch_list`) do not fit in free memory.
    void prepare_problem(const Operation& op, const Problem& p, uint64_t seed, const std::string& label, double scratch,
                         const std::string& scratch_list);
    Correctness check(const Operation& op, const Problem& p, Prepared& prep);
    TimingStats time_rung(Prepared& prep, const RunOptions& opt);
    void launch_all(Prepared& prep);

    GpuContext& gpu_;
    std::optional<Calibration> calibration_;
    std::unique_ptr<ProblemCache> cache_;
    std::unique_ptr<CounterCollector> counters_;  // [counters] opened on the first run that asks for counters
    bool context_lost_ = false;
};

// Fills pct_reference of every run from the reference rungs (reference = true) measured in
// the same list with the same sizes and dtype: reference time / run time x 100.
void fill_reference_ratios(std::vector<RunRecord>& runs);

}  // namespace kl
