// The results store and the figures built from it (what the plots and the ladder strip show).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "base/errors.h"
#include "model/results_cache.h"
#include "model/results_json.h"
#include "report/figures.h"
#include "report/results_store.h"

using namespace kl;
using namespace kl::report;

namespace {

RunRecord record(const std::string& rung, double ms, int64_t n, ParamValues params = {{"TPB", 256}}) {
    RunRecord r;
    r.ladder = "lad";
    r.rung = rung;
    r.title = "Rung " + rung;
    r.sizes = {{"n", n}};
    r.params = params;
    r.dtype = kl::DType::F32;
    TimingStats t;
    t.median_ms = ms;
    t.min_ms = ms * 0.9;
    t.max_ms = ms * 1.2;
    t.reps = 10;
    r.timing = t;
    r.values.set(tag::ideal_bytes, 12.0 * double(n));
    r.values.set(tag::flops, double(n));
    r.values.set(tag::gbps, r.values.num(tag::ideal_bytes) / (ms * 1e-3) / 1e9);
    r.values.set(tag::tflops, r.values.num(tag::flops) / (ms * 1e-3) / 1e12);
    return r;
}

Ladder two_rung_ladder() {
    Ladder L;
    L.id = "lad";
    L.title = "Test ladder";
    L.operation = "vector_add";
    L.default_sizes = {{"n", 1024}};
    for (int i = 0; i < 2; ++i) {
        Rung r;
        r.id = i == 0 ? "a" : "b";
        r.title = i == 0 ? "First" : "Second";
        r.index = i;
        ParamSpec p;
        p.name = "TPB";
        p.default_value = 256;
        p.min = 32;
        p.max = 1024;
        p.pow2 = true;
        r.params.push_back(p);
        L.rungs.push_back(r);
    }
    return L;
}

}  // namespace

TEST(ResultsStore, LatestPrefersExactParametersThenNewest) {
    ResultsStore s;
    s.add_live(record("a", 1.0, 1024, {{"TPB", 256}}));
    s.add_live(record("a", 2.0, 1024, {{"TPB", 64}}));
    s.add_live(record("a", 3.0, 2048, {{"TPB", 256}}));
    ParamValues want = {{"TPB", 256}};
    const StoredRun* r = s.latest("lad", "a", {{"n", 1024}}, "fp32", &want);
    ASSERT_NE(r, nullptr);
    EXPECT_DOUBLE_EQ(r->record.timing->median_ms, 1.0);
    r = s.latest("lad", "a", {{"n", 1024}}, "fp32");
    EXPECT_DOUBLE_EQ(r->record.timing->median_ms, 2.0);  // newest at these sizes
    EXPECT_EQ(s.latest("lad", "a", {{"n", 4096}}, "fp32"), nullptr);
    EXPECT_DOUBLE_EQ(s.latest_any("lad", "a")->record.timing->median_ms, 3.0);
    EXPECT_EQ(s.latest("lad", "a", {{"n", 1024}}, "bf16"), nullptr);
}

TEST(ResultsStore, SweepCollectsOnePointPerValue) {
    ResultsStore s;
    for (int64_t tpb : {32, 64, 128}) s.add_live(record("a", 100.0 / double(tpb), 1024, {{"TPB", tpb}}));
    s.add_live(record("a", 9.0, 1024, {{"TPB", 64}}));  // newer point replaces the older one
    s.add_live(record("a", 5.0, 2048, {{"TPB", 32}}));  // other size: not part of this sweep
    auto pts = s.sweep("lad", "a", "TPB", {{"n", 1024}}, {{"TPB", 256}}, "fp32");
    ASSERT_EQ(pts.size(), 3u);
    EXPECT_EQ(pts[0]->record.params.at("TPB"), 32);
    EXPECT_DOUBLE_EQ(pts[1]->record.timing->median_ms, 9.0);
    auto sizes = s.sweep("lad", "a", "n", {{"n", 1024}}, {{"TPB", 32}}, "fp32");
    EXPECT_EQ(sizes.size(), 2u);  // n = 1024 and n = 2048 at TPB = 32
}

TEST(ResultsStore, RecordedFilesAndCalibration) {
    ResultsStore s;
    ResultsFile f;
    f.created = "2026-11-22T13:46:43Z";
    DeviceInfo d;
    d.name = "Some GPU";
    f.device = d;
    Calibration c;
    c.copy_gbps = 2800;
    f.calibration = c;
    f.runs.push_back(record("a", 1.0, 1024));
    s.add_file(f, "rec.json");
    ASSERT_EQ(s.sources().size(), 1u);
    EXPECT_EQ(s.sources()[0].device, "Some GPU");
    ASSERT_TRUE(s.calibration());
    EXPECT_DOUBLE_EQ(s.calibration()->copy_gbps, 2800);
    Calibration live;
    live.copy_gbps = 3000;
    s.set_live_calibration(live);
    EXPECT_DOUBLE_EQ(s.calibration()->copy_gbps, 2800);  // another GPU's (unnamed) roof: not this device's
    s.set_live_device("Some GPU");                       // the learner's GPU is the one recorded
    EXPECT_DOUBLE_EQ(s.calibration()->copy_gbps, 3000);
    EXPECT_FALSE(s.runs()[0].live);
}

TEST(ResultsStore, MissingRecordedFolderIsNotAnError) {
    ResultsStore s;
    std::vector<std::string> errors;
    s.load_recorded_dir("/nonexistent/folder", &errors);
    EXPECT_TRUE(errors.empty());
    EXPECT_TRUE(s.runs().empty());
}

TEST(Figures, RungBarsOnePerRungWithItsColourAndTheCopyRoof) {
    Ladder L = two_rung_ladder();
    ResultsStore s;
    s.add_live(record("a", 1.0, 1024));
    PlotContext ctx;
    ctx.ladder = &L;
    ctx.sizes = {{"n", 1024}};
    ctx.rung = &L.rungs[0];
    ctx.params = {{"TPB", 256}};
    Calibration c;
    c.copy_gbps = 2800;
    ctx.calibration = c;
    BuiltFigure b = rung_bars(s, ctx, Metric::Rate);
    EXPECT_TRUE(b.empty_reason.empty());
    ASSERT_EQ(b.figure.x.categories.size(), 2u);
    EXPECT_EQ(b.figure.y.unit, "GB/s");
    EXPECT_EQ(b.bar_colors, (std::vector<int>{0, 1}));
    ASSERT_EQ(b.bar_runs.size(), 2u);
    EXPECT_NE(b.bar_runs[0], nullptr);
    EXPECT_EQ(b.bar_runs[1], nullptr);  // no result for rung b: no bar, not a zero bar
    const auto& bars = b.figure.series.at(0).points;
    EXPECT_NEAR(bars[0].y, 12.0 * 1024 / 1e-3 / 1e9, 1e-9);
    EXPECT_TRUE(std::isnan(bars[1].y));
    bool roof = false;
    for (const auto& ser : b.figure.series) roof |= ser.kind == plot::SeriesKind::HLine && ser.value == 2800;
    EXPECT_TRUE(roof);
}

TEST(Figures, TimeBarsPickMicrosecondsForShortKernels) {
    Ladder L = two_rung_ladder();
    ResultsStore s;
    s.add_live(record("a", 0.025, 1024));
    PlotContext ctx;
    ctx.ladder = &L;
    ctx.sizes = {{"n", 1024}};
    BuiltFigure b = rung_bars(s, ctx, Metric::Time);
    EXPECT_EQ(b.figure.y.unit, "\xC2\xB5s");
    EXPECT_NEAR(b.figure.series[0].points[0].y, 25.0, 1e-9);
}

TEST(Figures, EmptyStoreSaysWhy) {
    Ladder L = two_rung_ladder();
    ResultsStore s;
    PlotContext ctx;
    ctx.ladder = &L;
    ctx.sizes = {{"n", 1024}};
    ctx.rung = &L.rungs[0];
    EXPECT_FALSE(rung_bars(s, ctx, Metric::Rate).empty_reason.empty());
    EXPECT_FALSE(sweep_lines(s, ctx, "TPB", Metric::Rate).empty_reason.empty());
    EXPECT_FALSE(roofline(s, ctx).empty_reason.empty());
    PlotContext none;
    EXPECT_FALSE(rung_bars(s, none, Metric::Rate).empty_reason.empty());
}

TEST(Figures, SizeSweepIsLogLogAndParameterSweepIsCategorical) {
    Ladder L = two_rung_ladder();
    ResultsStore s;
    for (int64_t n : {1024, 4096, 16384}) s.add_live(record("a", 0.001 * double(n), n));
    for (int64_t tpb : {32, 64, 128}) s.add_live(record("a", 1.0, 1024, {{"TPB", tpb}}));
    PlotContext ctx;
    ctx.ladder = &L;
    ctx.sizes = {{"n", 1024}};
    ctx.rung = &L.rungs[0];
    ctx.params = {{"TPB", 256}};
    BuiltFigure sizes = sweep_lines(s, ctx, "n", Metric::Time);
    EXPECT_EQ(sizes.figure.x.scale, plot::Scale::Log10);
    EXPECT_EQ(sizes.figure.y.scale, plot::Scale::Log10);
    EXPECT_EQ(sizes.figure.x.unit, "elements");
    ASSERT_EQ(sizes.figure.series.at(0).points.size(), 3u);
    EXPECT_EQ(sizes.figure.series[0].color, 0);
    BuiltFigure params = sweep_lines(s, ctx, "TPB", Metric::Rate);
    // The size sweep's n = 1024 point ran at TPB = 256: it is a point of the TPB sweep too.
    EXPECT_EQ(params.figure.x.categories, (std::vector<std::string>{"32", "64", "128", "256"}));
    ASSERT_EQ(params.point_runs.at(0).size(), 4u);
    EXPECT_DOUBLE_EQ(params.figure.series[0].points[3].x, 3.0);  // category index, not the value
}

TEST(Figures, ErrorMapForTwoDimensionalOutputs) {
    RunRecord r = record("a", 1.0, 1024);
    Correctness c;
    c.passed = false;
    c.error_map.rows = 2;
    c.error_map.cols = 3;
    c.error_map.source_rows = 64;
    c.error_map.source_cols = 96;
    c.error_map.fraction_bad = {0, 0, 1, 0, 0.5f, 0};
    r.correctness = c;
    ResultsStore s;
    s.add_live(r);
    PlotContext ctx;
    BuiltFigure b = correctness(s, ctx, &s.runs()[0]);
    ASSERT_TRUE(b.figure.heatmap.has_value());
    EXPECT_EQ(b.figure.heatmap->rows, 2);
    EXPECT_DOUBLE_EQ(b.figure.heatmap->at(0, 2), 100.0);
    EXPECT_DOUBLE_EQ(b.figure.heatmap->x_extent.max, 96.0);
    EXPECT_FALSE(b.figure.x.unit.empty());
    EXPECT_FALSE(b.figure.y.unit.empty());
}

TEST(Figures, SizeFormatting) {
    EXPECT_EQ(format_size_value(268435456), "2^28 (268,435,456)");
    EXPECT_EQ(format_size_value(1000), "1,000");
    EXPECT_EQ(format_sizes({{"cols", 4096}, {"rows", 512}}), "cols = 4,096, rows = 512");
}

namespace {

ResultsFile one_run_file(const std::string& rung, double ms) {
    ResultsFile f;
    f.created = "2026-11-30T19:00:00Z";
    DeviceInfo d;
    d.name = "Some GPU";
    f.device = d;
    RunRecord r = record(rung, ms, 1024);
    r.timing->mean_ms = ms;
    f.runs.push_back(r);
    return f;
}

}  // namespace

// The recordings are parsed once per process, and a file changed on disk is read again: rewritten
// in place, replaced by a rename, or broken (its error, not the old content).
TEST(ResultsCache, ParsesOnceAndReadsAChangedFileAgain) {
    clear_results_cache();
    const std::string dir = ::testing::TempDir() + "kl_results_cache";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/rec.json";
    save_results(path, one_run_file("a", 1.0));
    EXPECT_EQ(load_results_cached(path).runs.at(0).rung, "a");
    EXPECT_EQ(load_results_cached(path).runs.at(0).rung, "a");
    EXPECT_EQ(results_cache_counts().parses, 1);
    EXPECT_EQ(results_cache_counts().hits, 1);

    save_results(path, one_run_file("b", 2.0));  // atomic: a new file renamed over the old
    EXPECT_EQ(load_results_cached(path).runs.at(0).rung, "b");
    {
        std::ofstream rewrite(path, std::ios::trunc);  // in place, same inode
        rewrite << results_to_text(one_run_file("c", 3.0));
    }
    EXPECT_EQ(load_results_cached(path).runs.at(0).rung, "c");
    EXPECT_EQ(results_cache_counts().parses, 3);
    EXPECT_EQ(results_cache_counts().entries, 1);

    {
        std::ofstream broken(path, std::ios::trunc);
        broken << "{\"runs\": [";
    }
    EXPECT_THROW(load_results_cached(path), InputError);
    EXPECT_THROW(load_results_cached(path), InputError);
    std::filesystem::remove(path);
    EXPECT_THROW(load_results_cached(path), InputError);
    std::filesystem::create_directory(path);  // not a regular file: refused as load_results refuses it
    EXPECT_THROW(load_results_cached(path), InputError);
    std::filesystem::remove_all(dir);
    clear_results_cache();
}
