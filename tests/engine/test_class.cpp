// Class mode (issue 41): HMAC-SHA256 against RFC 4231, signed submissions and each refusal, the
// judge's rules over fake runs (a good learner and three cheaters), plausibility, and a merge of
// 20 synthetic submissions from three device profiles with bad files among them.
// [SECTION] index: HMAC / signing / judge / plausibility / merge
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/hmac.h"
#include "class_fixtures.h"
#include "course/class_merge.h"
#include "course/judge.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_class {

namespace {

std::string refusal_of(const std::string& text, const std::string& origin, const kl::ClassKey& key) {
    try {
        kl::read_submission(text, origin, key);
    } catch (const kl::InputError& e) { return e.what(); }
    return "";
}

kl::ClassKey test_key(char fill) {
    kl::ClassKey k;
    k.name = "test class";
    k.secret = std::string(32, fill);
    return k;
}

}  // namespace

// [SECTION] HMAC: RFC 4231's test cases (case 5, a truncated output, is the first 32 digits of the same function)

TEST(Hmac, Rfc4231TestVectors) {
    struct Case {
        std::string key, data, mac;
    };
    std::string key4;
    for (int i = 1; i <= 25; ++i) key4 += char(i);
    const Case cases[] = {
        {std::string(20, '\x0b'), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
        {"Jefe", "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
        {std::string(20, '\xaa'), std::string(50, '\xdd'),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
        {key4, std::string(50, '\xcd'), "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
        {std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
        {std::string(131, '\xaa'),
         "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be "
         "hashed before being used by the HMAC algorithm.",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"}};
    for (const Case& c : cases) EXPECT_EQ(kl::hmac_sha256_hex(c.key, c.data), c.mac) << c.data;
    EXPECT_EQ(kl::hmac_sha256_hex(std::string(20, '\x0c'), "Test With Truncation").substr(0, 32),
              "a3b6167473100ee06e0c796c2955552b");
    EXPECT_TRUE(kl::equal_in_constant_time("abc", "abc"));
    EXPECT_FALSE(kl::equal_in_constant_time("abc", "abd"));
    EXPECT_FALSE(kl::equal_in_constant_time("abc", "ab"));
}

// [SECTION] Signing

TEST(ClassKey, RoundTripsAndRefusesABadKeyFile) {
    const kl::ClassKey k = kl::make_class_key("GPU class");
    EXPECT_EQ(k.secret.size(), 32u);
    const kl::ClassKey back = kl::class_key_from_text(kl::class_key_to_text(k), "class.key");
    EXPECT_EQ(back.secret, k.secret);
    EXPECT_EQ(back.id(), k.id());
    EXPECT_NE(kl::make_class_key("x").id(), k.id());  // random
    EXPECT_THROW(kl::class_key_from_text(R"({"schema":"kernel-ladder/class-key","version":1,"key":"00"})", "k"),
                 kl::InputError);
}

TEST(Submission, ARefusedRunWithNaNInItSignsAndVerifies) {
    kl::Submission s = class_fixture::submission("sm_90_h200.json", "Eve", 0.5);
    kl::Correctness& c = *s.results.runs[0].correctness;
    c.passed = false;
    c.mismatches = c.nan_count = c.unwritten = 1;
    c.first_mismatches = {{0, 1.5, std::numeric_limits<double>::quiet_NaN()}};  // JSON has no NaN: null
    s.checks[0] = {kl::judge_check::kCorrect, false, "n=16777216: FAIL 1 of 16777216 elements wrong"};
    const kl::ClassKey key = test_key('k');
    const kl::Submission back = kl::read_submission(kl::sign_submission(s, key), "eve.json", key);
    EXPECT_FALSE(back.accepted());
    EXPECT_EQ(back.refusal(), "refused by check 'correct': n=16777216: FAIL 1 of 16777216 elements wrong");
    EXPECT_EQ(back.mine_run()->correctness->mismatches, 1);
}

TEST(Submission, SignedFileVerifiesAndEveryRefusalIsOneLineNamingTheFile) {
    const kl::ClassKey key = test_key('k');
    const kl::Submission s = class_fixture::submission("sm_90_h100.json", "Ada", 0.8);
    const std::string text = kl::sign_submission(s, key);
    const kl::Submission back = kl::read_submission(text, "ada.json", key);
    EXPECT_EQ(back.learner, "Ada");
    EXPECT_EQ(back.source, s.source);
    EXPECT_TRUE(back.accepted());
    EXPECT_EQ(back.goal, s.goal);
    EXPECT_TRUE(back.goal_met);
    ASSERT_NE(back.mine_run(), nullptr);
    EXPECT_DOUBLE_EQ(back.mine_run()->timing->median_ms, s.results.runs[0].timing->median_ms);

    std::string tampered = text;
    tampered.replace(tampered.find("\"Ada\""), 5, "\"Bob\"");
    std::string faster = text;  // a time edited by hand
    const size_t at = faster.find("\"median_ms\": ") + 13;
    faster.replace(at, 1, faster[at] == '1' ? "2" : "1");
    std::string future = text;
    future.replace(future.find("\"version\": 1,\n \"workbook\""), 12, "\"version\": 2");
    const struct {
        std::string text, want;
    } bad[] = {{tampered, "bob.json: tampered"},
               {faster, "bob.json: tampered"},
               {text.substr(0, text.size() / 2), "bob.json: truncated"},
               {"", "bob.json: truncated"},
               {kl::sign_submission(s, test_key('z')), "bob.json: foreign key"},
               {future, "bob.json: future version: submission version 2"},
               {"{\"schema\": \"kernel-ladder/results\"}", "bob.json: not a submission"},
               {"[1, 2", "bob.json: truncated"},
               {"nonsense", "bob.json: not valid JSON"}};
    for (const auto& b : bad) {
        const std::string why = refusal_of(b.text, "bob.json", key);
        EXPECT_EQ(why.rfind(b.want, 0), 0u) << why;
        EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    }
}

// [SECTION] Judge: a good learner and three cheaters, as the runner would report them

namespace {

kl::RunRecord checked_record(const kl::RunOptions& o, bool passed, int64_t unwritten = 0) {
    kl::RunRecord r;
    r.sizes = o.sizes.empty() ? std::map<std::string, int64_t>{{"n", 1 << 20}} : o.sizes;
    r.l2 = o.cold_l2 ? "cold" : "warm";
    kl::Correctness c;
    c.passed = passed;
    c.elements = 100;
    c.mismatches = passed ? 0 : 100;
    c.nan_count = c.unwritten = unwritten;
    r.correctness = c;
    if (o.time) r.timing = kl::TimingStats{1, 1, 1, 1, 0.01, 50};
    return r;
}

enum class Learner { Good, WritesNaN, CachesOutput, MutatesInput };

// What the runner reports of each kind of learner: the NaN writer fails every check of its output;
// the cacher's first (checked) call is right and the timed calls write nothing; the mutator's
// outputs are right but an input changed.
kl::JudgeMeasure fake_runner(Learner who) {
    return [who](const kl::RunOptions& o, kl::JudgedRun::Role role) {
        kl::JudgedRun j;
        j.role = role;
        j.record = checked_record(o, who != Learner::WritesNaN, who == Learner::WritesNaN ? 100 : 0);
        j.evidence.inputs_verified = o.judge.verify_inputs;
        if (who == Learner::MutatesInput && o.judge.verify_inputs) j.evidence.inputs_modified = {"a"};
        if (o.judge.plant_non_finite) j.evidence.planted_values = 9;
        if (o.judge.poison_every_run)
            j.evidence.after_timing = checked_record(o, who == Learner::Good || who == Learner::MutatesInput,
                                                     who == Learner::CachesOutput ? 100 : 0)
                                          .correctness;
        return j;
    };
}

kl::JudgeOutcome judge(Learner who) {
    kl::JudgePlan plan;
    plan.main.sizes = {{"n", 1 << 20}};
    plan.hidden_sizes = {{{"n", 33}}, {{"n", 4097}}};
    return kl::run_judge(plan, fake_runner(who));
}

}  // namespace

TEST(Judge, RunsEveryCheckAndAcceptsAGoodLearner) {
    std::vector<kl::RunOptions> asked;
    kl::JudgePlan plan;
    plan.main.sizes = {{"n", 1 << 20}};
    plan.hidden_sizes = {{{"n", 33}}};
    const kl::JudgeOutcome out = kl::run_judge(plan, [&](const kl::RunOptions& o, kl::JudgedRun::Role r) {
        asked.push_back(o);
        return fake_runner(Learner::Good)(o, r);
    });
    EXPECT_TRUE(out.accepted()) << out.refusal();
    EXPECT_EQ(out.checks.size(), 7u);
    ASSERT_EQ(asked.size(), 6u);  // main, hidden, odd, two seeds, planted
    EXPECT_TRUE(asked[0].time && asked[0].cold_l2 && asked[0].judge.poison_every_run && asked[0].judge.verify_inputs);
    EXPECT_EQ(asked[2].sizes.at("n"), (1 << 20) - 1);  // the odd size
    EXPECT_NE(asked[3].seed, asked[0].seed);
    EXPECT_NE(asked[4].seed, asked[3].seed);
    EXPECT_TRUE(asked[5].judge.plant_non_finite);
    for (size_t i = 1; i < asked.size(); ++i) EXPECT_FALSE(asked[i].time);
}

TEST(Judge, EachCheaterIsRefusedByTheCheckThatCaughtIt) {
    EXPECT_EQ(judge(Learner::WritesNaN).refusal().rfind("refused by check 'correct': ", 0), 0u);
    const std::string cached = judge(Learner::CachesOutput).refusal();
    EXPECT_EQ(cached.rfind("refused by check 'poisoned output': ", 0), 0u) << cached;
    EXPECT_NE(cached.find("skips work on later calls"), std::string::npos);
    const std::string mutated = judge(Learner::MutatesInput).refusal();
    EXPECT_EQ(mutated.rfind("refused by check 'inputs unmodified': input a changed", 0), 0u) << mutated;
}

// The odd size keeps an axis even where the kernel cannot take it odd (attention's head dimension
// is 64 or 128): the check then still runs, at every other axis made odd.
TEST(Judge, OddSizeKeepsAnAxisEvenWhereTheKernelRefusesItOdd) {
    const std::map<std::string, int64_t> main = {{"B", 4}, {"H", 16}, {"N", 4096}, {"d", 64}, {"causal", 0}};
    EXPECT_EQ(kl::odd_sizes_of(main),
              (std::map<std::string, int64_t>{{"B", 3}, {"H", 15}, {"N", 4095}, {"d", 63}, {"causal", 0}}));
    const auto head_dims = [](const std::map<std::string, int64_t>& s) { return s.at("d") == 64 || s.at("d") == 128; };
    EXPECT_EQ(kl::odd_sizes_of(main, head_dims),
              (std::map<std::string, int64_t>{{"B", 3}, {"H", 15}, {"N", 4095}, {"d", 64}, {"causal", 0}}));
    int asked = 0;
    kl::JudgePlan plan;
    plan.main.sizes = main;
    plan.accepts = head_dims;
    kl::run_judge(plan, [&](const kl::RunOptions& o, kl::JudgedRun::Role role) {
        if (role == kl::JudgedRun::Role::Odd) {
            ++asked;
            EXPECT_EQ(o.sizes.at("d"), 64);
            EXPECT_EQ(o.sizes.at("N"), 4095);
        }
        kl::JudgedRun j;
        j.role = role;
        return j;
    });
    EXPECT_EQ(asked, 1);
}

TEST(Judge, PlantsNonFiniteValuesAndComparesThem) {
    const auto p = kl::planted_positions(1000, 7);
    ASSERT_GE(p.size(), 3u);
    EXPECT_EQ(p[0].index, 0);
    EXPECT_EQ(p[1].index, 999);
    EXPECT_EQ(kl::planted_positions(1000, 7).size(), p.size());  // deterministic
    EXPECT_EQ(kl::planted_positions(1, 7).size(), 1u);
    EXPECT_EQ(kl::non_finite_bytes(kl::DType::F32, kl::PlantedValue::Kind::NaN),
              (std::vector<unsigned char>{0x00, 0x00, 0xC0, 0x7F}));
    EXPECT_EQ(kl::non_finite_bytes(kl::DType::BF16, kl::PlantedValue::Kind::NegInf),
              (std::vector<unsigned char>{0x80, 0xFF}));
    EXPECT_TRUE(kl::non_finite_bytes(kl::DType::E4M3, kl::PlantedValue::Kind::NaN).empty());
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const kl::Tolerance tol{0, 1e-6};
    EXPECT_TRUE(kl::compare_planted({nan, inf, 1.f}, {nan, inf, 1.f}, tol).passed);
    EXPECT_FALSE(kl::compare_planted({0.f, inf, 1.f}, {nan, inf, 1.f}, tol).passed);  // NaN swallowed
    EXPECT_FALSE(kl::compare_planted({nan, -inf, 1.f}, {nan, inf, 1.f}, tol).passed);
    EXPECT_FALSE(kl::compare_planted({nan, inf, nan}, {nan, inf, 1.f}, tol).passed);  // NaN made up
}

// [SECTION] Plausibility

namespace {
std::vector<kl::Datasheet> sheets() { return kl::load_datasheets(kl::assets_dir() + "/devices"); }

std::string findings_text(const kl::Submission& s) {
    std::string t;
    for (const auto& f : kl::plausibility_findings(s, sheets()))
        t += std::string(f.level == kl::Finding::Level::Refused ? "refused " : "flagged ") + f.check + ": " + f.detail +
             "\n";
    return t;
}
}  // namespace

TEST(Plausibility, EveryShippedProfileHasADatasheetNamedByItsRuntime) {
    const auto all = sheets();
    EXPECT_GE(all.size(), 6u);
    const kl::Datasheet* h200 = kl::find_datasheet(all, "NVIDIA H200");
    ASSERT_NE(h200, nullptr);
    EXPECT_EQ(h200->sm_count, 132);
    EXPECT_EQ(h200->cc, 90);
    // One profile, several products: the A100's memory differs by part, and its profile (40 GB) is
    // its first entry.
    EXPECT_EQ(kl::find_datasheet(all, "NVIDIA A100-SXM4-40GB")->memory_gbps, 1555);
    EXPECT_EQ(kl::find_datasheet(all, "NVIDIA A100-SXM4-80GB")->memory_gbps, 2039);
    EXPECT_EQ(kl::find_datasheet(all, "NVIDIA A100-SXM4-40GB (profile)")->memory_gbps, 1555);
    EXPECT_EQ(kl::find_datasheet(all, "NVIDIA T4")->bf16_tflops, 0);  // no bf16 on Turing
    EXPECT_EQ(kl::find_datasheet(all, "NVIDIA A100"), nullptr);       // names match whole, not in part
    for (const auto& d : all) EXPECT_GE(d.source.size(), 20u) << d.profile;
}

TEST(Plausibility, AMalformedDatasheetIsOneLineNamingItsField) {
    TempTree tree;
    const std::string dir = tree.path("devices");
    std::filesystem::create_directories(dir);
    nlohmann::json j = nlohmann::json::parse(kl::read_file(kl::assets_dir() + "/devices/sm_89_l4.json"));
    j["datasheet"][0]["memory_gbps"] = -300;
    kl::write_file_atomically(dir + "/sm_89_l4.json", j.dump());
    try {
        kl::load_datasheets(dir);
        FAIL() << "a negative bandwidth was read";
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("sm_89_l4.json: datasheet[0]"), std::string::npos) << e.what();
    }
    j["datasheet"][0]["memory_gbps"] = 300;
    j["datasheet"][0]["peak"] = 1;
    kl::write_file_atomically(dir + "/sm_89_l4.json", j.dump());
    EXPECT_THROW(kl::load_datasheets(dir), kl::InputError);
    j["datasheet"] = j["datasheet"][0];  // the old form, one object: refused, not half-read
    kl::write_file_atomically(dir + "/sm_89_l4.json", j.dump());
    EXPECT_THROW(kl::load_datasheets(dir), kl::InputError);
}

TEST(Plausibility, AnHonestRunPassesAndTheImpossibleIsRefused) {
    const kl::Submission honest = class_fixture::submission("sm_80_a100.json", "Ada", 0.85);
    EXPECT_EQ(findings_text(honest), "");
    EXPECT_NEAR(kl::pct_of_roof(honest), 85, 0.01);
    // 30% over the calibrated roof: refused, naming the roof.
    EXPECT_EQ(findings_text(class_fixture::submission("sm_80_a100.json", "Eve", 1.3))
                  .rfind("refused memory roof: impossible", 0),
              0u);
    // A calibration inflated with the time: each beats the datasheet's bandwidth.
    kl::Submission inflated = class_fixture::submission("sm_89_l4.json", "Eve", 0.9);
    inflated.results.calibration->copy_gbps *= 3;
    kl::TimingStats& t = *inflated.results.runs[0].timing;
    t.median_ms /= 3;
    const std::string found = findings_text(inflated);
    EXPECT_NE(found.find("refused memory roof: impossible: "), std::string::npos) << found;
    EXPECT_NE(found.find("beats the datasheet's 300 GB/s (sm_89_l4.json)"), std::string::npos) << found;
    EXPECT_NE(found.find("flagged calibration: "), std::string::npos) << found;
    // FLOPs beyond the tensor peak (989 TFLOP/s on an H100); above the FP32 peak alone is possible (TF32).
    kl::Submission compute = class_fixture::submission("sm_90_h100.json", "Eve", 0.5);
    const double seconds = compute.results.runs[0].timing->median_ms * 1e-3;
    compute.results.runs[0].values.set(kl::tag::flops, 1500e12 * seconds);
    EXPECT_NE(
        findings_text(compute).find(
            "refused compute peak: impossible: 1500 TFLOP/s beats the tensor peak of 989 TFLOP/s (sm_90_h100.json)"),
        std::string::npos)
        << findings_text(compute);
    compute.results.runs[0].values.set(kl::tag::flops, 400e12 * seconds);
    EXPECT_EQ(findings_text(compute), "");
    compute.results.calibration->sgemm_tflops = 90;  // cuBLAS fp32 (no TF32) above the 67 of the datasheet
    EXPECT_EQ(findings_text(compute).rfind("flagged calibration: calibrated fp32 GEMM 90 TFLOP/s is above", 0), 0u);
}

TEST(Plausibility, FlagsASourceHashAndADeviceThatContradictTheirNames) {
    kl::Submission s = class_fixture::submission("sm_90_h100.json", "Eve", 0.8);
    s.source += "// edited after judging\n";
    EXPECT_EQ(findings_text(s).rfind("flagged source hash: ", 0), 0u);
    s = class_fixture::submission("sm_90_h100.json", "Eve", 0.8);
    s.results.device->sm_count = 144;  // "an H100" with the SMs of another part
    EXPECT_NE(findings_text(s).find(
                  "flagged device: NVIDIA H100 80GB HBM3 reported 144 SMs and sm_90; sm_90_h100.json has 132"),
              std::string::npos);
    s = class_fixture::submission("sm_90_h100.json", "Eve", 0.8);
    s.results.runs[0].clock = kl::make_clock_report(1980, 2600, 2600);
    EXPECT_NE(findings_text(s).find("flagged clock: submitted: SM clock seen at 2600 MHz"), std::string::npos);
}

// [SECTION] Merge: 20 learners on three device profiles, bad files among them

TEST(ClassMerge, TwentySubmissionsFromThreeDevicesAndEachBadFileInOneLine) {
    TempTree tree;
    const std::string dir = tree.path("subs");
    std::filesystem::create_directories(dir);
    const kl::ClassKey key = test_key('k');
    const char* profiles[] = {"sm_90_h100.json", "sm_80_a100.json", "sm_89_l4.json"};
    std::string first;
    for (int i = 0; i < 20; ++i) {
        const std::string name = "learner" + std::to_string(100 + i);
        const std::string text =
            kl::sign_submission(class_fixture::submission(profiles[i % 3], name, 0.3 + 0.03 * i), key);
        tree.write("subs/" + name + ".json", text);
        if (i == 0) first = text;
    }
    tree.write("subs/copy.json", first);  // duplicate (of the file read first, by name)
    std::string tampered = first;
    tampered.replace(tampered.find("learner100"), 10, "learner999");
    tree.write("subs/tampered.json", tampered);
    tree.write("subs/truncated.json", first.substr(0, 300));
    tree.write("subs/foreign.json",
               kl::sign_submission(class_fixture::submission(profiles[0], "x", 0.5), test_key('z')));
    std::string future = first;
    future.replace(future.find("\"version\": 1,\n \"workbook\""), 12, "\"version\": 9");
    tree.write("subs/future.json", future);
    kl::Submission older = class_fixture::submission(profiles[1], "learner101", 0.2);
    older.created = "1999-12-31T00:00:00Z";
    tree.write("subs/older.json", kl::sign_submission(older, key));
    ASSERT_EQ(::symlink("/etc/passwd", tree.path("subs/link.json").c_str()), 0);
    tree.write("subs/notes.txt", "ignored: not a submission file name");

    const kl::ClassMerge m = kl::merge_class(dir, key, sheets());
    EXPECT_EQ(m.entries.size(), 20u);
    const std::vector<std::string> want = {"link.json: a symbolic link; only regular files are read",
                                           "learner100.json: duplicate of copy.json",
                                           "foreign.json: foreign key: ",
                                           "future.json: future version: ",
                                           "older.json: superseded by learner101.json",
                                           "tampered.json: tampered: ",
                                           "truncated.json: truncated: "};
    ASSERT_EQ(m.problems.size(), want.size());
    for (const auto& w : want) {
        bool found = false;
        for (const auto& p : m.problems) found = found || (p.rfind(w, 0) == 0 && p.find('\n') == std::string::npos);
        EXPECT_TRUE(found) << w;
    }
    const auto board = m.leaderboard("01_first_kernel/8");
    ASSERT_EQ(board.size(), 20u);
    EXPECT_EQ(board.front()->sub.learner, "learner119");  // the best share of its own roof
    EXPECT_NEAR(board.front()->pct_roof, 100 * (0.3 + 0.03 * 19), 0.01);
    EXPECT_GT(board.front()->pct_roof, board.back()->pct_roof);
}

}  // namespace kl_test_class
