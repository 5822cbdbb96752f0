// Synthetic submissions for the class-mode tests (engine and report): the device facts come from
// a shipped profile (assets/devices) and its datasheet, the calibration and the timing are MADE UP
// here from a chosen share of the roof. They are test data, never measurements: each one is dated
// 2000-01-01, its workbook is "class test fixture", and its source says it is synthetic.
#pragma once
#include <string>

#include "base/paths.h"
#include "base/sha256.h"
#include "course/plausibility.h"
#include "course/submission.h"
#include "model/device_profile.h"

namespace class_fixture {

inline constexpr int64_t kN = int64_t(1) << 24;

// The profile's device as its runtime names it (its first datasheet entry's reported_names[0]) at
// its boost clock.
inline kl::DeviceInfo device_of(const std::string& profile) {
    kl::DeviceInfo d = kl::load_device_profile(kl::assets_dir() + "/devices/" + profile);
    for (const auto& s : kl::load_datasheets(kl::assets_dir() + "/devices"))
        if (s.profile == profile) {
            d.name = s.reported_names.front();
            d.sm_clock_khz = static_cast<int>(s.boost_clock_mhz * 1000);
            d.uuid = "synthetic-" + profile;
            break;
        }
    return d;
}

inline kl::Datasheet datasheet(const std::string& profile) {
    for (const auto& s : kl::load_datasheets(kl::assets_dir() + "/devices"))
        if (s.profile == profile) return s;
    return {};
}

// A vector add at n = 2^24 that reached `share` of a calibrated copy roof of 90% of the datasheet's
// bandwidth (GEMM rates 70% of its peaks).
inline kl::Submission submission(const std::string& profile, const std::string& learner, double share,
                                 const std::string& exercise = "01_first_kernel/8") {
    kl::Submission s;
    s.learner = learner;
    s.exercise = exercise;
    s.ladder = "elementwise";
    s.like = "vector_add";
    s.source_name = "mine.cu";
    s.source = "// synthetic test source of " + learner + "\nextern \"C\" __global__ void vector_add() {}\n";
    s.source_sha256 = kl::sha256_hex(s.source);
    s.workbook = "class test fixture";
    s.created = "2000-01-01T00:00:00Z";
    s.results.created = s.created;
    s.results.tool = s.workbook;
    s.results.device = device_of(profile);
    kl::Calibration cal;
    cal.device_uuid = s.results.device->uuid;
    cal.measured_at = s.created;
    cal.copy_gbps = 0.9 * datasheet(profile).memory_gbps;
    cal.sgemm_tflops = 0.7 * datasheet(profile).fp32_tflops;
    cal.bf16_tflops = 0.7 * datasheet(profile).tensor_tflops;
    s.results.calibration = cal;
    kl::RunRecord r;
    r.ladder = "elementwise";
    r.rung = "submitted";
    r.operation = "vector_add";
    r.sizes = {{"n", kN}};
    r.values.set(kl::tag::ideal_bytes, 12.0 * double(kN));
    r.values.set(kl::tag::flops, double(kN));
    kl::TimingStats t;
    t.median_ms = t.min_ms = t.max_ms = t.mean_ms = 12.0 * double(kN) / (share * cal.copy_gbps * 1e9) * 1e3;
    t.rel_spread = 0.01;
    t.reps = 100;
    r.timing = t;
    r.values.set(kl::tag::gbps, 12.0 * double(kN) / (t.median_ms * 1e-3) / 1e9);  // as the runner derives them
    r.values.set(kl::tag::tflops, double(kN) / (t.median_ms * 1e-3) / 1e12);
    kl::Correctness c;
    c.passed = true;
    c.elements = kN;
    r.correctness = c;
    s.results.runs = {r};
    s.mine = 0;
    s.goal = "correct and gbps >= 0.8 * device.copy_gbps";  // lesson 1's, judged on the made-up share
    s.goal_met = share >= 0.8;
    s.goal_summary = s.goal_met ? "goal met" : "goal not met: gbps >= 0.8 * device.copy_gbps";
    for (const char* name :
         {kl::judge_check::kCorrect, kl::judge_check::kOddSizes, kl::judge_check::kPlanted, kl::judge_check::kPoisoned,
          kl::judge_check::kInputs, kl::judge_check::kSeeds, kl::judge_check::kColdL2})
        s.checks.push_back({name, true, "synthetic"});
    return s;
}

}  // namespace class_fixture
