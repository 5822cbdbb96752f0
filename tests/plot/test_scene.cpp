#include <gtest/gtest.h>

#include <cmath>

#include "plot/scene.h"
#include "plot/svg_writer.h"
#include "plot/theme.h"

namespace kl::plot {
namespace {

double length(const std::vector<Vec2>& pts) {
    double l = 0;
    for (size_t i = 1; i < pts.size(); ++i) l += std::hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
    return l;
}

TEST(SplitDashes, StraightLine) {
    auto pieces = split_dashes({{0, 0}, {10, 0}}, {2, 1});
    ASSERT_EQ(pieces.size(), 4u);  // [0,2] [3,5] [6,8] [9,10]
    EXPECT_DOUBLE_EQ(pieces[0].front().x, 0);
    EXPECT_DOUBLE_EQ(pieces[0].back().x, 2);
    EXPECT_DOUBLE_EQ(pieces[1].front().x, 3);
    EXPECT_DOUBLE_EQ(pieces[3].front().x, 9);
    EXPECT_DOUBLE_EQ(pieces[3].back().x, 10);
}

TEST(SplitDashes, PhaseCarriesAcrossCorners) {
    auto pieces = split_dashes({{0, 0}, {1.5, 0}, {1.5, 1.5}}, {2, 1});
    ASSERT_GE(pieces.size(), 1u);
    ASSERT_EQ(pieces[0].size(), 3u);  // the first dash turns the corner
    EXPECT_NEAR(length(pieces[0]), 2.0, 1e-12);
    EXPECT_NEAR(pieces[0].back().y, 0.5, 1e-12);
}

TEST(SplitDashes, OddPatternsAndBadInput) {
    auto odd = split_dashes({{0, 0}, {8, 0}}, {2});  // on 2, off 2
    ASSERT_EQ(odd.size(), 2u);
    EXPECT_DOUBLE_EQ(odd[1].front().x, 4);
    EXPECT_EQ(split_dashes({{0, 0}, {8, 0}}, {}).size(), 1u);
    EXPECT_EQ(split_dashes({{0, 0}, {8, 0}}, {-1, 2}).size(), 1u);
    EXPECT_EQ(split_dashes({{0, 0}, {8, 0}}, {0, 0}).size(), 1u);
    EXPECT_EQ(split_dashes({{0, 0}, {1e9, 0}}, {1e-6, 1e-6}).size(), 1u);  // finer than a pixel: solid
}

TEST(MarkerGeometryTest, ShapesStayInsideTheirSize) {
    for (MarkerShape shape : print_theme().markers) {
        MarkerGeometry g = marker_geometry(shape, {10, 20}, 6);
        ASSERT_GE(g.points.size(), 3u);
        for (const Vec2& p : g.points) EXPECT_LE(std::hypot(p.x - 10, p.y - 20), 6 * 0.75);
    }
    EXPECT_FALSE(marker_geometry(MarkerShape::Cross, {0, 0}, 6).filled);
    EXPECT_EQ(marker_geometry(MarkerShape::Circle, {0, 0}, 6, 12).points.size(), 12u);
}

TEST(Hatches, SegmentsStayInsideAndAreEvenlySpaced) {
    Rect r{10, 20, 30, 40};
    for (Hatch h : {Hatch::Diagonal, Hatch::AntiDiagonal, Hatch::Crossed, Hatch::Horizontal, Hatch::Vertical}) {
        auto segments = hatch_segments(h, r, 4);
        ASSERT_FALSE(segments.empty());
        for (const auto& [a, b] : segments) {
            EXPECT_TRUE(r.inflated(1e-9).contains(a));
            EXPECT_TRUE(r.inflated(1e-9).contains(b));
        }
    }
    EXPECT_EQ(hatch_segments(Hatch::Horizontal, r, 4).size(), 9u);  // y = 24, 28, ..., 56: not on the edges 20 and 60
    EXPECT_TRUE(hatch_segments(Hatch::None, r, 4).empty());
    EXPECT_TRUE(hatch_segments(Hatch::Diagonal, r, 0).empty());
    EXPECT_TRUE(hatch_segments(Hatch::Diagonal, {0, 0, 1e6, 1e6}, 1e-3).empty());  // too fine: plain fill
    EXPECT_EQ(print_theme().hatch(0), Hatch::None);
}

TEST(ClipSegment, InsideCrossingOutside) {
    Rect r{0, 0, 10, 10};
    Vec2 a{1, 1}, b{9, 9};
    ASSERT_TRUE(clip_segment(a, b, r));
    EXPECT_DOUBLE_EQ(b.x, 9);
    a = {-10, 5}, b = {20, 5};
    ASSERT_TRUE(clip_segment(a, b, r));
    EXPECT_DOUBLE_EQ(a.x, 0);
    EXPECT_DOUBLE_EQ(b.x, 10);
    a = {-10, -5}, b = {20, -5};
    EXPECT_FALSE(clip_segment(a, b, r));
    a = {NAN, 1}, b = {2, 2};
    EXPECT_FALSE(clip_segment(a, b, r));
}

TEST(ThemeTest, OkabeItoPaletteAndViridis) {
    Theme t = print_theme();
    Color blue = t.palette_color(0);
    EXPECT_NEAR(blue.r, 0x00 / 255.0, 1e-6);
    EXPECT_NEAR(blue.g, 0x72 / 255.0, 1e-6);
    EXPECT_NEAR(blue.b, 0xB2 / 255.0, 1e-6);
    EXPECT_NEAR(t.palette_color(8).g, blue.g, 1e-6);  // cycles
    EXPECT_NEAR(t.palette_color(-1).r, t.palette_color(7).r, 1e-6);
    Color low = t.colormap(0), high = t.colormap(1), mid = t.colormap(0.5);
    EXPECT_NEAR(low.r, 0x44 / 255.0, 1e-6);
    EXPECT_NEAR(high.g, 0xE7 / 255.0, 1e-6);
    auto luminance = [](Color c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; };
    EXPECT_LT(luminance(low), luminance(mid));  // monotone: survives greyscale
    EXPECT_LT(luminance(mid), luminance(high));
    EXPECT_EQ(t.colormap(NAN).r, t.nan_cell.r);
    EXPECT_EQ(t.dash(0).size(), 0u);  // first series solid
    EXPECT_GT(t.dash(1).size(), 0u);
}

TEST(SvgWriter, EscapesTextAndBalancesClips) {
    Scene s;
    s.width = 100;
    s.height = 50;
    s.font_family = "DejaVu Sans";
    TextCmd t;
    t.text = "a < b & \"c\"";
    s.commands.push_back(t);
    s.commands.push_back(PushClipCmd{{0, 0, 10, 10}});
    s.commands.push_back(PopClipCmd{});
    s.commands.push_back(PopClipCmd{});                 // unbalanced: ignored
    s.commands.push_back(PushClipCmd{{0, 0, 10, 10}});  // left open: closed at the end
    std::string svg = scene_to_svg(s);
    EXPECT_NE(svg.find("a &lt; b &amp; &quot;c&quot;"), std::string::npos);
    size_t opened = 0, closed = 0;
    for (size_t p = svg.find("<g"); p != std::string::npos; p = svg.find("<g", p + 1)) ++opened;
    for (size_t p = svg.find("</g>"); p != std::string::npos; p = svg.find("</g>", p + 1)) ++closed;
    EXPECT_EQ(opened, closed);
    EXPECT_NE(svg.find("width=\"100pt\""), std::string::npos);
}

}  // namespace
}  // namespace kl::plot
