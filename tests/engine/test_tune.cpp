// `kladder tune` without a GPU (issue 35): the search over a rung's declared space with a
// deterministic fake measurement on a device profile (its launch limits refuse what that GPU
// would), the budget counted in the fake's time, constraints and refusals skipped, a cancel
// keeping the best so far, and the store of tuned settings: a changed source makes it stale.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>

#include "base/paths.h"
#include "model/device_profile.h"
#include "model/launch_geometry.h"
#include "model/manifest_load.h"
#include "model/results_json.h"
#include "model/serve_protocol.h"
#include "model/tuned_store.h"
#include "model/tuner.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_tune {

namespace {

const kl::Ladder& shipped(const std::string& id) {
    static std::vector<kl::Ladder> all = [] {
        std::vector<std::string> errors;
        return kl::load_all_ladders(kl::kernels_dir(), &errors);
    }();
    for (const auto& L : all)
        if (L.id == id) return L;
    throw std::runtime_error("no ladder " + id);
}

kl::DeviceInfo h100() { return kl::load_device_profile(kl::assets_dir() + "/devices/sm_90_h100.json"); }

// A fake GPU: a point's time is `cost_ms(params)`, screening costs 1 s and confirming 3 s of fake
// time; a launch the profile's limits refuse is refused as the runner would refuse it.
struct FakeGpu {
    kl::DeviceInfo device = h100();
    std::function<double(const kl::ParamValues&)> cost_ms;
    std::function<bool(const kl::ParamValues&)> wrong;  // fails its check
    int screens = 0, confirms = 0;
    std::vector<kl::ParamValues> measured;
    kl::MeasurePoint measure() {
        return [this](const kl::ResolvedRun& run, kl::TuneProtocol how) {
            kl::PointResult r;
            const kl::Scope scope = kl::make_scope(run.problem.sizes, run.params, run.problem.dtype, device.sm_count);
            const std::string refusal = kl::launch_geometry_refusal(*run.rung, scope, device.limits);
            if (!refusal.empty()) return kl::PointResult{kl::PointResult::Kind::Refused, 0, false, 0.1, refusal};
            measured.push_back(run.params);
            const bool screen = how == kl::TuneProtocol::Screen;
            (screen ? screens : confirms)++;
            r.median_ms = cost_ms(run.params);
            r.cost_s = screen ? 1.0 : 3.0;
            r.checked = !screen && !(wrong && wrong(run.params));
            return r;
        };
    }
};

kl::TuneRequest request(const kl::Ladder& L, const std::string& rung, double budget) {
    kl::TuneRequest req;
    req.ladder = &L;
    req.rung = L.find_rung(rung);
    req.num_sms = h100().sm_count;
    req.budget_s = budget;
    return req;
}

// gelu_fused_vec's measured shape on the H200 (issue 35): TPB 512, VPT 1 is the fastest.
double gelu_vec_ms(const kl::ParamValues& p) {
    return 1.0 + 0.01 * std::abs(std::log2(double(p.at("TPB")) / 512)) + 0.02 * std::log2(double(p.at("VPT")));
}

TEST(Tune, FindsTheKnownBestAndBeatsTheDefaults) {
    const kl::Ladder& L = shipped("elementwise");
    FakeGpu gpu;
    gpu.cost_ms = gelu_vec_ms;
    kl::TuneOutcome out = kl::tune_rung(request(L, "gelu_fused_vec", 200), gpu.measure());
    ASSERT_TRUE(out.tuned()) << out.stopped;
    EXPECT_EQ(out.best, (kl::ParamValues{{"TPB", 512}, {"VPT", 1}}));
    EXPECT_TRUE(out.checked);
    EXPECT_EQ(out.points_total, 24);  // TPB 32..1024 in powers of two, times VPT 1, 2, 4, 8
    EXPECT_EQ(out.points_tried, 24);
    EXPECT_FALSE(out.partial);
    ASSERT_TRUE(out.default_ms && out.best_ms);
    EXPECT_LT(*out.best_ms, *out.default_ms);
    EXPECT_EQ(out.defaults, (kl::ParamValues{{"TPB", 256}, {"VPT", 4}}));
    EXPECT_LE(out.spent_s, 200);
}

TEST(Tune, RefiningFindsTheBestBetweenTheCoarseGridsValues) {
    kl::Ladder L = shipped("elementwise");
    kl::Rung& r = L.rungs[size_t(L.find_rung("gelu_fused") - L.rungs.data())];
    r.params[0].pow2 = false;  // TPB 32..1024, every integer: 993 values, 8 of them screened first
    FakeGpu gpu;
    gpu.cost_ms = [](const kl::ParamValues& p) { return 1.0 + std::abs(double(p.at("TPB")) - 739.6) / 1000; };
    kl::TuneOutcome out = kl::tune_rung(request(L, "gelu_fused", 500), gpu.measure());
    ASSERT_TRUE(out.tuned()) << out.stopped;
    EXPECT_EQ(out.points_total, 993);
    EXPECT_EQ(out.best.at("TPB"), 740);  // the coarse grid's nearest is 741; one step finer is 740
    EXPECT_LT(out.points_tried, 20);
}

TEST(Tune, RespectsTheBudgetInTheMeasurementsOwnTime) {
    const kl::Ladder& L = shipped("elementwise");
    FakeGpu gpu;
    gpu.cost_ms = gelu_vec_ms;
    kl::TuneOutcome out = kl::tune_rung(request(L, "gelu_fused_vec", 20), gpu.measure());
    // No measurement starts once the budget is spent or its estimate would overrun it: 12 s of
    // screening (60%), then confirmations while 3 s still fit.
    EXPECT_LE(out.spent_s, 20.0);
    EXPECT_TRUE(out.partial);
    EXPECT_EQ(gpu.screens, 12);
    EXPECT_EQ(gpu.confirms, 2);
    EXPECT_LT(out.points_tried, out.points_total);
    EXPECT_TRUE(out.tuned()) << "the best of what was tried is kept";
    // The split over a ladder's rungs: in proportion to what each plans, unused time passing on.
    EXPECT_DOUBLE_EQ(kl::rung_share(120, 10, 40), 30);
    EXPECT_DOUBLE_EQ(kl::rung_share(120, 40, 40), 120);
    EXPECT_DOUBLE_EQ(kl::rung_share(-1, 10, 40), 0);
}

// A tiny ladder whose rung allows TPB * EPT <= 2048 only.
std::vector<kl::Ladder> constrained(const TempTree& t) {
    t.write("kernels/tiny/01_one.cu", "extern \"C\" __global__ void one() {}\n");
    return {kl::load_ladder(t.write("kernels/tiny/ladder.toml", kTinyLadderHead + R"TOML(
  [rung.params.TPB]
  default = 256
  values = [64, 128, 256, 512, 1024]
  [rung.params.EPT]
  default = 1
  values = [1, 2, 4, 8]
  [[rung.constraint]]
  expr = "TPB * EPT <= 2048"
  message = "at most 2048 elements per block"
  [[rung.launch]]
  entry = "one"
  grid = ["1"]
  block = ["TPB"]
  args = []
)TOML"))};
}

TEST(Tune, SkipsConstrainedAndRefusedPoints) {
    TempTree t;
    std::vector<kl::Ladder> ladders = constrained(t);
    FakeGpu gpu;
    gpu.device.limits.max_threads_per_block = 512;  // this "GPU" refuses TPB = 1024
    // Fastest would be the largest block with the most elements, which the limits refuse.
    gpu.cost_ms = [](const kl::ParamValues& p) {
        return 10.0 / double(p.at("TPB") * p.at("EPT")) + 0.001 / double(p.at("TPB"));
    };
    kl::TuneOutcome out = kl::tune_rung(request(ladders[0], "one", 500), gpu.measure());
    ASSERT_TRUE(out.tuned()) << out.stopped;
    for (const auto& p : gpu.measured) {
        EXPECT_LE(p.at("TPB") * p.at("EPT"), 2048) << "a constrained point was measured";
        EXPECT_LE(p.at("TPB"), 512) << "a refused point counted as measured";
    }
    EXPECT_EQ(out.best, (kl::ParamValues{{"TPB", 512}, {"EPT", 4}}));
    EXPECT_EQ(out.points_tried, 15);  // 20 declared, 3 over 2048 elements, 2 more of TPB 1024 refused
    EXPECT_EQ(out.points_refused, 5);
    std::string reasons;
    for (const auto& r : out.refusals) reasons += r + "\n";
    EXPECT_NE(reasons.find("at most 2048 elements per block"), std::string::npos) << reasons;
    EXPECT_NE(reasons.find("1024 threads > 512, the device's limit"), std::string::npos) << reasons;
}

TEST(Tune, AFailedCheckNeverWinsAndCancelKeepsTheBestSoFar) {
    const kl::Ladder& L = shipped("elementwise");
    FakeGpu gpu;
    gpu.cost_ms = gelu_vec_ms;
    gpu.wrong = [](const kl::ParamValues& p) { return p.at("TPB") == 512 && p.at("VPT") == 1; };
    kl::TuneOutcome out = kl::tune_rung(request(L, "gelu_fused_vec", 200), gpu.measure());
    ASSERT_TRUE(out.tuned());
    EXPECT_NE(out.best, (kl::ParamValues{{"TPB", 512}, {"VPT", 1}}));
    EXPECT_EQ(out.points_failed, 1);

    FakeGpu cancelled;
    std::atomic<bool> stop{false};
    cancelled.cost_ms = gelu_vec_ms;
    kl::TuneRequest req = request(L, "gelu_fused_vec", 200);
    req.cancel = &stop;
    kl::MeasurePoint inner = cancelled.measure();
    kl::TuneOutcome part = kl::tune_rung(req, [&](const kl::ResolvedRun& run, kl::TuneProtocol how) {
        kl::PointResult r = inner(run, how);
        if (cancelled.screens == 5) stop = true;  // Ctrl-C during the fifth measurement
        return r;
    });
    EXPECT_TRUE(part.cancelled && part.partial);
    EXPECT_EQ(cancelled.screens, 5);
    EXPECT_EQ(cancelled.confirms, 0) << "nothing is measured after a cancel";
    ASSERT_TRUE(part.tuned());
    EXPECT_FALSE(part.checked);
    double best_seen = 1e9;
    for (const auto& p : cancelled.measured) best_seen = std::min(best_seen, gelu_vec_ms(p));
    EXPECT_DOUBLE_EQ(*part.best_ms, best_seen);
}

// [SECTION] The store

kl::TunedEntry entry(const std::string& hash) {
    kl::TunedEntry e;
    e.device = {"NVIDIA H200", 90, 13000};
    e.ladder = "tiny";
    e.rung = "one";
    e.dtype = "fp32";
    e.sizes = {{"n", 1000}};
    e.params = {{"TPB", 512}, {"EPT", 4}};
    e.source_sha256 = hash;
    e.tuned_at = "2026-11-29T12:00:00Z";
    e.points_tried = 13;
    e.points_total = 20;
    e.best_ms = 0.5;
    return e;
}

TEST(TunedStore, AChangedSourceOrDriverMakesTheSettingsStale) {
    TempTree t;
    t.write("kernels/tiny/helper.cuh", "#define SCALE 2\n");
    std::vector<kl::Ladder> ladders = constrained(t);
    const kl::Rung& r = ladders[0].rungs[0];
    t.write("kernels/tiny/01_one.cu", "#include \"helper.cuh\"\nextern \"C\" __global__ void one() {}\n");
    const std::string before = kl::rung_source_hash(r);
    kl::TunedStore store;
    kl::put_tuned_entry(store, entry(before));
    const kl::TunedDevice h200{"NVIDIA H200", 90, 13000};
    const std::map<std::string, int64_t> n{{"n", 1000}};
    kl::TunedLookup ok = kl::find_tuned(store, h200, "tiny", "one", "fp32", n, before);
    ASSERT_TRUE(ok.entry) << ok.note;
    EXPECT_EQ(ok.entry->params.at("TPB"), 512);

    t.write("kernels/tiny/helper.cuh", "#define SCALE 3\n");  // a header it includes changed
    const std::string after = kl::rung_source_hash(r);
    EXPECT_NE(before, after);
    kl::TunedLookup stale = kl::find_tuned(store, h200, "tiny", "one", "fp32", n, after);
    EXPECT_FALSE(stale.entry);
    EXPECT_NE(stale.note.find("stale: its source changed"), std::string::npos) << stale.note;
    kl::TunedLookup driver = kl::find_tuned(store, {"NVIDIA H200", 90, 13010}, "tiny", "one", "fp32", n, before);
    EXPECT_FALSE(driver.entry);
    EXPECT_NE(driver.note.find("driver 13000"), std::string::npos) << driver.note;
    kl::TunedLookup none = kl::find_tuned(store, {"NVIDIA H100", 90, 13000}, "tiny", "one", "fp32", n, before);
    EXPECT_NE(none.note.find("no tuned settings"), std::string::npos) << none.note;

    // Tuning again replaces the entry of that device, rung, dtype and sizes.
    kl::put_tuned_entry(store, entry(after));
    ASSERT_EQ(store.entries.size(), 1u);
    EXPECT_TRUE(kl::find_tuned(store, h200, "tiny", "one", "fp32", n, after).entry);
}

TEST(TunedStore, WritesAndReadsBackAndRefusesHostileFiles) {
    TempTree t;
    kl::TunedStore store;
    kl::TunedEntry e = entry(std::string(64, 'a'));
    e.default_ms = 0.6;
    kl::put_tuned_entry(store, e);
    const std::string path = t.path("data/tuned.json");
    kl::save_tuned_store(path, store);
    kl::TunedStore back = kl::load_tuned_store(path);
    ASSERT_EQ(back.entries.size(), 1u);
    EXPECT_EQ(back.entries[0].params, e.params);
    EXPECT_EQ(back.entries[0].default_ms, 0.6);
    EXPECT_EQ(kl::tuned_store_to_json_text(back), kl::tuned_store_to_json_text(store));
    EXPECT_TRUE(kl::load_tuned_store(t.path("none.json")).entries.empty());

    const std::string good = kl::tuned_store_to_json_text(store);
    auto refusal = [&](const std::string& text) {
        return input_error_of([&] { kl::tuned_store_from_json_text(text, "tuned.json"); });
    };
    EXPECT_NE(refusal(good.substr(0, good.size() / 2)).find("tuned.json: not valid JSON"), std::string::npos);
    std::string wrong = good;
    wrong.replace(wrong.find("\"TPB\":512"), 9, "\"TPB\":\"big\"");
    EXPECT_NE(refusal(wrong).find("entries[0].params.TPB"), std::string::npos) << refusal(wrong);
    std::string newer = good;
    newer.replace(newer.find("\"version\": 1"), 12, "\"version\": 9");
    EXPECT_NE(refusal(newer).find("version: 9 is newer"), std::string::npos) << refusal(newer);
    std::filesystem::create_symlink(path, t.path("link.json"));
    EXPECT_NE(input_error_of([&] { kl::load_tuned_store(t.path("link.json")); }).find("symbolic link"),
              std::string::npos);
}

TEST(TunedStore, RunsRecordTheSettingsTheyUsed) {
    kl::ResultsFile f;
    kl::RunRecord r;
    r.ladder = "elementwise";
    r.rung = "gelu_fused_vec";
    r.settings = {"tuned", "2026-11-29T12:00:00Z", 24, 24, false};
    f.runs.push_back(r);
    r.settings = {};
    f.runs.push_back(r);
    kl::ResultsFile back = kl::results_from_json(kl::to_json(f), "x.json");
    EXPECT_EQ(back.runs[0].settings.kind, "tuned");
    EXPECT_EQ(back.runs[0].settings.points_tried, 24);
    EXPECT_EQ(back.runs[0].settings.tuned_at, "2026-11-29T12:00:00Z");
    EXPECT_EQ(back.runs[1].settings.kind, "") << "a plain run says nothing, as older files do";
    nlohmann::json j = kl::to_json(f);
    j["runs"][0]["settings"]["kind"] = "best";
    EXPECT_NE(input_error_of([&] { kl::results_from_json(j, "x.json"); }).find("runs[0].settings.kind"),
              std::string::npos);
    // The window asks `kladder serve` for them with options.tuned.
    kl::RunRequest req;
    req.ladder = "elementwise";
    req.rung = "gelu_fused_vec";
    req.tuned = true;
    kl::DecodedRequest d = kl::decode_request_line(kl::encode_line(req));
    ASSERT_TRUE(d.request) << d.problem;
    EXPECT_TRUE(d.request->run.tuned);
    EXPECT_FALSE(
        kl::decode_request_line(R"({"type":"run","id":1,"ladder":"a","rung":"b","options":{"tuned":1}})").request);
}

}  // namespace

}  // namespace kl_test_tune
