// The plot model: what a figure shows, as plain data. No drawing library in sight.
//
// One Figure describes every plot of the workbook: per-rung bars (category x axis), size sweeps
// (log-log lines), the roofline (lines, scatter points, annotations) and the error map (a
// Heatmap). Layout (layout.h) turns a Figure into positions; renderers draw the result.
//
// - Styles are indices (colour, marker, dash), resolved by resolve_styles() and a Theme; -1 means
//   "the next one", so figures built without any styling still tell series apart in greyscale.
// - Bad data never crashes: NaN and infinite values are skipped, values <= 0 are skipped on log
//   axes, short heatmap grids read NaN. validate() lists what will be skipped, for a status line.
//
// Index
// [SECTION] Axis
// [SECTION] Series
// [SECTION] Annotations, legend, heatmap
// [SECTION] Figure
// [SECTION] Builders
// [SECTION] Derived data
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "plot/ticks.h"

namespace kl::plot {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// [SECTION] Axis ----------------------------------------------------------------------------

struct Axis {
    std::string label;  // "Bandwidth"
    std::string unit;   // "GB/s"; the axis title reads "Bandwidth (GB/s)"
    Scale scale = Scale::Linear;
    std::optional<double> min;  // fixed ends; an end left empty comes from the data
    std::optional<double> max;
    double padding = 0.05;      // fraction of the span added to automatic ends
    bool include_zero = false;  // linear: keep 0 in range (implied for the y axis of bar charts)
    // Non-empty: a category axis. Point x values are category indices 0..n-1, the range is
    // [-0.5, n - 0.5] and each category is labelled at its index (per-rung bars).
    std::vector<std::string> categories;
    // Non-empty: these ticks instead of generated ones (powers of two for sizes, say). A tick with
    // an empty label is labelled by format_value(); ticks outside the range are dropped.
    std::vector<Tick> ticks;
    NumberStyle numbers = NumberStyle::Auto;
    bool thousands = true;  // "2,850"
    bool grid = true;       // grid lines at major ticks

    bool is_category() const { return !categories.empty(); }
    std::string title() const;  // label and unit as printed
};

// [SECTION] Series --------------------------------------------------------------------------

enum class SeriesKind {
    Line,      // points joined in order; NaN breaks the line; markers optional
    Scatter,   // markers only
    Bars,      // one bar per point from the baseline (0, or the bottom of a log axis); several
               // bar series side by side per x
    HLine,     // horizontal reference at `value`, labelled with `name` on the line ("copy roof")
    VLine,     // vertical reference at x = `value`, labelled with `name`
    Roofline,  // a bold polyline without markers (use make_roofline())
    BarMarks,  // per-category references: a short dashed level across each category's slot at the
               // point's y ("time at the copy roof" of each rung when rungs move different bytes)
};

struct Point {
    double x = 0.0;
    double y = 0.0;
    double y_low = kNoValue;  // optional spread (min/max of repetitions): drawn as a whisker
    double y_high = kNoValue;
};

struct Series {
    std::string name;  // legend text; for HLine/VLine the label drawn on the line
    SeriesKind kind = SeriesKind::Line;
    std::vector<Point> points;
    double value = kNoValue;  // HLine: y; VLine: x
    int color = -1;           // palette index; -1: next data colour (references: theme.reference)
    int marker = -1;          // marker index; -1: next marker
    int dash = -1;            // dash index; -1: next dash for lines, dashed for references
    // Bars and Scatter: a palette index per point (one colour per rung); empty, or -1 for a
    // point, uses `color`. The legend swatch keeps `color`.
    std::vector<int> point_colors{};
    int hatch = -1;             // Bars: hatch index (0 = plain fill); -1: plain for the first bar
                                // series, the next hatch for each further one (greyscale tells them apart)
    bool markers = true;        // Line: mark each point too
    bool value_labels = false;  // Bars and Scatter: print each y value beside its point
    bool in_legend = true;      // HLine and VLine never appear in the legend (labelled in place)
    // Line: drawn thin, pale (its colour two thirds of the way to the background) and without
    // markers, behind the others: context for a highlighted line (a sweep of many rungs).
    bool faint = false;
};

// [SECTION] Annotations, legend, heatmap ----------------------------------------------------

struct Annotation {
    double x = 0.0;  // data coordinates (category index on category axes)
    double y = 0.0;
    std::string text;
    // A marker at (x, y) in palette colour `color` (-1: the reference colour), part of the data
    // range: a point that has no value of its own ("refused: needs 64 GiB").
    bool mark = false;
    int color = -1;
    // Anchored at the bottom of the plot area instead of at y (a value a log axis cannot show,
    // such as an exact zero error).
    bool at_axis_floor = false;
};

enum class LegendPlacement { Auto, TopLeft, TopRight, BottomLeft, BottomRight, OutsideRight, Below, Hidden };

struct Legend {
    // Auto: the inside corner hiding no data; else outside on the right if the page is wide
    // enough; else in rows below the plot. An inside corner too small for the legend also
    // falls back to Below.
    LegendPlacement placement = LegendPlacement::Auto;
    std::string title;
};

// A grid of values drawn as coloured cells (the correctness error map). Row 0 is drawn at the
// top, as in a matrix. The figure's x axis spans the columns and its y axis the rows, in the
// data units of x_extent and y_extent (e.g. matrix column and row indices).
struct Heatmap {
    int rows = 0;
    int cols = 0;
    std::vector<double> values;  // row-major, rows * cols; NaN cells are drawn crossed out
    Range x_extent{0.0, 0.0};    // left edge of column 0 to right edge of the last; empty: 0..cols
    Range y_extent{0.0, 0.0};    // top edge of row 0 to bottom edge of the last; empty: 0..rows
    std::string value_label;     // colour bar title, e.g. "max |error|"
    std::string value_unit;
    Scale value_scale = Scale::Linear;
    std::optional<double> value_min;  // fixed colour scale ends; empty: from the data
    std::optional<double> value_max;
    bool equal_aspect = true;  // square cells for square grids

    double at(int row, int col) const;  // NaN outside the grid or beyond `values`
    Range columns() const;              // x_extent, or [0, cols] when empty
    Range rows_extent() const;          // y_extent, or [0, rows] when empty
    std::string value_title() const;
};

// [SECTION] Figure --------------------------------------------------------------------------

// Bars on a category x axis (one per rung) may be drawn across instead: categories down the left
// with their names whole, values along the bottom. Auto decides (horizontal_bars_wanted, layout.h).
enum class BarOrientation { Auto, Vertical, Horizontal };

struct Figure {
    std::string name;  // short id for file names and the CSV "figure" column; falls back to title
    std::string title;
    std::string caption;  // device, date, problem size...: printed small under the plot
    Axis x;
    Axis y;
    std::vector<Series> series;
    std::vector<Annotation> annotations;
    Legend legend;
    std::optional<Heatmap> heatmap;
    BarOrientation bars = BarOrientation::Auto;

    std::string id() const;
};

// [SECTION] Builders ------------------------------------------------------------------------

Series make_hline(std::string label, double y);
Series make_vline(std::string label, double x);

// The roofline min(peak, bandwidth * x) from x_min to x_max as a polyline through the ridge
// point x = peak / bandwidth (units: x in FLOP/byte, peak in the y unit, bandwidth in y unit
// per FLOP/byte). Exact on log-log axes, where both parts are straight.
Series make_roofline(std::string name, double peak, double bandwidth, double x_min, double x_max);

// Joins the non-empty parts with " · ": caption_of({"H100", "2026-11-22", "n = 2^28"}).
std::string caption_of(const std::vector<std::string>& parts);

// [SECTION] Derived data --------------------------------------------------------------------

enum class AxisId { X, Y };

// The drawable range of an axis: fixed ends, categories, heatmap extents or the data of the
// visible series (reference values included, bars imply zero on linear y), padded.
Range axis_range(const Figure& figure, AxisId axis);

// The heatmap colour scale range (fixed ends or the finite cell values; log: positive ones).
Range heatmap_value_range(const Heatmap& heatmap);

// Concrete style indices per series, same order as figure.series.
struct SeriesStyle {
    int color = 0;  // palette index, or -1 for the theme's reference colour
    int marker = 0;
    int dash = 0;
    int hatch = 0;  // 0 = none
};
std::vector<SeriesStyle> resolve_styles(const Figure& figure);

// The palette index point `point` of `series` is drawn in: its point_colors entry when it has
// one (>= 0), else the series' resolved colour.
int point_color(const Series& series, const SeriesStyle& style, size_t point);

// Everything that will not be drawn as given, one readable line each
// ("series 'naive': 2 points with NaN or infinite values skipped"). Empty when all is fine.
std::vector<std::string> validate(const Figure& figure);

}  // namespace kl::plot
