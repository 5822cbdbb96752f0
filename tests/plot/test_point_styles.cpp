// Per-point colours (Series::point_colors), per-category reference marks (BarMarks), marked
// annotations, and legends that go below the plot instead of being cut.
#include <gtest/gtest.h>

#include <variant>

#include "plot/csv_export.h"
#include "plot/figure_scene.h"
#include "plot/layout.h"
#include "plot/theme.h"

using namespace kl::plot;

namespace {

Figure three_bars() {
    Figure f;
    f.x.categories = {"naive", "tiled", "fused"};
    Series s;
    s.kind = SeriesKind::Bars;
    s.name = "rungs";
    s.color = 0;
    s.points = {{0, 10}, {1, 20}, {2, 30}};
    f.series.push_back(s);
    return f;
}

bool same(Color a, Color b) { return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a; }

// The fills of the bar rectangles, in drawing order (the plot area is not filled in print).
std::vector<Color> bar_fills(const Figure& f, const Layout& L, const Theme& th) {
    Scene scene = build_scene(f, L, th);
    std::vector<Color> fills;
    for (const auto& cmd : scene.commands) {
        const auto* r = std::get_if<RectCmd>(&cmd);
        if (!r || r->fill.a <= 0) continue;
        for (const BarLayout& b : L.bars)
            if (r->rect.x == b.rect.x && r->rect.y == b.rect.y && r->rect.w == b.rect.w && r->rect.h == b.rect.h)
                fills.push_back(r->fill);
    }
    return fills;
}

}  // namespace

TEST(PointColors, EachBarTakesItsOwnPaletteColour) {
    Figure f = three_bars();
    f.series[0].point_colors = {2, 5, -1};  // -1: the series colour
    Theme th = print_theme();
    Layout L = compute_layout(f, 468, 288, approximate_measure(), th);
    auto fills = bar_fills(f, L, th);
    ASSERT_EQ(fills.size(), 3u);
    EXPECT_TRUE(same(fills[0], th.palette_color(2)));
    EXPECT_TRUE(same(fills[1], th.palette_color(5)));
    EXPECT_TRUE(same(fills[2], th.palette_color(0)));
    EXPECT_FALSE(same(fills[0], fills[1]));
}

TEST(PointColors, WithoutThemEveryBarHasTheSeriesColour) {
    Figure f = three_bars();
    Theme th = print_theme();
    Layout L = compute_layout(f, 468, 288, approximate_measure(), th);
    for (const Color& c : bar_fills(f, L, th)) EXPECT_TRUE(same(c, th.palette_color(0)));
}

TEST(BarMarks, OneDashedLevelPerCategoryAtItsValue) {
    Figure f = three_bars();
    Series m;
    m.kind = SeriesKind::BarMarks;
    m.name = "floor";
    m.points = {{0, 5}, {1, kNoValue}, {2, 25}};
    f.series.push_back(m);
    f.legend.placement = LegendPlacement::Hidden;  // its swatch is a dashed line too
    Theme th = print_theme();
    Layout L = compute_layout(f, 468, 288, approximate_measure(), th);
    Scene scene = build_scene(f, L, th);
    std::vector<double> ys;
    for (const auto& cmd : scene.commands) {
        const auto* l = std::get_if<LineCmd>(&cmd);
        if (l && l->points.size() == 2 && l->points[0].y == l->points[1].y && same(l->color, th.reference) &&
            !l->dash.empty())
            ys.push_back(l->points[0].y);
    }
    ASSERT_EQ(ys.size(), 2u);  // the NaN point draws nothing
    EXPECT_NEAR(ys[0], L.y.transform.to_pixel(5), 1e-9);
    EXPECT_NEAR(ys[1], L.y.transform.to_pixel(25), 1e-9);
    // Each level spans its own category's slot only.
    auto [a, b] = bar_mark_segment(L, {0, 5});
    EXPECT_LT(b.x, L.x.transform.to_pixel(0.5 + 1e-9));
    EXPECT_GT(a.x, L.x.transform.to_pixel(-0.5 - 1e-9));
    // CSV keeps the values, under their own kind.
    std::string csv = figure_to_csv(f);
    EXPECT_NE(csv.find("bar_marks,naive,0,,5"), std::string::npos) << csv;
}

TEST(Annotations, MarkedAnnotationWidensTheRangeAndFloorAnchorSitsOnTheAxis) {
    Figure f;
    f.y.scale = Scale::Log10;
    Series s;
    s.kind = SeriesKind::Line;
    s.name = "peak";
    s.points = {{1, 1}, {2, 4}};
    f.series.push_back(s);
    Annotation refused;
    refused.x = 3;
    refused.y = 64;
    refused.mark = true;
    refused.color = 1;
    refused.text = "refused: needs 64.00 GiB";
    f.annotations.push_back(refused);
    Annotation floor;
    floor.x = 1.5;
    floor.at_axis_floor = true;
    floor.mark = true;
    floor.text = "exact";
    f.annotations.push_back(floor);
    EXPECT_GE(axis_range(f, AxisId::Y).max, 64.0);
    EXPECT_GE(axis_range(f, AxisId::X).max, 3.0);
    Theme th = print_theme();
    Layout L = compute_layout(f, 468, 288, approximate_measure(), th);
    ASSERT_EQ(L.annotation_marks.size(), 2u);
    EXPECT_NEAR(L.annotation_marks[0].at.y, L.y.transform.to_pixel(64), 1e-6);
    EXPECT_EQ(L.annotation_marks[0].color, 1);
    EXPECT_NEAR(L.annotation_marks[1].at.y, L.plot.bottom(), 1e-9);
    int texts = 0;
    for (const TextCmd& t : L.notes) texts += t.text == "refused: needs 64.00 GiB" || t.text == "exact";
    EXPECT_EQ(texts, 2);
}

TEST(LegendPlacement, LongEntriesGoBelowWholeInsteadOfBeingCut) {
    Figure f = three_bars();
    f.series[0].name = "ideal (each input read once, output written once)";
    Series model = f.series[0];
    model.name = "rung model (manifest), a second long legend entry for the test";
    f.series.push_back(model);
    for (LegendPlacement asked : {LegendPlacement::Auto, LegendPlacement::OutsideRight, LegendPlacement::TopRight}) {
        f.legend.placement = asked;
        Layout L = compute_layout(f, 468, 288, approximate_measure(), print_theme());
        ASSERT_TRUE(L.legend.visible);
        EXPECT_EQ(L.legend.placement, LegendPlacement::Below) << int(asked);
        for (const LegendItem& item : L.legend.items) {
            EXPECT_EQ(item.label.text, f.series[item.series].name);  // whole
            EXPECT_LE(item.label.box.right(), 468.0);
        }
        EXPECT_GT(L.legend.box.top(), L.plot.bottom());
    }
}
