// The results schema survives a round trip, and bad files fail with the file and the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "model/results.h"
#include "model/results_json.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_results {

namespace {
kl::ResultsFile sample() {
    kl::ResultsFile f;
    f.created = "2026-11-22T12:00:00Z";
    f.tool = "kladder 0.1.0";
    kl::DeviceInfo d;
    d.name = "Test GPU";
    d.cc_major = 9;
    d.sm_count = 132;
    d.l2_bytes = 50 << 20;
    f.device = d;
    kl::Calibration c;
    c.copy_gbps = 3000;
    c.sgemm_tflops = 50;
    c.bf16_tflops = 700;
    f.calibration = c;
    kl::RunRecord r;
    r.ladder = "elementwise";
    r.rung = "gelu_fused";
    r.params = {{"TPB", 256}};
    r.sizes = {{"n", 1 << 20}};
    r.timing = kl::summarize({1.0, 1.1, 0.9});
    r.values.set(kl::tag::flops, 9.0 * (1 << 20));
    r.values.set(kl::tag::ideal_bytes, 8.0 * (1 << 20));
    r.values.set(kl::tag::model_bytes, 8.0 * (1 << 20));
    r.values.set(kl::tag::gbps, 2800);
    r.values.set(
        kl::tag::tflops,
        r.values.num(kl::tag::flops) / (r.timing->median_ms * 1e-3) / 1e12);  // a timed run with FLOPs has a rate
    r.values.set(kl::tag::pct_copy, 93.3);
    kl::Correctness cor = kl::compare_outputs({1, 2, 3, 4}, {1, 2, 3, 4}, {0, 1e-6}, {2, 2});
    r.correctness = cor;
    f.runs.push_back(r);
    kl::RunRecord failed;
    failed.ladder = "elementwise";
    failed.rung = "vector_add";
    failed.error_kind = "compile";
    failed.error = "kernel failed to compile";
    f.runs.push_back(failed);
    return f;
}
}  // namespace

TEST(Results, RoundTrip) {
    kl::ResultsFile a = sample();
    nlohmann::json j = kl::to_json(a);
    EXPECT_EQ(j["schema"], "kernel-ladder/results");
    EXPECT_EQ(j["version"], kl::kResultsVersion);
    EXPECT_TRUE(j["runs"][0]["counters"].is_null()) << "counters stay null until measured";
    EXPECT_FALSE(j["runs"][0]["counters_note"].get<std::string>().empty()) << "and say why";
    kl::ResultsFile b = kl::results_from_json(j, "test");
    EXPECT_EQ(kl::to_json(b), j);
    ASSERT_EQ(b.runs.size(), 2u);
    EXPECT_EQ(b.runs[0].params.at("TPB"), 256);
    EXPECT_DOUBLE_EQ(b.runs[0].timing->median_ms, 1.0);
    EXPECT_EQ(b.runs[0].correctness->error_map.rows, 2);
    EXPECT_EQ(b.runs[1].error_kind, "compile");
}

TEST(Results, SaveAndLoadFile) {
    TempTree t;
    kl::save_results(t.path("r.json"), sample());
    kl::ResultsFile b = kl::load_results(t.path("r.json"));
    EXPECT_EQ(b.runs.size(), 2u);
}

TEST(Results, BadFilesNameTheField) {
    TempTree t;
    nlohmann::json j = kl::to_json(sample());
    j["runs"][0]["timing"]["median_ms"] = "fast";
    t.write("bad.json", j.dump());
    try {
        kl::load_results(t.path("bad.json"));
        FAIL();
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("bad.json: runs[0].timing.median_ms: expected a number"),
                  std::string::npos)
            << e.what();
    }
    t.write("notjson.json", "{ nope");
    EXPECT_THROW(kl::load_results(t.path("notjson.json")), kl::InputError);
    nlohmann::json newer = kl::to_json(sample());
    newer["version"] = 99;
    t.write("newer.json", newer.dump());
    EXPECT_THROW(kl::load_results(t.path("newer.json")), kl::InputError);
    EXPECT_THROW(kl::load_results(t.path("missing.json")), kl::InputError);
}

TEST(Results, EveryRecordedFileLoads) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(kl::assets_dir() + "/recorded", ec)) {
        if (e.path().extension() != ".json") continue;
        EXPECT_NO_THROW(kl::load_results(e.path().string())) << e.path();
    }
}

TEST(AtomicFile, WritesWholeFileAndLeavesNoTempOnFailure) {
    TempTree t;
    kl::write_file_atomically(t.path("a.txt"), "hello");
    EXPECT_EQ(kl::read_file(t.path("a.txt")), "hello");
    EXPECT_THROW(kl::write_file_atomically(t.path("no/such/dir/a.txt"), "x"), kl::InputError);
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(t.root())) files += e.is_regular_file();
    EXPECT_EQ(files, 1) << "a failed write must leave no temporary file";
}

}  // namespace kl_test_results
