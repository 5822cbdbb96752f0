#include <gtest/gtest.h>

#include <cmath>

#include "plot/plot_model.h"
#include "plot/sample_figures.h"

namespace kl::plot {
namespace {

bool mentions(const std::vector<std::string>& problems, const std::string& needle) {
    for (const std::string& p : problems)
        if (p.find(needle) != std::string::npos) return true;
    return false;
}

Series line(std::string name, std::vector<Point> points) {
    Series s;
    s.name = std::move(name);
    s.points = std::move(points);
    return s;
}

TEST(AxisTitle, JoinsLabelAndUnit) {
    Axis a;
    a.label = "Bandwidth";
    a.unit = "GB/s";
    EXPECT_EQ(a.title(), "Bandwidth (GB/s)");
    a.unit.clear();
    EXPECT_EQ(a.title(), "Bandwidth");
    a.label.clear();
    a.unit = "ms";
    EXPECT_EQ(a.title(), "ms");
}

TEST(Builders, RooflineThroughTheRidge) {
    Series s = make_roofline("fp32", 67, 3.007, 0.05, 5000);
    EXPECT_EQ(s.kind, SeriesKind::Roofline);
    ASSERT_EQ(s.points.size(), 3u);
    EXPECT_DOUBLE_EQ(s.points[0].y, 3.007 * 0.05);
    EXPECT_DOUBLE_EQ(s.points[1].x, 67 / 3.007);
    EXPECT_DOUBLE_EQ(s.points[1].y, 67);
    EXPECT_DOUBLE_EQ(s.points[2].y, 67);
    EXPECT_EQ(make_roofline("flat", 1, 100, 1, 10).points.size(), 2u);  // ridge left of the range
    EXPECT_TRUE(make_roofline("bad", -1, 3, 1, 10).points.empty());
    EXPECT_TRUE(make_roofline("bad", 1, 3, 10, 1).points.empty());
}

TEST(Builders, ReferenceLinesAndCaption) {
    Series h = make_hline("copy roof 3,007 GB/s", 3007);
    EXPECT_EQ(h.kind, SeriesKind::HLine);
    EXPECT_EQ(h.value, 3007);
    EXPECT_FALSE(h.in_legend);
    EXPECT_EQ(make_vline("L2", 50).kind, SeriesKind::VLine);
    EXPECT_EQ(caption_of({"H100", "", "2026-11-22", "n = 2^28"}), "H100 · 2026-11-22 · n = 2^28");
    EXPECT_EQ(caption_of({}), "");
}

TEST(AxisRange, CategoriesSpanHalfASlotEachSide) {
    Figure f = sample_rung_bars();
    Range x = axis_range(f, AxisId::X);
    EXPECT_EQ(x.min, -0.5);
    EXPECT_EQ(x.max, 3.5);
}

TEST(AxisRange, BarsStartAtZeroAndReferencesAreIncluded) {
    Figure f = sample_rung_bars();
    Range y = axis_range(f, AxisId::Y);
    EXPECT_EQ(y.min, 0);
    EXPECT_GE(y.max, 3007);
}

TEST(AxisRange, NaNOnlySeriesGiveTheDefaultRange) {
    Figure f;
    f.series.push_back(line("broken", {{kNoValue, kNoValue}, {1, kNoValue}}));
    Range y = axis_range(f, AxisId::Y);
    EXPECT_EQ(y.min, 0);
    EXPECT_EQ(y.max, 1);
    Range x = axis_range(f, AxisId::X);  // x = 1 alone: a band around it
    EXPECT_LT(x.min, 1);
    EXPECT_GT(x.max, 1);
}

TEST(AxisRange, LogAxesIgnoreNonPositiveValues) {
    Figure f;
    f.y.scale = Scale::Log10;
    f.series.push_back(line("s", {{1, -3}, {2, 0}, {3, 10}, {4, 1000}}));
    Range y = axis_range(f, AxisId::Y);
    EXPECT_GT(y.min, 0);
    EXPECT_LT(y.min, 10);
    EXPECT_GT(y.max, 1000);
}

TEST(AxisRange, SpreadIsIncluded) {
    Figure f;
    f.series.push_back(line("s", {{0, 10, 2, 30}}));
    f.y.padding = 0;
    Range y = axis_range(f, AxisId::Y);
    EXPECT_EQ(y.min, 2);
    EXPECT_EQ(y.max, 30);
}

TEST(AxisRange, HeatmapExtents) {
    Figure f = sample_error_heatmap();
    EXPECT_EQ(axis_range(f, AxisId::X).max, 4096);
    EXPECT_EQ(axis_range(f, AxisId::Y).min, 0);
    Range v = heatmap_value_range(*f.heatmap);
    EXPECT_GT(v.min, 0);
    EXPECT_LT(v.min, 1e-7);
    EXPECT_GT(v.max, 3e-3);
}

TEST(HeatmapTest, OutOfGridAndShortDataReadNaN) {
    Heatmap h;
    h.rows = 2;
    h.cols = 3;
    h.values = {1, 2, 3, 4};
    EXPECT_EQ(h.at(0, 2), 3);
    EXPECT_EQ(h.at(1, 0), 4);
    EXPECT_TRUE(std::isnan(h.at(1, 2)));
    EXPECT_TRUE(std::isnan(h.at(-1, 0)));
    EXPECT_TRUE(std::isnan(h.at(0, 3)));
    EXPECT_EQ(h.columns().max, 3);
    EXPECT_EQ(h.rows_extent().max, 2);
}

TEST(Styles, DataSeriesGetDistinctColoursMarkersAndDashes) {
    Figure f = sample_size_sweep();
    f.series.push_back(make_hline("roof", 50));
    Series pinned = line("pinned", {{1, 1}});
    pinned.color = 6;
    pinned.marker = 2;
    pinned.dash = 0;
    f.series.push_back(pinned);
    auto styles = resolve_styles(f);
    ASSERT_EQ(styles.size(), 6u);
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(styles[i].color, static_cast<int>(i));
        EXPECT_EQ(styles[i].marker, static_cast<int>(i));
        EXPECT_EQ(styles[i].dash, static_cast<int>(i));
    }
    EXPECT_EQ(styles[4].color, -1);  // reference colour
    EXPECT_EQ(styles[4].dash, 1);    // dashed
    EXPECT_EQ(styles[5].color, 6);
    EXPECT_EQ(styles[5].marker, 2);
    EXPECT_EQ(styles[5].dash, 0);
}

TEST(Styles, BarSeriesGetHatchesAfterTheFirst) {
    auto styles = resolve_styles(sample_traffic_bars());
    ASSERT_EQ(styles.size(), 3u);
    EXPECT_EQ(styles[0].hatch, 0);
    EXPECT_EQ(styles[1].hatch, 1);
    EXPECT_EQ(styles[2].hatch, 2);
    EXPECT_EQ(resolve_styles(sample_size_sweep())[0].hatch, 0);  // lines have none
}

TEST(Validate, CleanFigureHasNoProblems) {
    EXPECT_TRUE(validate(sample_rung_bars()).empty());
    EXPECT_TRUE(validate(sample_roofline()).empty());
}

TEST(Validate, NamesWhatWillNotBeDrawn) {
    Figure f;
    f.x.categories = {"a", "b"};
    f.y.scale = Scale::Log10;
    f.y.min = 10.0;
    f.y.max = 5.0;
    f.series.push_back(line("naive", {{0, kNoValue}, {1, -2}, {2.5, 3}, {1, 4}}));
    f.series.push_back(line("empty", {}));
    f.series.push_back(make_hline("roof", kNoValue));
    f.annotations.push_back({kNoValue, 1, "lost"});
    auto problems = validate(f);
    EXPECT_TRUE(mentions(problems, "series 'naive': 1 point has NaN or infinite values"));
    EXPECT_TRUE(mentions(problems, "series 'naive': 1 point is <= 0 on a log axis"));
    EXPECT_TRUE(mentions(problems, "not one of the 2 category indices"));
    EXPECT_TRUE(mentions(problems, "series 'empty': no points"));
    EXPECT_TRUE(mentions(problems, "reference line 'roof'"));
    EXPECT_TRUE(mentions(problems, "annotation 'lost'"));
    EXPECT_TRUE(mentions(problems, "y axis: fixed range [10, 5] is empty"));
}

TEST(Validate, HeatmapShapeAndNaNCells) {
    Figure f;
    Heatmap h;
    h.rows = 2;
    h.cols = 2;
    h.values = {1, kNoValue, 3};
    f.heatmap = h;
    auto problems = validate(f);
    EXPECT_TRUE(mentions(problems, "heatmap: 3 values for 2 x 2 cells"));
    EXPECT_TRUE(mentions(problems, "heatmap: 1 cell is NaN"));
    f.heatmap->values = {1, 2, 3, 4, 5};
    EXPECT_TRUE(mentions(validate(f), "extra values are ignored"));
    f.heatmap->rows = 0;
    EXPECT_TRUE(mentions(validate(f), "nothing to draw"));
}

TEST(SampleFigures, SayTheyAreNotMeasurements) {
    for (const Figure& f :
         {sample_rung_bars(), sample_size_sweep(), sample_roofline(), sample_error_heatmap(), sample_traffic_bars()})
        EXPECT_NE(f.caption.find("not a measurement"), std::string::npos) << f.id();
}

}  // namespace
}  // namespace kl::plot
