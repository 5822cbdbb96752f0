// What a run is before any GPU work: the options a caller asks for, the run they resolve to
// (problem, parameters, constraints checked: once per run, here), and the records that say how
// a run ended when it did not produce a measurement. No CUDA: the CLI, `kladder serve` and the
// GUI's process share it; the runner (runner.h) measures a ResolvedRun.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "base/errors.h"
#include "model/device_info.h"
#include "model/launch_geometry.h"
#include "model/manifest.h"
#include "model/operation.h"
#include "model/results.h"
#include "model/run_modes.h"

namespace kl {

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
    // [hold] every timed repetition held at least this long (us): the hold a run of several rungs
    // shares (app/gpu/shared_hold.h); 0: each rung's own rule (app/gpu/timing.cpp)
    double hold_floor_us = 0;
    // [modes] also measure the figure this measuring mistake gives (run_modes.h), beside the
    // right one: lesson 0's wrong numbers
    RunMode mode = RunMode::Normal;
    // [timeline] trace one repetition's kernels with CUPTI after timing (timeline.h)
    bool timeline = false;
    bool counters = false;  // [counters] read hardware counters in a replay pass after timing (counters.h)
    uint64_t seed = 20261122;
    // [judge] the hidden checks of a judged submission (course/judge.h), on the GPU side
    struct Judge {
        bool verify_inputs = false;     // copy every input before the first launch, compare after the last
        bool poison_every_run = false;  // poison the outputs before every timed repetition; check the last
        bool plant_non_finite = false;  // plant NaN and Inf in the inputs; the reference is computed from them
    } judge;
};

// The problem a rung runs on with these options: sizes (defaults + overrides, validated
// against the operation's axes) and dtype (validated against the rung). No GPU needed.
Problem resolve_problem(const Ladder& ladder, const Rung& rung, const RunOptions& opt);

// One run, resolved: everything the runner needs that can be known without a GPU. The ladder
// and rung must outlive it.
struct ResolvedRun {
    const Ladder* ladder = nullptr;
    const Rung* rung = nullptr;
    RunOptions options;
    Problem problem;
    ParamValues params;  // the rung's defaults with the overrides applied
    // "elementwise/vector_add TPB=128 n=1048576 fp32": names the run in errors and progress.
    std::string label;
    // Bound to a device (bind_to_device): the scope with its SM count, and every kernel launch's
    // grid, block and dynamic shared memory, evaluated once there and checked against its limits.
    // The runner launches this geometry; the window draws occupancy from it.
    Scope scope;
    std::vector<LaunchGeometry> geometry;
    int bound_sms = 0;  // the num_sms the geometry was evaluated with; 0: not bound yet
    bool bound_to(int num_sms) const { return bound_sms > 0 && bound_sms == num_sms; }
};

// Resolves the problem and the parameters and checks the rung's constraints in a scope where
// num_sms is `num_sms` (0 before a GPU is opened, as docs/formats.md says). Throws InputError
// naming the size, parameter, dtype or constraint: all bad input surfaces here.
ResolvedRun resolve_run(const Ladder& ladder, const Rung& rung, const RunOptions& opt, int num_sms);

// Binds a resolved run to a device (a GPU's, or a device profile's SM count and limits):
// evaluates the launch geometry once and checks it. Throws InputError "<ladder>/<rung> (<values>):
// <limit broken>" (launch_geometry.h), with the geometry left evaluated (what the occupancy view
// draws). A device without SMs (num_sms 0) cannot be bound to.
void bind_to_device(ResolvedRun& run, int num_sms, const DeviceLimits& limits);

// One rung of a run over many (`kladder run` without --rung, a sweep's points, the window's Run
// ladder): the rung resolved, or why it cannot take the asked sizes. A rung cannot take them when
// it resolves at the ladder's default sizes, with the same parameters and dtype, but not at these
// (a constraint, its operation's range, no launch that applies): such a rung is skipped and the
// others run. Anything else (a size axis the ladder lacks, a parameter or dtype the rung refuses
// at any size) throws the InputError resolve_run throws, as for a rung named alone.
struct LadderRung {
    ResolvedRun run;    // with `unfit`: only the rung's identity at the asked sizes (for its record)
    std::string unfit;  // "" when the rung runs; else the refusal, without its "rung ID: " prefix
};
LadderRung resolve_ladder_rung(const Ladder& ladder, const Rung& rung, const RunOptions& opt, int num_sms);

// [SECTION] Records of runs that did not measure

// The one mapping from an engine error to a record's error kind: "compile" (NVRTC refused
// the rung), "fault" (a GPU error after which the CUDA context is gone), "gpu" (any other GPU
// error), "input" (everything the user can fix: sizes, parameters, memory, launch limits).
std::string error_kind_of(const Error& e, bool context_lost);

// A record that names the run (ladder, rung, title, operation, parameters, sizes, dtype) with
// nothing measured: what a failed or skipped run shows where its result would have been.
RunRecord identity_record(const ResolvedRun& run);
// The record of a run that failed with `e` (kind from error_kind_of).
RunRecord failed_record(const ResolvedRun& run, const Error& e, bool context_lost);
// The record of a run left out on purpose: error_kind "skipped", `why` as its message.
RunRecord skipped_record(const ResolvedRun& run, const std::string& why);

// The exit code a record asks for: 0 (measured, or skipped), 1 (ran but failed its check),
// 2 (input or compile error), 3 (GPU error or fault). A command returns the largest.
ExitCode exit_code_of(const RunRecord& rec);

// Fills pct_reference of every run from the reference rungs (reference = true) measured in
// the same list with the same sizes and dtype: reference time / run time x 100.
void fill_reference_ratios(std::vector<RunRecord>& runs);

}  // namespace kl
