// The figure vocabulary (course/figure_vocabulary.h) and the one builder both the window and
// export draw through (report::build_figure): names, which metric fits which plot, the default
// rule, and that a request picks the builder and metric from them.
#include <gtest/gtest.h>

#include "base/errors.h"
#include "course/figure_vocabulary.h"
#include "report/figure_request.h"

using namespace kl;
using namespace kl::report;

namespace {

RunRecord timed(const std::string& rung, double ms, int64_t n, int64_t tpb) {
    RunRecord r;
    r.ladder = "lad";
    r.rung = rung;
    r.title = rung;
    r.sizes = {{"n", n}};
    r.params = {{"TPB", tpb}};
    r.dtype = kl::DType::F32;
    TimingStats t;
    t.median_ms = t.min_ms = t.max_ms = ms;
    t.reps = 10;
    r.timing = t;
    r.values.set(tag::ideal_bytes, 12.0 * double(n));
    r.values.set(tag::gbps, r.values.num(tag::ideal_bytes) / (ms * 1e-3) / 1e9);
    r.values.set(tag::peak_memory_bytes, int64_t(r.values.num(tag::ideal_bytes)));
    return r;
}

Ladder one_rung_ladder() {
    Ladder L;
    L.id = "lad";
    L.title = "Ladder";
    L.operation = "vector_add";
    L.default_sizes = {{"n", 1024}};
    Rung r;
    r.id = "a";
    r.title = "Rung a";
    ParamSpec p;
    p.name = "TPB";
    p.default_value = 256;
    p.min = 32;
    p.max = 1024;
    r.params.push_back(p);
    L.rungs.push_back(r);
    return L;
}

}  // namespace

TEST(FigureVocabulary, TablesFollowTheEnumsAndNamesRoundTrip) {
    ASSERT_EQ(plot_kinds().size(), size_t(kPlotKindCount));
    for (int i = 0; i < kPlotKindCount; ++i) {
        const PlotKindInfo& k = plot_kinds()[i];
        EXPECT_EQ(static_cast<int>(k.kind), i) << k.name;  // the window's tab index is the enum value
        EXPECT_EQ(plot_kind_from_name(k.name), k.kind);
        for (Metric m : k.metrics) {
            EXPECT_EQ(metric_info(m).metric, m);
            EXPECT_EQ(metric_from_name(metric_name(m)), m);
            EXPECT_TRUE(metric_fits(k.kind, m));
        }
    }
    EXPECT_EQ(metric_names().size(), 8u);
    for (const auto& name : metric_names()) EXPECT_EQ(metric_name(*metric_from_name(name)), name);
    EXPECT_FALSE(plot_kind_from_name("pie"));
    EXPECT_FALSE(metric_from_name("speed"));
    EXPECT_FALSE(plot_kind_info(PlotKind::Occupancy).from_results);
    EXPECT_EQ(plot_kind_list(true), "bars, sweep, errors, traffic, roofline");
    EXPECT_EQ(metrics_by_kind(),
              "bars: time, rate, pct; sweep: time, rate, memory; traffic: bytes, sectors, conflicts, threads");
    EXPECT_STREQ(metric_label(Metric::Rate, false), "GB/s");
    EXPECT_STREQ(metric_label(Metric::Rate, true), "TFLOP/s");
}

TEST(FigureVocabulary, EachMetricFitsOnlyItsPlots) {
    EXPECT_TRUE(metric_fits(PlotKind::Bars, Metric::Percent));
    EXPECT_FALSE(metric_fits(PlotKind::Sweep, Metric::Percent));
    EXPECT_TRUE(metric_fits(PlotKind::Sweep, Metric::Memory));
    EXPECT_FALSE(metric_fits(PlotKind::Bars, Metric::Memory));
    EXPECT_FALSE(metric_fits(PlotKind::Bars, Metric::Sectors));
    EXPECT_TRUE(metric_fits(PlotKind::Traffic, Metric::Conflicts));
    EXPECT_TRUE(metric_fits(PlotKind::Traffic, Metric::Threads));
    EXPECT_FALSE(metric_fits(PlotKind::Bars, Metric::Threads));
    EXPECT_FALSE(metric_fits(PlotKind::Roofline, Metric::Rate));
}

TEST(FigureVocabulary, TheDefaultRule) {
    EXPECT_EQ(default_metric(PlotKind::Bars, false), Metric::Rate);
    EXPECT_EQ(default_metric(PlotKind::Sweep, true), Metric::Time);  // a size axis: log axes, time
    EXPECT_EQ(default_metric(PlotKind::Sweep, false), Metric::Rate);
    EXPECT_EQ(default_metric(PlotKind::Traffic, false), Metric::Bytes);
    EXPECT_FALSE(default_metric(PlotKind::Errors, false));
    EXPECT_FALSE(default_metric(PlotKind::Occupancy, false));
    EXPECT_EQ(metric_or_default(PlotKind::Sweep, Metric::Memory, true), Metric::Memory);
    for (const auto& k : plot_kinds())
        for (bool size_axis : {false, true})
            if (auto m = default_metric(k.kind, size_axis)) { EXPECT_TRUE(metric_fits(k.kind, *m)) << k.name; }
}

TEST(FigureVocabulary, BuildFigurePicksTheBuilderAndTheDefaultMetric) {
    Ladder L = one_rung_ladder();
    ResultsStore store;
    for (int64_t n : {1024, 4096, 16384}) store.add_live(timed("a", 0.01 * double(n) / 1024, n, 256));
    for (int64_t tpb : {128, 512}) store.add_live(timed("a", 0.02, 1024, tpb));
    PlotContext ctx;
    ctx.ladder = &L;
    ctx.rung = &L.rungs.front();
    ctx.sizes = {{"n", 1024}};
    ctx.params = {{"TPB", 256}};
    FigureRequest req;
    req.plot = PlotKind::Sweep;
    req.axis = "n";
    EXPECT_EQ(shown_metric(req, ctx), Metric::Time);
    BuiltFigure sizes = build_figure(store, ctx, req);
    EXPECT_EQ(sizes.figure.y.label, "Median time");
    EXPECT_EQ(sizes.figure.series.front().points.size(), 3u);
    req.axis = "TPB";
    EXPECT_EQ(shown_metric(req, ctx), Metric::Rate);
    EXPECT_EQ(build_figure(store, ctx, req).figure.y.label, "Bandwidth");
    req.metric = Metric::Memory;
    EXPECT_EQ(build_figure(store, ctx, req).figure.y.unit, metric_info(Metric::Memory).unit);
    FigureRequest bars;
    bars.metric = Metric::Time;
    EXPECT_EQ(build_figure(store, ctx, bars).figure.y.label, "Median time");
    FigureRequest occupancy;
    occupancy.plot = PlotKind::Occupancy;
    EXPECT_FALSE(build_figure(store, ctx, occupancy).empty_reason.empty());
}

TEST(FigureVocabulary, LessonStepsBecomeRequests) {
    LessonStep step;
    step.title = "s";
    step.plot = "occupancy";
    step.plot_kind = PlotKind::Occupancy;
    EXPECT_EQ(request_for_step(step).plot, PlotKind::Bars);  // handouts show the rung bars
    step.plot = "sweep";
    step.plot_kind.reset();  // a step built by hand: the names are read
    step.metric = "memory";
    FigureRequest r = request_for_step(step);
    EXPECT_EQ(r.plot, PlotKind::Sweep);
    EXPECT_EQ(r.metric, Metric::Memory);
    step.plot = "pie";
    EXPECT_THROW(request_for_step(step), InputError);
}
