// Layout tests with the font-free measure (approximate_measure); test_cairo_export.cpp repeats
// the overlap checks with the real font.
#include <gtest/gtest.h>

#include <cmath>

#include "plot/figure_scene.h"
#include "plot/layout.h"
#include "plot/sample_figures.h"
#include "plot_test_util.h"

namespace kl::plot {
namespace {

using testing::frame_texts;
using testing::shrunk;

struct Size {
    double w, h;
};
const Size kSizes[] = {{468, 288}, {300, 200}, {220, 160}, {800, 500}, {640, 240}, {160, 120}};

std::vector<Figure> samples() {
    return {sample_rung_bars(), sample_size_sweep(), sample_roofline(), sample_error_heatmap(), sample_traffic_bars()};
}

// Checks every promise of layout.h on one layout; returns the first broken one.
std::string broken_promise(const Layout& L) {
    const double eps = 0.5;
    Rect page{-eps, -eps, L.width + 2 * eps, L.height + 2 * eps};
    auto inside = [&](const Rect& r, const Rect& outer) {
        return r.left() >= outer.left() && r.right() <= outer.right() && r.top() >= outer.top() &&
               r.bottom() <= outer.bottom();
    };
    if (L.plot.w < 1 || L.plot.h < 1) return "plot area smaller than 1 x 1";
    if (!inside(L.plot, page)) return "plot area leaves the page";
    auto texts = frame_texts(L);
    for (const auto& t : texts)
        if (!t.text.text.empty() && !inside(t.text.box, page)) return t.tag + " '" + t.text.text + "' leaves the page";
    for (size_t i = 0; i < texts.size(); ++i)
        for (size_t j = i + 1; j < texts.size(); ++j)
            if (shrunk(texts[i].text.box).overlaps(shrunk(texts[j].text.box)))
                return texts[i].tag + " '" + texts[i].text.text + "' overlaps " + texts[j].tag + " '" +
                       texts[j].text.text + "'";
    for (const auto& t : texts) {
        bool legend = t.tag.rfind("legend", 0) == 0;
        if (!legend && shrunk(t.text.box).overlaps(L.plot))
            return t.tag + " '" + t.text.text + "' lies on the plot area";
    }
    for (const TextCmd& n : L.notes)
        if (!inside(n.box, L.plot.inflated(eps))) return "note '" + n.text + "' leaves the plot area";
    if (L.legend.visible && !inside(L.legend.box, page)) return "legend leaves the page";
    return "";
}

TEST(LayoutPromises, SampleFiguresAtManySizes) {
    for (const Figure& f : samples())
        for (Size s : kSizes) {
            Layout L = compute_layout(f, s.w, s.h, approximate_measure(), print_theme());
            EXPECT_EQ(broken_promise(L), "") << f.id() << " at " << s.w << " x " << s.h;
        }
}

TEST(LayoutPromises, TickLabelsNeverOverlapOnCrowdedAxes) {
    Figure f;
    f.x.label = "Elements";
    f.y.label = "Time";
    f.y.unit = "ms";
    Series s;
    s.name = "wide numbers";
    for (int i = 0; i <= 20; ++i) s.points.push_back({1234567.0 * i, 0.000123 * i * i});
    f.series.push_back(s);
    for (double w : {120.0, 180.0, 260.0, 400.0, 1000.0}) {
        Layout L = compute_layout(f, w, w * 0.6, approximate_measure(), print_theme());
        EXPECT_EQ(broken_promise(L), "") << "width " << w;
        int labelled = 0;
        for (const PlacedTick& t : L.x.ticks) labelled += t.label.empty() ? 0 : 1;
        EXPECT_GE(labelled, 2) << "width " << w;
    }
}

TEST(LayoutTicks, BarChartLabelsAreTheNiceOnes) {
    Layout L = compute_layout(sample_rung_bars(), 468, 288, approximate_measure(), print_theme());
    std::vector<std::string> y;
    for (const PlacedTick& t : L.y.ticks)
        if (!t.label.empty()) y.push_back(t.label[0].text);
    EXPECT_EQ(y.front(), "0");
    EXPECT_TRUE(std::find(y.begin(), y.end(), "3,000") != y.end());
    ASSERT_EQ(L.x.ticks.size(), 4u);
    EXPECT_EQ(L.x.ticks[2].label.at(0).text, "03 fused float4");
    EXPECT_EQ(L.x.ticks[2].pixel, L.x.transform.to_pixel(2));
}

TEST(LayoutTicks, LogAxisHasMinorTicksWhenThereIsRoom) {
    Layout L = compute_layout(sample_roofline(), 468, 288, approximate_measure(), print_theme());
    int minor = 0, major = 0;
    for (const PlacedTick& t : L.x.ticks) (t.major ? major : minor)++;
    EXPECT_GE(major, 4);
    EXPECT_GT(minor, 8);
}

TEST(LayoutTicks, CustomTicksReplaceGeneratedOnes) {
    Layout L = compute_layout(sample_size_sweep(), 468, 288, approximate_measure(), print_theme());
    std::vector<std::string> x;
    for (const PlacedTick& t : L.x.ticks)
        if (!t.label.empty()) x.push_back(t.label[0].text);
    EXPECT_EQ(x, (std::vector<std::string>{"128", "256", "512", "1,024", "2,048", "4,096", "8,192"}));
}

TEST(LayoutCategories, LongNamesWrapThenTurnVertical) {
    Figure f;
    f.x.categories = {"01 naive global memory", "02 coalesced loads", "03 shared memory tiles", "04 register blocking"};
    Series bars;
    bars.kind = SeriesKind::Bars;
    for (int i = 0; i < 4; ++i) bars.points.push_back({double(i), double(i + 1)});
    f.series.push_back(bars);
    Layout wrapped = compute_layout(f, 420, 260, approximate_measure(), print_theme());
    EXPECT_FALSE(wrapped.x.vertical_labels);
    EXPECT_GT(wrapped.x.ticks[0].label.size(), 1u);
    EXPECT_EQ(broken_promise(wrapped), "");

    for (int i = 4; i < 30; ++i) {
        f.x.categories.push_back("rung number " + std::to_string(i) + " with a long name");
        f.series[0].points.push_back({double(i), 1.0});
    }
    // Bars left vertical on purpose: the names turn vertical.
    f.bars = BarOrientation::Vertical;
    Layout vertical = compute_layout(f, 420, 260, approximate_measure(), print_theme());
    EXPECT_TRUE(vertical.x.vertical_labels);
    EXPECT_TRUE(vertical.x.ticks[0].label.at(0).vertical);
    EXPECT_EQ(broken_promise(vertical), "");
}

// More than kManyBars bars (Auto): drawn across, first category at the top, every name whole on
// one line left of its bar, on a page tall enough for a row each (export_height).
TEST(LayoutCategories, ManyBarsGoAcrossWithWholeNames) {
    Figure f;
    Series bars;
    bars.kind = SeriesKind::Bars;
    bars.value_labels = true;
    for (int i = 0; i < 26; ++i) {
        f.x.categories.push_back("rung " + std::to_string(i) + " short name");
        bars.points.push_back({double(i), 10.0 + i});
    }
    f.series.push_back(bars);
    f.series.push_back(make_hline("copy roof", 30.0));
    const MeasureText m = approximate_measure();
    const Theme th = print_theme();
    ASSERT_TRUE(horizontal_bars_wanted(f, 468, m, th));
    double h = export_height(f, 468, 288, m, th);
    EXPECT_GT(h, 288.0);
    Layout L = compute_layout(f, 468, h, m, th);
    ASSERT_TRUE(L.drawn);
    EXPECT_TRUE(L.y.category);
    ASSERT_EQ(L.bars.size(), 26u);
    EXPECT_TRUE(L.bars[0].horizontal);
    EXPECT_LT(L.bars[0].rect.y, L.bars[25].rect.y);  // the first rung at the top
    size_t named = 0;
    for (const PlacedTick& t : L.y.ticks)
        for (const TextCmd& line : t.label) {
            EXPECT_EQ(line.text.find("\xE2\x80\xA6"), std::string::npos) << line.text;  // no ellipsis
            EXPECT_FALSE(line.vertical);
            ++named;
        }
    EXPECT_EQ(named, 26u);  // none thinned out
    EXPECT_EQ(broken_promise(L), "");
    // The scene draws the turned figure: a bar per rung, wider for larger values.
    Scene sc = build_scene(f, L, th);
    EXPECT_FALSE(sc.commands.empty());
    EXPECT_GT(L.bars[25].rect.w, L.bars[0].rect.w);
    // Few short names stay vertical bars; Vertical keeps them so.
    Figure few = f;
    few.x.categories.resize(5);
    few.series[0].points.resize(5);
    EXPECT_FALSE(horizontal_bars_wanted(few, 468, m, th));
    EXPECT_EQ(export_height(few, 468, 288, m, th), 288.0);
    f.bars = BarOrientation::Vertical;
    EXPECT_FALSE(horizontal_bars_wanted(f, 468, m, th));
}

// The value-label rule (layout_marks.cpp): placed bar by bar, a label that would overlap one
// already placed is dropped, never drawn over it ("16.220.2").
TEST(LayoutNotes, ValueLabelsThatWouldCollideAreDropped) {
    Figure f;
    f.bars = BarOrientation::Vertical;
    Series bars;
    bars.kind = SeriesKind::Bars;
    bars.value_labels = true;
    for (int i = 0; i < 12; ++i) {
        f.x.categories.push_back(std::to_string(i));
        bars.points.push_back({double(i), i % 2 ? 20.2 : 16.2});
    }
    f.series.push_back(bars);
    Layout L = compute_layout(f, 200, 200, approximate_measure(), print_theme());
    ASSERT_EQ(L.bars.size(), 12u);
    for (size_t i = 0; i < L.notes.size(); ++i)
        for (size_t j = i + 1; j < L.notes.size(); ++j)
            EXPECT_FALSE(L.notes[i].box.overlaps(L.notes[j].box)) << L.notes[i].text << " / " << L.notes[j].text;
    EXPECT_LT(L.notes.size(), 12u);  // some were dropped: 12 labels do not fit in 200 points
    EXPECT_GT(L.notes.size(), 0u);
    // With room, every bar keeps its value.
    Layout wide = compute_layout(f, 900, 300, approximate_measure(), print_theme());
    EXPECT_EQ(wide.notes.size(), 12u);
}

// Bars drawn across: no value label is crossed by a reference line (the H200's fusion bars,
// 4,156 and 3,892 GB/s against a copy roof at 4,264): inside the bar's end, or past the line.
TEST(LayoutNotes, AcrossValueLabelsStayOffTheRoofLine) {
    Figure f;
    f.bars = BarOrientation::Horizontal;
    Series bars;
    bars.kind = SeriesKind::Bars;
    bars.value_labels = true;
    const double values[] = {4404, 276, 2552, 4156, 765, 3892, 4407, 4257, 4180};
    for (size_t i = 0; i < std::size(values); ++i) {
        f.x.categories.push_back("rung " + std::to_string(i));
        bars.points.push_back({double(i), values[i]});
    }
    f.series.push_back(bars);
    Series roof;
    roof.kind = SeriesKind::HLine;
    roof.name = "copy roof (measured)";
    roof.value = 4264;
    f.series.push_back(roof);
    Layout L = compute_layout(f, 468, 288, approximate_measure(), print_theme());
    double line = L.x.transform.to_pixel(4264);
    int labels = 0;
    for (const TextCmd& t : L.notes) {
        if (t.text == roof.name) continue;
        ++labels;
        EXPECT_FALSE(line >= t.box.left() - 1 && line <= t.box.right() + 1) << t.text << " sits on the roof line";
    }
    EXPECT_GE(labels, 8);  // 4,156 and 3,892 kept, inside their bars
}

// A roof's label never sits on a bar: bars over the line at its right end (the fusion lesson's
// copy roof over the Triton bars) move it left, to where the bars stay below it.
TEST(LayoutNotes, ARoofLabelNeverSitsOnABar) {
    Figure f;
    Series bars;
    bars.kind = SeriesKind::Bars;
    bars.value_labels = true;
    const double gbps[] = {3067, 235, 2324, 2954, 551, 3024, 3039, 3011};
    for (int i = 0; i < 8; ++i) {
        f.x.categories.push_back("rung " + std::to_string(i));
        bars.points.push_back({double(i), gbps[i]});
    }
    f.series.push_back(bars);
    f.series.push_back(make_hline("copy roof (measured)", 2985));
    for (double w : {468.0, 300.0}) {
        Layout L = compute_layout(f, w, 288, approximate_measure(), print_theme());
        const TextCmd* roof = nullptr;
        for (const TextCmd& t : L.notes)
            if (t.text == "copy roof (measured)") roof = &t;
        ASSERT_NE(roof, nullptr) << w;
        for (const BarLayout& b : L.bars) EXPECT_FALSE(roof->box.overlaps(b.rect)) << w;
        for (const TextCmd& t : L.notes) {
            if (&t == roof) continue;
            EXPECT_FALSE(roof->box.overlaps(t.box)) << t.text;
        }
    }
}

TEST(LayoutLegend, AvoidsTheDataOrGoesOutside) {
    // Data rising to the top right: the legend must not sit there.
    Figure f;
    for (int k = 0; k < 3; ++k) {
        Series s;
        s.name = "series " + std::to_string(k);
        for (int i = 0; i <= 10; ++i) s.points.push_back({double(i), double(i * i + 10 * k)});
        f.series.push_back(s);
    }
    Layout L = compute_layout(f, 468, 288, approximate_measure(), print_theme());
    ASSERT_TRUE(L.legend.visible);
    EXPECT_NE(L.legend.placement, LegendPlacement::TopRight);
    EXPECT_NE(L.legend.placement, LegendPlacement::Auto);

    // Data everywhere: the legend moves outside the plot.
    Series noise;
    noise.name = "everywhere";
    noise.kind = SeriesKind::Scatter;
    for (int i = 0; i <= 40; ++i)
        for (int j = 0; j <= 40; ++j) noise.points.push_back({i * 0.25, j * 2.75});
    f.series.push_back(noise);
    Layout crowded = compute_layout(f, 468, 288, approximate_measure(), print_theme());
    EXPECT_EQ(crowded.legend.placement, LegendPlacement::OutsideRight);
    EXPECT_FALSE(crowded.legend.box.overlaps(crowded.plot));
    EXPECT_EQ(broken_promise(crowded), "");

    f.legend.placement = LegendPlacement::Hidden;
    EXPECT_FALSE(compute_layout(f, 468, 288, approximate_measure(), print_theme()).legend.visible);
}

TEST(LayoutNotes, ReferenceLabelSitsAboveItsLine) {
    Layout L = compute_layout(sample_rung_bars(), 468, 288, approximate_measure(), print_theme());
    double roof = L.y.transform.to_pixel(3007);
    bool found = false;
    for (const TextCmd& n : L.notes)
        if (n.text == "copy roof 3,007 GB/s") {
            found = true;
            EXPECT_LE(n.box.bottom(), roof);
            EXPECT_GE(n.box.top(), L.plot.top());
        }
    EXPECT_TRUE(found);
}

TEST(LayoutHeatmap, SquareCellsAndColourBar) {
    Layout L = compute_layout(sample_error_heatmap(), 468, 288, approximate_measure(), print_theme());
    EXPECT_NEAR(L.plot.w, L.plot.h, 0.01);
    ASSERT_TRUE(L.color_bar.visible);
    EXPECT_TRUE(L.color_bar.nan_key);
    EXPECT_GT(L.color_bar.bar.left(), L.plot.right());
    // Row 0 at the top.
    EXPECT_LT(L.y.transform.to_pixel(0), L.y.transform.to_pixel(4096));
}

TEST(SceneBuild, HeatmapCellsStayInsideAZoomedPlot) {
    Figure f = sample_error_heatmap();
    f.x.min = 1000.0;  // zoom into part of the matrix
    f.x.max = 2000.0;
    f.y.max = 600.0;
    Layout L = compute_layout(f, 400, 300, approximate_measure(), print_theme());
    Scene scene = build_scene(f, L, print_theme());
    int cells = 0;
    for (const DrawCmd& cmd : scene.commands) {
        const auto* r = std::get_if<RectCmd>(&cmd);
        if (!r || r->fill.a == 0 || r->rect.left() >= L.plot.right()) continue;  // outlines, colour bar
        ++cells;
        EXPECT_GE(r->rect.left(), L.plot.left() - 1e-9);
        EXPECT_LE(r->rect.right(), L.plot.right() + 1e-9);
        EXPECT_GE(r->rect.top(), L.plot.top() - 1e-9);
        EXPECT_LE(r->rect.bottom(), L.plot.bottom() + 1e-9);
    }
    EXPECT_GT(cells, 0);
    EXPECT_LT(cells, 32 * 32);
}

TEST(LayoutRobustness, DegenerateFiguresAndPages) {
    Figure empty;
    Figure nan_only;
    Series s;
    s.name = "nan";
    s.points = {{kNoValue, kNoValue}, {kNoValue, 1}};
    nan_only.series.push_back(s);
    Figure single;
    single.series.push_back({"one", SeriesKind::Line, {{3, 3}}});
    Figure huge;
    huge.y.scale = Scale::Log10;
    huge.series.push_back({"huge", SeriesKind::Line, {{1, 1e-300}, {2, 1e300}, {3, -1}, {4, INFINITY}}});
    Figure heat;
    heat.heatmap = Heatmap{};
    heat.heatmap->rows = 3;
    heat.heatmap->cols = 5;  // no values at all: every cell NaN
    Figure long_text;
    long_text.title = std::string(300, 'T');
    long_text.caption = std::string(500, 'c');
    long_text.x.label = std::string(200, 'x');
    long_text.y.label = std::string(200, 'y');
    long_text.series.push_back({std::string(200, 'n'), SeriesKind::Scatter, {{1, 1}, {2, 2}}});
    long_text.annotations.push_back({1, 1, std::string(200, 'a')});
    for (const Figure& f : {empty, nan_only, single, huge, heat, long_text}) {
        for (Size s : {Size{468, 288}, Size{50, 40}, Size{1, 1}, Size{NAN, 100}}) {
            Layout L = compute_layout(f, s.w, s.h, approximate_measure(), print_theme());
            EXPECT_GE(L.plot.w, 1);
            EXPECT_GE(L.plot.h, 1);
            Scene scene = build_scene(f, L, print_theme());
            EXPECT_FALSE(scene.commands.empty());
            if (s.w >= 200) { EXPECT_EQ(broken_promise(L), "") << f.id() << " at " << s.w << " x " << s.h; }
        }
    }
}

TEST(LayoutRobustness, BadMeasureCallbackDoesNotCrash) {
    MeasureText nonsense = [](const std::string&, double, bool) { return TextMetrics{NAN, -1, INFINITY}; };
    Layout L = compute_layout(sample_roofline(), 468, 288, nonsense, print_theme());
    EXPECT_GE(L.plot.w, 1);
    MeasureText none;
    Layout M = compute_layout(sample_rung_bars(), 468, 288, none, print_theme());
    EXPECT_GE(M.plot.w, 1);
}

TEST(LayoutDeterminism, SameInputSameLayout) {
    Scene a = render_figure(sample_roofline(), 468, 288, approximate_measure(), print_theme());
    Scene b = render_figure(sample_roofline(), 468, 288, approximate_measure(), print_theme());
    ASSERT_EQ(a.commands.size(), b.commands.size());
    for (size_t i = 0; i < a.commands.size(); ++i) {
        ASSERT_EQ(a.commands[i].index(), b.commands[i].index());
        if (auto* t = std::get_if<TextCmd>(&a.commands[i])) {
            EXPECT_EQ(t->text, std::get<TextCmd>(b.commands[i]).text);
            EXPECT_EQ(t->origin.x, std::get<TextCmd>(b.commands[i]).origin.x);
        }
    }
}

TEST(SceneBuild, NaNBreaksLinesAndEverythingStaysNearThePlot) {
    Figure f;
    f.series.push_back({"gap", SeriesKind::Line, {{0, 0}, {1, 1}, {2, kNoValue}, {3, 3}, {4, 4}, {5, 1e12}}});
    f.y.max = 5.0;
    f.legend.placement = LegendPlacement::Hidden;  // its swatch would look like one more line
    Layout L = compute_layout(f, 400, 300, approximate_measure(), print_theme());
    Scene scene = build_scene(f, L, print_theme());
    int series_lines = 0;
    Color blue = print_theme().palette_color(0);
    for (const DrawCmd& cmd : scene.commands) {
        const auto* line = std::get_if<LineCmd>(&cmd);
        if (!line || line->color.b != blue.b || line->color.g != blue.g) continue;
        ++series_lines;
        for (const Vec2& p : line->points) EXPECT_TRUE(L.plot.inflated(1e-9).contains(p)) << p.x << ", " << p.y;
    }
    EXPECT_GE(series_lines, 2);  // [0,1] and [3,4,(clipped towards 1e12)]
}

TEST(SceneBuild, BarsOutsideAFixedRangeAreCutToThePlot) {
    Figure f;
    Series bars;
    bars.kind = SeriesKind::Bars;
    bars.points = {{0, 5, 1, 9}, {1, 50}, {2, -3}, {3, 2}};
    f.series.push_back(bars);
    f.x.min = 0.5;  // half of bar 1 and all of bar 0 outside
    f.x.max = 3.0;
    f.y.min = 0.0;
    f.y.max = 10.0;
    Layout L = compute_layout(f, 400, 300, approximate_measure(), print_theme());
    ASSERT_FALSE(L.bars.empty());
    for (const BarLayout& b : L.bars) {
        EXPECT_GE(b.rect.left(), L.plot.left());
        EXPECT_LE(b.rect.right(), L.plot.right() + 1e-9);
        EXPECT_GE(b.rect.top(), L.plot.top());
        EXPECT_LE(b.rect.bottom(), L.plot.bottom() + 1e-9);
    }
    Scene scene = build_scene(f, L, print_theme());
    for (const DrawCmd& cmd : scene.commands) EXPECT_FALSE(std::holds_alternative<PushClipCmd>(cmd));
}

}  // namespace
}  // namespace kl::plot
