// Renderer-independent layout: where everything of a Figure goes on a page of a given size.
//
// The layout measures every text with a callback supplied by the renderer (cairo, ImGui), so the
// screen and the exported file make the same decisions: the same plot area, the same ticks, the
// same thinned or wrapped labels, the same legend corner. Then build_scene() (figure_scene.h)
// turns Figure + Layout into drawing commands.
//
// Guarantees, for any figure and any size:
// - tick labels of one axis never overlap (ticks are re-chosen with fewer labels, category names
//   are wrapped or set vertically), and no text leaves the page (long texts get an ellipsis);
// - the plot area is at least 1 x 1; nothing here throws or divides by zero.
// And on pages of reasonable size (about 150 x 100 points and up with the print theme): texts
// outside the plot never overlap each other or the plot area; notes stay inside the plot.
//
// Index
// [SECTION] Text measurement
// [SECTION] Layout results
// [SECTION] Entry point
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plot/plot_model.h"
#include "plot/scene.h"
#include "plot/theme.h"

namespace kl::plot {

// [SECTION] Text measurement ----------------------------------------------------------------

struct TextMetrics {
    double width = 0;    // advance width of the whole string
    double ascent = 0;   // font ascent above the baseline (positive)
    double descent = 0;  // font descent below the baseline (positive)
};

// Measures one line of UTF-8 text at a font size (page units) in the regular or bold face.
using MeasureText = std::function<TextMetrics(const std::string& text, double size, bool bold)>;

// A font-free estimate (0.6 em per character, DejaVu-like ascent and descent) for tests and for
// callers without a font; real renderers pass their own measurement.
MeasureText approximate_measure();

// [SECTION] Layout results ------------------------------------------------------------------

struct PlacedTick {
    double value = 0;
    double pixel = 0;  // position along the axis (x for the x axis, y for the y axis)
    bool major = true;
    std::vector<TextCmd> label;  // none (minor or unlabelled), one line, or a wrapped category name
};

struct AxisLayout {
    Scale scale = Scale::Linear;
    Range range;
    Transform transform;
    std::vector<PlacedTick> ticks;
    std::optional<TextCmd> title;
    bool category = false;
    bool vertical_labels = false;  // category names set vertically because they did not fit
};

struct LegendItem {
    size_t series = 0;  // index into figure.series
    Rect swatch;        // where the line/marker/bar sample goes
    TextCmd label;
};

struct LegendLayout {
    bool visible = false;
    LegendPlacement placement = LegendPlacement::Hidden;  // the resolved corner (never Auto)
    Rect box;
    std::optional<TextCmd> title;
    std::vector<LegendItem> items;
    bool truncated = false;  // an entry was cut to fit (such a legend goes below the plot)
};

struct BarLayout {
    size_t series = 0;
    size_t point = 0;
    Rect rect;
    bool horizontal = false;  // drawn across (horizontal bars): the whisker runs along x
    // Spread whisker (from Point::y_low / y_high), when both are finite. Horizontal bars: at
    // height whisker_x from whisker_top (left) to whisker_bottom (right).
    bool has_whisker = false;
    double whisker_x = 0, whisker_top = 0, whisker_bottom = 0, cap_half_width = 0;
};

struct ColorBarLayout {
    bool visible = false;
    Rect bar;
    AxisLayout axis;  // vertical; transform maps values to y inside `bar`
    // A "NaN" key under the bar, shown when the grid holds NaN cells (drawn like them: crossed).
    bool nan_key = false;
    Rect nan_swatch;
    TextCmd nan_label;
};

struct Layout {
    double width = 0, height = 0;
    Rect plot;  // the data area; everything data-related is clipped to it
    AxisLayout x, y;
    std::vector<TextCmd> title;    // wrapped lines
    std::vector<TextCmd> caption;  // wrapped lines
    LegendLayout legend;
    ColorBarLayout color_bar;
    std::vector<BarLayout> bars;
    std::vector<TextCmd> notes;  // reference-line labels, annotations, value labels (not clipped)
    struct AnnotationMark {
        Vec2 at;
        int color = -1;  // palette index; -1: the theme's reference colour
    };
    std::vector<AnnotationMark> annotation_marks;  // markers of Annotation::mark, at their anchors
    std::vector<SeriesStyle> styles;
    // On pages too small for everything, the caption and then the title are left out so the
    // plot keeps at least a quarter of the page; these say which were.
    bool caption_omitted = false;
    bool title_omitted = false;
    // Set when the bars were laid out across (horizontal_bars_wanted): the figure as drawn, with
    // categories on the y axis (first at the top), values on x and reference lines turned; the
    // layout's positions belong to it, so build_scene draws it instead of the figure it was given.
    // Series and point indices are those of the given figure.
    std::shared_ptr<const Figure> drawn;
};

// [SECTION] Entry point ---------------------------------------------------------------------

// Whether a figure's bars are drawn across: BarOrientation::Horizontal, or Auto with a category
// x axis holding bars and either more than kManyBars categories, or a category name that would
// need more than three lines (or a cut word) under its bar on a page `width` wide. Vertical
// names are never used for bars: they are hard to read and were cut.
inline constexpr size_t kManyBars = 12;
bool horizontal_bars_wanted(const Figure& figure, double width, const MeasureText& measure, const Theme& theme);
// The figure drawn across: categories on y (first at the top, one spare row on top for the
// labels of reference lines), values on x, horizontal references turned vertical.
Figure bars_across(const Figure& figure);
// The page height a file export uses: `height`, or more when bars drawn across need it, so that
// every category gets a row that holds its name and its value (at most 7200 points).
double export_height(const Figure& figure, double width, double height, const MeasureText& measure, const Theme& theme);

Layout compute_layout(const Figure& figure, double width, double height, const MeasureText& measure,
                      const Theme& theme);

// The level of a BarMarks point in page units: across its category's slot at the point's y
// (y is NaN when the point is not drawable).
std::pair<Vec2, Vec2> bar_mark_segment(const Layout& layout, const Point& point);

// Text placement helpers, public for renderers that add their own text (tooltips, overlays).
enum class HAlign { Left, Center, Right };
enum class VAlign { Top, Middle, Baseline, Bottom };
TextCmd place_text(const std::string& text, double size, bool bold, Color color, Vec2 anchor, HAlign h, VAlign v,
                   const MeasureText& measure, bool vertical = false);
// Greedy word wrap to max_width; words longer than a line are cut with an ellipsis.
std::vector<std::string> wrap_text(const std::string& text, double max_width, double size, bool bold,
                                   const MeasureText& measure);
// The longest prefix of `text` (whole UTF-8 characters) that fits with "…" appended; `text` if it fits.
std::string fit_text(const std::string& text, double max_width, double size, bool bold, const MeasureText& measure);

}  // namespace kl::plot
