// The drawing primitives every plot renderer implements, and geometry helpers for them.
//
// A laid-out figure becomes a Scene: a flat list of commands in page coordinates (origin top
// left, y down, units = points for print or pixels on screen). A renderer (cairo for files,
// ImDrawList on screen, the SVG writer) walks the list in order and draws each command; it never
// needs to know what a figure, an axis or a tick is. Every position is already resolved: text
// comes with its baseline origin, so renderers need no alignment logic of their own.
//
// Index
// [SECTION] Basic types
// [SECTION] Commands
// [SECTION] Geometry helpers
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace kl::plot {

// [SECTION] Basic types ---------------------------------------------------------------------

struct Color {
    float r = 0, g = 0, b = 0, a = 1;  // 0..1, not premultiplied
};
Color rgb(unsigned hex, float alpha = 1.0f);  // rgb(0x0072B2)

struct Vec2 {
    double x = 0, y = 0;
};

struct Rect {
    double x = 0, y = 0, w = 0, h = 0;
    double left() const { return x; }
    double right() const { return x + w; }
    double top() const { return y; }
    double bottom() const { return y + h; }
    bool contains(Vec2 p) const { return p.x >= x && p.x <= x + w && p.y >= y && p.y <= y + h; }
    bool overlaps(const Rect& o) const { return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h; }
    Rect inflated(double d) const { return {x - d, y - d, w + 2 * d, h + 2 * d}; }
};

enum class MarkerShape { Circle, Square, TriangleUp, Diamond, TriangleDown, Cross, Plus };

// Line patterns over a bar's fill, so bar series stay apart in greyscale.
enum class Hatch { None, Diagonal, AntiDiagonal, Crossed, Horizontal, Vertical };

// [SECTION] Commands ------------------------------------------------------------------------

// An open polyline. `dash` lists on/off lengths in page units; empty = solid.
// Joins are round, caps butt.
struct LineCmd {
    std::vector<Vec2> points;
    Color color;
    double width = 1.0;
    std::vector<double> dash;
};

// An axis-aligned rectangle, filled (fill.a > 0) and/or outlined (stroke_width > 0).
struct RectCmd {
    Rect rect;
    Color fill{0, 0, 0, 0};
    Color stroke;
    double stroke_width = 0.0;
};

// A marker of `size` (the diameter of the circle that holds it) centred at `center`.
// Filled shapes are filled with `fill` and outlined with `stroke`; Cross and Plus are strokes
// drawn in `fill` colour with width `stroke_width` (see marker_geometry()).
struct MarkerCmd {
    Vec2 center;
    MarkerShape shape = MarkerShape::Circle;
    double size = 5.0;
    Color fill;
    Color stroke;
    double stroke_width = 0.5;
};

// One line of text. `origin` is the left end of the baseline. If `vertical`, the text is
// rotated 90 degrees counter-clockwise about `origin` (it reads upwards, as a y-axis title).
// `box` is the page-space bounding box the layout reserved for it (for tests and hit checks).
struct TextCmd {
    std::string text;  // UTF-8
    Vec2 origin;
    double size = 10.0;  // font size in page units
    bool bold = false;
    bool vertical = false;
    Color color;
    Rect box;
};

// Clip everything until the matching PopClipCmd to `rect` (intersected with any outer clip).
struct PushClipCmd {
    Rect rect;
};
struct PopClipCmd {};

using DrawCmd = std::variant<LineCmd, RectCmd, MarkerCmd, TextCmd, PushClipCmd, PopClipCmd>;

struct Scene {
    double width = 0, height = 0;
    Color background{1, 1, 1, 1};
    std::string font_family;  // renderers that pick fonts by name use it ("DejaVu Sans")
    std::vector<DrawCmd> commands;
};

// [SECTION] Geometry helpers ----------------------------------------------------------------

// Splits a polyline into the "on" pieces of a dash pattern (pattern lengths in page units,
// starting with "on"), carrying the pattern phase across vertices. Empty or invalid pattern:
// the polyline itself. For renderers without native dashes (ImDrawList).
std::vector<std::vector<Vec2>> split_dashes(const std::vector<Vec2>& polyline, const std::vector<double>& pattern);

// The outline of a marker: for filled shapes a closed polygon (circle: `circle_segments`
// vertices); for Cross and Plus two strokes (four points: a0, a1, b0, b1).
struct MarkerGeometry {
    bool filled = true;
    std::vector<Vec2> points;
};
MarkerGeometry marker_geometry(MarkerShape shape, Vec2 center, double size, int circle_segments = 16);

// Clips segment a-b to `rect` (Liang-Barsky); false when nothing of it is inside.
bool clip_segment(Vec2& a, Vec2& b, const Rect& rect);

// The segments of a hatch pattern filling `rect`, `spacing` apart, already clipped to it.
// Lines of the pattern are anchored to the page, so neighbouring bars line up.
std::vector<std::pair<Vec2, Vec2>> hatch_segments(Hatch hatch, const Rect& rect, double spacing);

}  // namespace kl::plot
