#include "course/judge.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kl {

namespace {

std::string sizes_text(const std::map<std::string, int64_t>& sizes) {
    std::string s;
    for (const auto& [k, v] : sizes) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
    return s;
}

// "n=33: FAIL 3 of 33 elements wrong ..." or the run's error.
std::string run_failure(const RunRecord& r) {
    if (!r.error.empty()) return r.error_kind + ": " + r.error;
    if (!r.correctness) return "not checked";
    return r.correctness->summary();
}

bool run_passed(const RunRecord& r) { return r.error.empty() && r.correctness && r.correctness->passed; }

// A check over the runs of some roles: passed when there is at least one and each passed.
JudgeCheck all_of_role(const std::vector<JudgedRun>& runs, std::initializer_list<JudgedRun::Role> roles,
                       const char* name, const std::string& what) {
    JudgeCheck c{name, true, ""};
    int n = 0;
    for (const auto& j : runs) {
        if (std::find(roles.begin(), roles.end(), j.role) == roles.end()) continue;
        ++n;
        if (c.passed && !run_passed(j.record)) {
            c.passed = false;
            c.detail = sizes_text(j.record.sizes) + ": " + run_failure(j.record);
        }
    }
    if (n == 0) return {name, false, "no " + what + " was run"};
    if (c.passed) c.detail = std::to_string(n) + " " + what + (n == 1 ? "" : "s") + ", all correct";
    return c;
}

JudgeCheck poisoned_check(const JudgedRun& main) {
    if (!main.evidence.after_timing) return {judge_check::kPoisoned, false, "the last timed run was not checked"};
    const Correctness& c = *main.evidence.after_timing;
    if (c.passed) return {judge_check::kPoisoned, true, "output poisoned before every run; the last timed run correct"};
    return {judge_check::kPoisoned, false,
            "the output of the last timed run, poisoned before it, was wrong: " + c.summary() +
                (c.unwritten > 0 ? " (a kernel that skips work on later calls)" : "")};
}

JudgeCheck inputs_check(const std::vector<JudgedRun>& runs) {
    int verified = 0;
    for (const auto& j : runs) {
        if (!j.evidence.inputs_verified) continue;
        ++verified;
        if (!j.evidence.inputs_modified.empty()) {
            std::string names;
            for (const auto& n : j.evidence.inputs_modified) names += (names.empty() ? "" : ", ") + n;
            return {judge_check::kInputs, false,
                    "input " + names + " changed during the " + to_string(j.role) +
                        " run (a kernel may write only its outputs)"};
        }
    }
    if (verified == 0) return {judge_check::kInputs, false, "no run verified its inputs"};
    return {judge_check::kInputs, true,
            "inputs compared byte for byte before and after " + std::to_string(verified) + " runs: unchanged"};
}

}  // namespace

std::string to_string(JudgedRun::Role role) {
    switch (role) {
        case JudgedRun::Role::Main: return "main";
        case JudgedRun::Role::Hidden: return "hidden size";
        case JudgedRun::Role::Odd: return "odd size";
        case JudgedRun::Role::Seed: return "seed";
        case JudgedRun::Role::Planted: return "planted NaN/Inf";
    }
    return "?";
}

std::map<std::string, int64_t> odd_sizes_of(const std::map<std::string, int64_t>& sizes,
                                            const std::function<bool(const std::map<std::string, int64_t>&)>& accepts) {
    std::map<std::string, int64_t> odd = sizes;
    for (auto& [k, v] : odd) {
        if (v <= 1 || v % 2 != 0) continue;
        --v;
        if (accepts && !accepts(odd)) ++v;  // this axis stays even: the kernel cannot take it odd
    }
    return odd;
}

bool JudgeOutcome::accepted() const {
    return !checks.empty() && std::all_of(checks.begin(), checks.end(), [](const JudgeCheck& c) { return c.passed; });
}

std::string JudgeOutcome::refusal() const {
    for (const auto& c : checks)
        if (!c.passed) return "refused by check '" + c.name + "': " + c.detail;
    return checks.empty() ? "refused: no check ran" : "";
}

std::vector<JudgeCheck> judge_checks(const std::vector<JudgedRun>& runs) {
    std::vector<JudgeCheck> checks;
    const JudgedRun* main = nullptr;
    for (const auto& j : runs)
        if (j.role == JudgedRun::Role::Main) main = &j;
    if (!main) return {{judge_check::kCorrect, false, "the main run is missing"}};
    checks.push_back({judge_check::kCorrect, run_passed(main->record),
                      sizes_text(main->record.sizes) + ": " + run_failure(main->record)});
    // The main run's own checks first: a refusal names the first check that failed, and a kernel
    // that changes its inputs or skips later calls fails the later sizes too, for the same reason.
    checks.push_back(inputs_check(runs));
    checks.push_back(poisoned_check(*main));
    // The exercise's hidden sizes (if it has any) and the odd size made from the main one.
    checks.push_back(all_of_role(runs, {JudgedRun::Role::Hidden, JudgedRun::Role::Odd}, judge_check::kOddSizes,
                                 "odd or hidden size"));
    JudgeCheck planted = all_of_role(runs, {JudgedRun::Role::Planted}, judge_check::kPlanted, "planted run");
    for (const auto& j : runs)
        if (j.role == JudgedRun::Role::Planted && j.evidence.planted_values == 0 && planted.passed)
            planted = {judge_check::kPlanted, false, "no NaN or Inf could be planted in the inputs"};
    checks.push_back(planted);
    checks.push_back(all_of_role(runs, {JudgedRun::Role::Seed}, judge_check::kSeeds, "seed"));
    const bool cold = main->record.l2 == "cold" && main->record.timing.has_value();
    checks.push_back({judge_check::kColdL2, cold,
                      cold ? "L2 flushed before each of " + std::to_string(main->record.timing->reps) + " repetitions"
                           : "the main run was not timed with a cold L2 (l2 = " + main->record.l2 + ")"});
    return checks;
}

JudgeOutcome run_judge(const JudgePlan& plan, const JudgeMeasure& measure) {
    JudgeOutcome out;
    RunOptions main = plan.main;
    main.cold_l2 = true;
    main.judge.verify_inputs = main.judge.poison_every_run = true;
    out.runs.push_back(measure(main, JudgedRun::Role::Main));
    RunOptions checked = plan.main;  // checked, not timed, inputs verified
    checked.time = false;
    checked.judge.verify_inputs = true;
    for (const auto& sizes : plan.hidden_sizes) {
        RunOptions o = checked;
        for (const auto& [k, v] : sizes) o.sizes[k] = v;
        out.runs.push_back(measure(o, JudgedRun::Role::Hidden));
    }
    RunOptions odd = checked;
    odd.sizes = odd_sizes_of(out.runs.front().record.sizes.empty() ? plan.main.sizes : out.runs.front().record.sizes,
                             plan.accepts);
    out.runs.push_back(measure(odd, JudgedRun::Role::Odd));
    for (int s = 1; s <= plan.extra_seeds; ++s) {
        RunOptions o = checked;
        o.seed = plan.main.seed + uint64_t(s) * 7919;
        out.runs.push_back(measure(o, JudgedRun::Role::Seed));
    }
    RunOptions planted = checked;
    planted.judge.plant_non_finite = true;
    out.runs.push_back(measure(planted, JudgedRun::Role::Planted));
    out.checks = judge_checks(out.runs);
    return out;
}

std::vector<PlantedValue> planted_positions(int64_t elements, uint64_t seed) {
    std::vector<PlantedValue> out;
    if (elements <= 0) return out;
    std::set<int64_t> taken;
    uint64_t x = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    const PlantedValue::Kind kinds[3] = {PlantedValue::Kind::NaN, PlantedValue::Kind::PosInf,
                                         PlantedValue::Kind::NegInf};
    // The first and the last element (edges are where tails go wrong), then spread at random.
    std::vector<int64_t> wanted = {0, elements - 1};
    for (int i = 0; i < 7; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        wanted.push_back(static_cast<int64_t>((x >> 17) % uint64_t(elements)));
    }
    int k = 0;
    for (int64_t idx : wanted) {
        if (!taken.insert(idx).second) continue;
        out.push_back({idx, kinds[k++ % 3]});
    }
    return out;
}

std::vector<unsigned char> non_finite_bytes(DType dtype, PlantedValue::Kind kind) {
    const int k = static_cast<int>(kind);  // NaN, +Inf, -Inf
    switch (dtype) {
        case DType::F32: {
            const uint32_t bits[3] = {0x7FC00000u, 0x7F800000u, 0xFF800000u};
            const uint32_t b = bits[k];
            return {static_cast<unsigned char>(b), static_cast<unsigned char>(b >> 8),
                    static_cast<unsigned char>(b >> 16), static_cast<unsigned char>(b >> 24)};
        }
        case DType::BF16: {
            const uint16_t bits[3] = {0x7FC0, 0x7F80, 0xFF80};
            return {static_cast<unsigned char>(bits[k]), static_cast<unsigned char>(bits[k] >> 8)};
        }
        case DType::F16: {
            const uint16_t bits[3] = {0x7E00, 0x7C00, 0xFC00};
            return {static_cast<unsigned char>(bits[k]), static_cast<unsigned char>(bits[k] >> 8)};
        }
        case DType::E4M3: return {};
    }
    return {};
}

Correctness compare_planted(const std::vector<float>& actual, const std::vector<float>& expected,
                            const Tolerance& tol) {
    // compare_outputs judges the finite part; the non-finite reference values are judged here.
    std::vector<float> finite_actual = actual, finite_expected = expected;
    Correctness extra;
    if (actual.size() == expected.size()) {
        for (size_t i = 0; i < expected.size(); ++i) {
            if (std::isfinite(expected[i])) continue;
            const bool ok = std::isnan(expected[i]) ? std::isnan(actual[i]) : actual[i] == expected[i];
            if (!ok) {
                ++extra.mismatches;
                if (extra.first_mismatches.size() < 8)
                    extra.first_mismatches.push_back({static_cast<int64_t>(i), expected[i], actual[i]});
            }
            finite_actual[i] = finite_expected[i] = 0.f;
        }
    }
    Correctness c = compare_outputs(finite_actual, finite_expected, tol);
    c.mismatches += extra.mismatches;
    c.first_mismatches.insert(c.first_mismatches.begin(), extra.first_mismatches.begin(), extra.first_mismatches.end());
    if (c.first_mismatches.size() > 8) c.first_mismatches.resize(8);
    c.passed = c.passed && extra.mismatches == 0;
    return c;
}

}  // namespace kl
