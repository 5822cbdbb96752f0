// The hidden checks of a judged submission (`kladder submit`, docs/class-mode.md): what runs, in
// which order, and what each run must show. No CUDA: the runs are made by a measuring function the
// caller gives (the runner on a GPU in the CLI, a fake in tests), so the rules are testable
// without a GPU. The GPU side of the checks (poison before every timed repetition, inputs copied
// before and compared after, NaN and Inf planted in the inputs) is the runner's (gpu/runner.cpp), asked for
// through RunOptions::judge and reported in a JudgeEvidence.
//
// The checks, each with the name a refusal gives:
//   correct          the learner's kernel at the exercise's size matches the reference
//   inputs unmodified  every input copied before the first launch, compared after the last
//   poisoned output  the output poisoned before every run, timed ones included; the last timed
//                    run's output is checked: a kernel that skips work on later calls is caught
//   odd sizes        the exercise's hidden sizes, and the size with every even axis made odd
//   planted NaN/Inf  NaN, +Inf and -Inf planted in every input; the output matches the reference
//                    computed from the same inputs: non-finite where it is, within tolerance elsewhere
//   several seeds    two more seeds, checked
//   cold L2          the timed run flushed L2 before every repetition
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/compare.h"
#include "model/dtype.h"
#include "model/results.h"
#include "model/run_plan.h"

namespace kl {

namespace judge_check {
inline constexpr const char* kCorrect = "correct";
inline constexpr const char* kOddSizes = "odd sizes";
inline constexpr const char* kPlanted = "planted NaN/Inf";
inline constexpr const char* kPoisoned = "poisoned output";
inline constexpr const char* kInputs = "inputs unmodified";
inline constexpr const char* kSeeds = "several seeds";
inline constexpr const char* kColdL2 = "cold L2";
}  // namespace judge_check

struct JudgeCheck {
    std::string name;  // one of judge_check
    bool passed = false;
    std::string detail;  // what was seen: "3 sizes: n=1000003 n=4097 n=33, all correct"
};

// What the runner saw of one run beyond its record, when RunOptions::judge asked.
struct JudgeEvidence {
    bool inputs_verified = false;
    std::vector<std::string> inputs_modified;  // input buffers whose bytes changed during the run
    std::optional<Correctness> after_timing;   // the last timed repetition's output (poisoned before each)
    int64_t planted_values = 0;                // NaN/Inf values written into the inputs
};

// One run of the judge: its role, its record and the evidence.
struct JudgedRun {
    enum class Role { Main, Hidden, Odd, Seed, Planted } role = Role::Main;
    RunRecord record;
    JudgeEvidence evidence;
};
std::string to_string(JudgedRun::Role role);  // "main", "hidden size", "odd size", "seed", "planted NaN/Inf"

// Runs `options` (the learner's kernel) and reports what it saw; the runner in the CLI.
using JudgeMeasure = std::function<JudgedRun(const RunOptions& options, JudgedRun::Role role)>;

struct JudgePlan {
    RunOptions main;                                           // the exercise's size; timed
    std::vector<std::map<std::string, int64_t>> hidden_sizes;  // the exercise's
    int extra_seeds = 2;
    // Whether the kernel's launch takes these sizes (its constraints): the odd size keeps an axis
    // even where making it odd is refused (attention's head dimension, 64 or 128). Empty: all odd.
    std::function<bool(const std::map<std::string, int64_t>&)> accepts;
};

// Every run of the plan through `measure` (main first), then the checks over them.
struct JudgeOutcome {
    std::vector<JudgedRun> runs;
    std::vector<JudgeCheck> checks;
    bool accepted() const;
    std::string refusal() const;  // "refused by check 'poisoned output': ..." or ""
};
JudgeOutcome run_judge(const JudgePlan& plan, const JudgeMeasure& measure);

// The checks over runs already made (run_judge's second half).
std::vector<JudgeCheck> judge_checks(const std::vector<JudgedRun>& runs);

// Sizes with every even axis value made odd (value - 1; 1 stays 1), each axis only where
// `accepts` (when given) takes the result.
std::map<std::string, int64_t> odd_sizes_of(
    const std::map<std::string, int64_t>& sizes,
    const std::function<bool(const std::map<std::string, int64_t>&)>& accepts = nullptr);

// Where NaN, +Inf and -Inf go in an input of `elements` values: up to three of each, at distinct
// positions that depend on `seed` only, the first and last elements among them.
struct PlantedValue {
    int64_t index = 0;
    enum class Kind { NaN, PosInf, NegInf } kind = Kind::NaN;
};
std::vector<PlantedValue> planted_positions(int64_t elements, uint64_t seed);
// The bytes of that value in `dtype` (little-endian), empty for a type without NaN and Inf
// (fp8 e4m3 has no Inf: nothing is planted there).
std::vector<unsigned char> non_finite_bytes(DType dtype, PlantedValue::Kind kind);

// The comparison of a planted run: where the reference is NaN the output must be NaN, where it is
// infinite the same infinity, elsewhere within tolerance.
Correctness compare_planted(const std::vector<float>& actual, const std::vector<float>& expected, const Tolerance& tol);

}  // namespace kl
