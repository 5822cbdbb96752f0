// The parts of compute_layout() (layout.h) that live in their own files, and what they share:
// layout.cpp (text helpers, margins, legend, the passes), layout_axes.cpp (ticks, axis labels,
// colour bar), layout_marks.cpp (bars, the data footprint, notes and value labels). Internal to
// the plot module.
#pragma once
#include <string>
#include <vector>

#include "plot/layout.h"

namespace kl::plot::detail {

struct Context {
    const Figure& figure;
    const Theme& theme;
    const MeasureText& measure;
    double width;
    double height;
    // The vertical band between the title and the blocks under the plot: vertical titles (y axis,
    // colour bar) must stay inside it.
    double room_top = 0;
    double room_bottom = 0;
    // What the data alone decides, computed once: every layout pass (up to seven per placement,
    // several placements per figure) reads them, and they scan every point or heatmap cell.
    Range x_range{};
    Range y_range{};         // before make_headroom(), which depends on the plot height
    Range heatmap_values{};  // the colour scale; only with a heatmap
    bool heatmap_has_nan = false;
};

// Text measured through `measure` with nonsense (NaN, negative sizes) read as 0.
TextMetrics safe_measure(const MeasureText& measure, const std::string& text, double size, bool bold);
double line_height(const MeasureText& measure, double size, bool bold = false);

// [layout_axes.cpp]
AxisLayout layout_x_axis(const Context& c, Range range, const Rect& plot);
AxisLayout layout_y_axis(const Context& c, Range range, const Rect& plot, bool top_down);
// The union of all tick label boxes, or an empty rect at `fallback` when there are none.
Rect label_bounds(const AxisLayout& a, Vec2 fallback);
ColorBarLayout layout_color_bar(const Context& c, const Rect& plot);

// [layout_marks.cpp]
void layout_bars(const Context& c, Layout& L);
// Where the data is drawn, as points every few units: lines, markers, bars, references and the
// notes placed so far. Legend and annotation placement count how much of it a box would hide.
std::vector<Vec2> data_footprint(const Context& c, const Layout& L);
int covered(const std::vector<Vec2>& pts, const Rect& box);
// Reference-line labels, value labels of bars and points, annotations.
void layout_notes(const Context& c, Layout& L);

// [layout.cpp] the layout of a figure as given (compute_layout turns bars across first)
Layout layout_figure(const Figure& figure, double width, double height, const MeasureText& measure, const Theme& theme);

// [layout_across.cpp] bars drawn across (categories on y)
void layout_bars_across(const Context& c, Layout& L, const std::vector<size_t>& bar_series);
// A bar's value after its end, or inside the end (in `on_bar`) when after it would leave the
// plot or cross a reference line (`reference_columns`, pixels); past the line when neither the
// end nor the inside has room; an empty text when nothing fits.
TextCmd place_across_value_label(const Context& c, const Layout& L, const BarLayout& b, const std::string& text,
                                 Color on_bar, const std::vector<double>& reference_columns);

}  // namespace kl::plot::detail
