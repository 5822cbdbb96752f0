// Two recorded devices in one store: answers come from the device shown (the first file's unless
// a lesson step, the learner or the runner's GPU picks another) and from no other, a rung the
// device shown did not run is "not recorded for this device" (issue 38: an H100 roof under H200
// bars), live runs are their GPU's, and the rung bars can put a second device's bars beside the
// first's.
#include <gtest/gtest.h>

#include <cmath>

#include "report/figures.h"
#include "report/results_store.h"

using namespace kl;
using namespace kl::report;

namespace {

RunRecord run_of(const std::string& rung, double ms) {
    RunRecord r;
    r.ladder = "lad";
    r.rung = rung;
    r.title = rung;
    r.sizes = {{"n", 1024}};
    r.params = {{"TPB", 256}};
    r.dtype = kl::DType::F32;
    TimingStats t;
    t.median_ms = t.min_ms = t.max_ms = ms;
    t.reps = 10;
    r.timing = t;
    r.values.set(tag::ideal_bytes, 1e9);
    r.values.set(tag::gbps, r.values.num(tag::ideal_bytes) / (ms * 1e-3) / 1e9);
    return r;
}

ResultsFile file_of(const std::string& device, double ms_a, double copy_gbps) {
    ResultsFile f;
    DeviceInfo d;
    d.name = device;
    f.device = d;
    Calibration c;
    c.copy_gbps = copy_gbps;
    f.calibration = c;
    f.runs.push_back(run_of("a", ms_a));
    return f;
}

Ladder ladder_of_two() {
    Ladder L;
    L.id = "lad";
    L.title = "Test ladder";
    for (int i = 0; i < 2; ++i) {
        Rung r;
        r.id = i == 0 ? "a" : "b";
        r.title = r.id;
        r.index = i;
        ParamSpec p;
        p.name = "TPB";
        p.default_value = 256;
        r.params.push_back(p);
        L.rungs.push_back(r);
    }
    return L;
}

}  // namespace

TEST(TwoDevices, TheFirstRecordedDeviceStaysPreferredOverANewerSecondOne) {
    ResultsStore s;
    s.add_file(file_of("GPU One", 2.0, 3000), "one.json");
    s.add_file(file_of("GPU Two", 1.0, 4200), "two.json");  // loaded later: newer, but not preferred
    EXPECT_EQ(s.preferred_device(), "GPU One");
    EXPECT_EQ(s.recorded_devices(), (std::vector<std::string>{"GPU One", "GPU Two"}));
    const StoredRun* r = s.latest("lad", "a", {{"n", 1024}}, "fp32");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->device, "GPU One");
    EXPECT_DOUBLE_EQ(s.calibration()->copy_gbps, 3000);
    EXPECT_EQ(s.latest_any("lad", "a")->device, "GPU One");
    // A step bound to the second device (lesson.toml `device`), or the learner's pick.
    s.set_preferred_device("GPU Two");
    EXPECT_EQ(s.latest("lad", "a", {{"n", 1024}}, "fp32")->device, "GPU Two");
    EXPECT_DOUBLE_EQ(s.calibration()->copy_gbps, 4200);
    EXPECT_EQ(s.latest_on("GPU One", "lad", "a", {{"n", 1024}}, "fp32")->device, "GPU One");
    EXPECT_EQ(s.latest_on("GPU Three", "lad", "a", {{"n", 1024}}, "fp32"), nullptr);
}

TEST(TwoDevices, LiveRunsAreTheirGpusAndShowWhenThatGpuIsShown) {
    ResultsStore s;
    s.add_file(file_of("GPU One", 2.0, 3000), "one.json");
    s.set_live_device("Learner GPU");
    s.add_live(run_of("a", 5.0));
    // Still showing the recording: its own run, not the learner's GPU's.
    const StoredRun* r = s.latest("lad", "a", {{"n", 1024}}, "fp32");
    ASSERT_NE(r, nullptr);
    EXPECT_FALSE(r->live);
    EXPECT_EQ(r->device, "GPU One");
    EXPECT_EQ(s.devices(), (std::vector<std::string>{"Learner GPU", "GPU One"}));
    // The window shows the learner's GPU once its runner says hello.
    s.set_preferred_device("Learner GPU");
    r = s.latest("lad", "a", {{"n", 1024}}, "fp32");
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(r->live);
    EXPECT_EQ(r->device, "Learner GPU");
}

namespace {

// Builds the mixing case of issue 38: two devices recorded, the shown one missing a rung (and
// its calibration) that the other has.
ResultsStore two_devices_one_missing_rung_b() {
    ResultsStore s;
    ResultsFile one = file_of("GPU One", 2.0, 3000);
    one.calibration.reset();  // GPU One measured no copy roof
    ResultsFile two = file_of("GPU Two", 1.0, 4200);
    two.runs.push_back(run_of("b", 0.5));  // only GPU Two ran rung b
    s.add_file(one, "one.json");
    s.add_file(two, "two.json");
    return s;
}

}  // namespace

TEST(TwoDevices, ARungTheShownDeviceDidNotRunIsNotFilledFromAnother) {
    ResultsStore s = two_devices_one_missing_rung_b();
    ASSERT_EQ(s.preferred_device(), "GPU One");
    EXPECT_EQ(s.latest("lad", "b", {{"n", 1024}}, "fp32"), nullptr);
    ParamValues tpb = {{"TPB", 256}};
    EXPECT_EQ(s.latest("lad", "b", {{"n", 1024}}, "fp32", &tpb), nullptr);
    EXPECT_EQ(s.latest_any("lad", "b"), nullptr);
    EXPECT_TRUE(s.sweep("lad", "b", "TPB", {{"n", 1024}}, tpb, "fp32").empty());
    EXPECT_FALSE(s.calibration()) << "GPU Two's copy roof under GPU One's bars";
    // GPU Two, shown, answers with its own.
    s.set_preferred_device("GPU Two");
    ASSERT_NE(s.latest("lad", "b", {{"n", 1024}}, "fp32"), nullptr);
    EXPECT_EQ(s.latest("lad", "b", {{"n", 1024}}, "fp32")->device, "GPU Two");
    EXPECT_EQ(s.latest("lad", "a", {{"n", 1024}}, "fp32")->device, "GPU Two");
    EXPECT_DOUBLE_EQ(s.calibration()->copy_gbps, 4200);
    // A live GPU's calibration is its own, not the recorded device's.
    Calibration live;
    live.copy_gbps = 999;
    s.set_live_device("Learner GPU");
    s.set_live_calibration(live);
    EXPECT_DOUBLE_EQ(s.calibration()->copy_gbps, 4200);
    s.set_preferred_device("Learner GPU");
    EXPECT_DOUBLE_EQ(s.calibration()->copy_gbps, 999);
    EXPECT_EQ(s.latest("lad", "a", {{"n", 1024}}, "fp32"), nullptr);  // it ran nothing yet
}

TEST(TwoDevices, TheBarsSayNotRecordedForThisDeviceInsteadOfShowingTheOthersValue) {
    Ladder L = ladder_of_two();
    ResultsStore s = two_devices_one_missing_rung_b();
    PlotContext ctx;
    ctx.ladder = &L;
    ctx.sizes = {{"n", 1024}};
    ctx.rung = &L.rungs[0];
    ctx.params = {{"TPB", 256}};
    ctx.device = s.preferred_device();
    ctx.calibration = s.calibration();
    BuiltFigure b = rung_bars(s, ctx, Metric::Time);
    const plot::Series& bars = b.figure.series.front();
    ASSERT_EQ(bars.kind, plot::SeriesKind::Bars);
    ASSERT_EQ(bars.points.size(), 2u);
    EXPECT_DOUBLE_EQ(bars.points[0].y, 2.0);  // GPU One's rung a
    EXPECT_TRUE(std::isnan(bars.points[1].y)) << "rung b shows GPU Two's " << bars.points[1].y << " ms";
    EXPECT_EQ(b.bar_runs[1], nullptr);
    EXPECT_EQ(b.not_recorded, "b");  // the window adds "not recorded for this device: b" to the caption
    for (const auto& ser : b.figure.series)
        EXPECT_NE(ser.kind, plot::SeriesKind::HLine) << "a roof drawn from another device: " << ser.name;
}

TEST(TwoDevices, RungBarsGroupedByDeviceOneHatchedSeriesPerExtraDevice) {
    Ladder L = ladder_of_two();
    ResultsStore s;
    s.add_file(file_of("GPU One", 2.0, 3000), "one.json");
    s.add_file(file_of("GPU Two", 1.0, 4200), "two.json");
    PlotContext ctx;
    ctx.ladder = &L;
    ctx.sizes = {{"n", 1024}};
    ctx.rung = &L.rungs[0];
    ctx.params = {{"TPB", 256}};
    ctx.device = "GPU One";
    ctx.compare_device = "GPU Two";
    BuiltFigure b = rung_bars(s, ctx, Metric::Time);
    std::vector<const plot::Series*> bars;
    for (const auto& ser : b.figure.series)
        if (ser.kind == plot::SeriesKind::Bars) bars.push_back(&ser);
    ASSERT_EQ(bars.size(), 2u);
    EXPECT_EQ(bars[0]->name, "GPU One");
    EXPECT_EQ(bars[1]->name, "GPU Two");
    EXPECT_TRUE(bars[0]->in_legend && bars[1]->in_legend);
    EXPECT_EQ(bars[1]->hatch, 1);
    EXPECT_DOUBLE_EQ(bars[0]->points[0].y, 2.0);    // ms: GPU One's run of rung a
    EXPECT_DOUBLE_EQ(bars[1]->points[0].y, 1.0);    // and GPU Two's beside it
    EXPECT_TRUE(std::isnan(bars[1]->points[1].y));  // rung b has no run on GPU Two
    ASSERT_EQ(b.compare_runs.size(), 2u);
    EXPECT_EQ(b.compare_runs[0]->device, "GPU Two");
    EXPECT_NE(b.figure.caption.find("grouped by device"), std::string::npos);
    // Without a second device: one bar series, as before.
    ctx.compare_device.clear();
    int n = 0;
    for (const auto& ser : rung_bars(s, ctx, Metric::Time).figure.series) n += ser.kind == plot::SeriesKind::Bars;
    EXPECT_EQ(n, 1);
}

TEST(TwoDevices, ResourcesComeFromAnotherGpuOfTheSameArchitectureOnly) {
    auto with_arch = [](const std::string& name, int cc, bool resources) {
        ResultsFile f = file_of(name, 1.0, 3000);
        f.device->cc_major = cc / 10;
        f.device->cc_minor = cc % 10;
        if (resources) {
            LaunchResources l;
            l.entry = "k";
            l.kernel.regs_per_thread = 40;
            f.runs[0].resources.push_back(l);
        }
        return f;
    };
    ResultsStore s;
    s.add_file(with_arch("H100", 90, false), "h100.json");  // written before schema v2: no resources
    s.add_file(with_arch("RTX", 86, true), "rtx.json");     // another architecture: other code
    const StoredRun& h100 = s.runs()[0];
    EXPECT_EQ(s.resources_for(h100), nullptr);
    s.add_file(with_arch("H200", 90, true), "h200.json");
    const StoredRun* res = s.resources_for(h100);
    ASSERT_NE(res, nullptr);
    EXPECT_EQ(res->device, "H200");
    EXPECT_EQ(res->record.resources[0].kernel.regs_per_thread, 40);
    EXPECT_EQ(s.resources_for(s.runs()[1]), &s.runs()[1]);  // a run with its own resources keeps them
}
