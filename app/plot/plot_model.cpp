// Index
// [SECTION] Small accessors
// [SECTION] Builders
// [SECTION] Ranges
// [SECTION] Styles
// [SECTION] Validation
#include "plot/plot_model.h"

#include <algorithm>
#include <cmath>

namespace kl::plot {

// [SECTION] Small accessors -----------------------------------------------------------------

namespace {

std::string with_unit(const std::string& label, const std::string& unit) {
    if (unit.empty()) return label;
    if (label.empty()) return unit;
    return label + " (" + unit + ")";
}

bool is_reference(SeriesKind kind) { return kind == SeriesKind::HLine || kind == SeriesKind::VLine; }

}  // namespace

std::string Axis::title() const { return with_unit(label, unit); }

double Heatmap::at(int row, int col) const {
    if (row < 0 || col < 0 || row >= rows || col >= cols) return kNoValue;
    size_t index = static_cast<size_t>(row) * static_cast<size_t>(cols) + static_cast<size_t>(col);
    return index < values.size() ? values[index] : kNoValue;
}

Range Heatmap::columns() const {
    return is_drawable(x_extent, Scale::Linear) ? x_extent : Range{0.0, static_cast<double>(std::max(cols, 1))};
}

Range Heatmap::rows_extent() const {
    return is_drawable(y_extent, Scale::Linear) ? y_extent : Range{0.0, static_cast<double>(std::max(rows, 1))};
}

std::string Heatmap::value_title() const { return with_unit(value_label, value_unit); }

std::string Figure::id() const {
    if (!name.empty()) return name;
    if (!title.empty()) return title;
    return "figure";
}

// [SECTION] Builders ------------------------------------------------------------------------

Series make_hline(std::string label, double y) {
    Series s;
    s.name = std::move(label);
    s.kind = SeriesKind::HLine;
    s.value = y;
    s.in_legend = false;
    return s;
}

Series make_vline(std::string label, double x) {
    Series s = make_hline(std::move(label), x);
    s.kind = SeriesKind::VLine;
    return s;
}

Series make_roofline(std::string name, double peak, double bandwidth, double x_min, double x_max) {
    Series s;
    s.name = std::move(name);
    s.kind = SeriesKind::Roofline;
    s.markers = false;
    bool usable = std::isfinite(peak) && peak > 0 && std::isfinite(bandwidth) && bandwidth > 0 &&
                  std::isfinite(x_min) && std::isfinite(x_max) && x_min < x_max;
    if (!usable) return s;  // validate() reports the empty series
    auto roof = [&](double x) { return std::min(peak, bandwidth * x); };
    double ridge = peak / bandwidth;
    s.points.push_back({x_min, roof(x_min)});
    if (ridge > x_min && ridge < x_max) s.points.push_back({ridge, peak});
    s.points.push_back({x_max, roof(x_max)});
    return s;
}

std::string caption_of(const std::vector<std::string>& parts) {
    std::string out;
    for (const std::string& part : parts) {
        if (part.empty()) continue;
        if (!out.empty()) out += " · ";
        out += part;
    }
    return out;
}

// [SECTION] Ranges --------------------------------------------------------------------------

namespace {

// Half the smallest gap between distinct bar x values, in scale space (bars need room at the ends).
double half_bar_gap(const Figure& figure, Scale scale) {
    std::vector<double> xs;
    for (const Series& s : figure.series) {
        if (s.kind != SeriesKind::Bars) continue;
        for (const Point& p : s.points) {
            if (!std::isfinite(p.x) || (scale == Scale::Log10 && !(p.x > 0))) continue;
            xs.push_back(scale == Scale::Log10 ? std::log10(p.x) : p.x);
        }
    }
    std::sort(xs.begin(), xs.end());
    double gap = 0.0;
    for (size_t i = 1; i < xs.size(); ++i) {
        double d = xs[i] - xs[i - 1];
        if (d > 0 && (gap == 0.0 || d < gap)) gap = d;
    }
    return 0.5 * gap;
}

}  // namespace

Range axis_range(const Figure& figure, AxisId which) {
    const Axis& axis = which == AxisId::X ? figure.x : figure.y;
    RangeRequest request;
    request.padding = axis.padding;
    request.include_zero = axis.include_zero;
    request.fixed_min = axis.min;
    request.fixed_max = axis.max;

    if (axis.is_category()) {
        // Categories fix the range; padding and zero have no meaning there.
        Range r{-0.5, static_cast<double>(axis.categories.size()) - 0.5};
        return resolve_range(Extent{r.min, r.max, false}, Scale::Linear, RangeRequest{0.0, false, axis.min, axis.max});
    }
    if (figure.heatmap) {
        Range r = which == AxisId::X ? figure.heatmap->columns() : figure.heatmap->rows_extent();
        request.padding = 0.0;
        request.include_zero = false;
        Extent e;
        e.include(r.min, axis.scale);
        e.include(r.max, axis.scale);
        return resolve_range(e, axis.scale, request);
    }

    Extent extent;
    bool has_bars = false;
    // Bars drawn across (bars_across): values on x, from zero; categories fix y.
    const bool across = figure.bars == BarOrientation::Horizontal && figure.y.is_category();
    for (const Series& s : figure.series) {
        if (s.kind == SeriesKind::HLine) {
            if (which == AxisId::Y) extent.include(s.value, axis.scale);
            continue;
        }
        if (s.kind == SeriesKind::VLine) {
            if (which == AxisId::X) extent.include(s.value, axis.scale);
            continue;
        }
        has_bars = has_bars || s.kind == SeriesKind::Bars;
        for (const Point& p : s.points) {
            if (which == AxisId::X) {
                extent.include(p.x, axis.scale);
                if (across && s.kind == SeriesKind::Bars) {  // the spread of a bar drawn across
                    extent.include(p.y_low, axis.scale);
                    extent.include(p.y_high, axis.scale);
                }
            } else {
                extent.include(p.y, axis.scale);
                extent.include(p.y_low, axis.scale);
                extent.include(p.y_high, axis.scale);
            }
        }
    }
    for (const Annotation& a : figure.annotations)
        if (a.mark)
            extent.include(which == AxisId::X ? (across && a.at_axis_floor ? kNoValue : a.x)
                                              : (a.at_axis_floor && !across ? kNoValue : a.y),
                           axis.scale);
    if (which == (across ? AxisId::X : AxisId::Y) && has_bars && axis.scale == Scale::Linear)
        request.include_zero = true;
    if (which == AxisId::X && has_bars && !across && !extent.empty) {
        double half = half_bar_gap(figure, axis.scale);
        if (half > 0) {
            if (axis.scale == Scale::Log10) {
                extent.include(extent.min / std::pow(10.0, half), axis.scale);
                extent.include(extent.max * std::pow(10.0, half), axis.scale);
            } else {
                double lo = extent.min - half, hi = extent.max + half;
                extent.include(lo, axis.scale);
                extent.include(hi, axis.scale);
            }
        }
    }
    return resolve_range(extent, axis.scale, request);
}

Range heatmap_value_range(const Heatmap& heatmap) {
    Extent extent;
    for (int r = 0; r < heatmap.rows; ++r)
        for (int c = 0; c < heatmap.cols; ++c) extent.include(heatmap.at(r, c), heatmap.value_scale);
    RangeRequest request;
    request.padding = 0.0;
    request.fixed_min = heatmap.value_min;
    request.fixed_max = heatmap.value_max;
    return resolve_range(extent, heatmap.value_scale, request);
}

// [SECTION] Styles --------------------------------------------------------------------------

std::vector<SeriesStyle> resolve_styles(const Figure& figure) {
    std::vector<SeriesStyle> styles;
    int next_color = 0, next_marker = 0, next_dash = 0, next_hatch = 0;
    for (const Series& s : figure.series) {
        SeriesStyle st;
        bool reference = is_reference(s.kind) || s.kind == SeriesKind::Roofline || s.kind == SeriesKind::BarMarks;
        bool has_markers = s.kind == SeriesKind::Scatter || (s.kind == SeriesKind::Line && s.markers);
        st.color = s.color >= 0 ? s.color : (reference ? -1 : next_color++);
        st.marker = s.marker >= 0 ? s.marker : (has_markers ? next_marker++ : 0);
        if (s.dash >= 0)
            st.dash = s.dash;
        else if (s.kind == SeriesKind::Line)
            st.dash = next_dash++;
        else if (is_reference(s.kind) || s.kind == SeriesKind::BarMarks)
            st.dash = 1;  // dashed: a reference, not data
        else
            st.dash = 0;
        if (s.kind == SeriesKind::Bars) st.hatch = s.hatch >= 0 ? s.hatch : next_hatch++;
        styles.push_back(st);
    }
    return styles;
}

int point_color(const Series& series, const SeriesStyle& style, size_t point) {
    if (point < series.point_colors.size() && series.point_colors[point] >= 0) return series.point_colors[point];
    return style.color;
}

// [SECTION] Validation ----------------------------------------------------------------------

namespace {

std::string quoted(const std::string& name) { return "'" + name + "'"; }

std::string plural(size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

void check_axis(const char* which, const Axis& axis, std::vector<std::string>& problems) {
    auto bad_end = [&](const std::optional<double>& end) {
        return end && (!std::isfinite(*end) || (axis.scale == Scale::Log10 && *end <= 0));
    };
    std::string name = std::string(which) + " axis";
    if (bad_end(axis.min))
        problems.push_back(name + ": fixed minimum " + format_value(*axis.min) +
                           " cannot be used on this scale; taken from the data");
    if (bad_end(axis.max))
        problems.push_back(name + ": fixed maximum " + format_value(*axis.max) +
                           " cannot be used on this scale; taken from the data");
    if (axis.min && axis.max && !bad_end(axis.min) && !bad_end(axis.max) && !(*axis.min < *axis.max))
        problems.push_back(name + ": fixed range [" + format_value(*axis.min) + ", " + format_value(*axis.max) +
                           "] is empty; taken from the data");
    if (axis.is_category() && axis.scale == Scale::Log10)
        problems.push_back(name + ": a category axis is always linear; log scale ignored");
}

}  // namespace

std::vector<std::string> validate(const Figure& figure) {
    std::vector<std::string> problems;
    check_axis("x", figure.x, problems);
    check_axis("y", figure.y, problems);
    const bool log_x = figure.x.scale == Scale::Log10 && !figure.x.is_category();
    const bool log_y = figure.y.scale == Scale::Log10;

    for (const Series& s : figure.series) {
        std::string who = (is_reference(s.kind) ? "reference line " : "series ") + quoted(s.name);
        if (is_reference(s.kind)) {
            bool on_log = s.kind == SeriesKind::HLine ? log_y : log_x;
            if (!std::isfinite(s.value))
                problems.push_back(who + ": value is not a finite number; not drawn");
            else if (on_log && s.value <= 0)
                problems.push_back(who + ": value " + format_value(s.value) + " cannot be shown on a log axis");
            continue;
        }
        if (s.points.empty()) {
            problems.push_back(who + ": no points");
            continue;
        }
        size_t non_finite = 0, non_positive = 0, off_category = 0;
        for (const Point& p : s.points) {
            if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
                ++non_finite;
                continue;
            }
            if ((log_x && p.x <= 0) || (log_y && p.y <= 0)) ++non_positive;
            if (figure.x.is_category()) {
                double n = static_cast<double>(figure.x.categories.size());
                if (p.x != std::floor(p.x) || p.x < 0 || p.x >= n) ++off_category;
            }
        }
        if (non_finite)
            problems.push_back(who + ": " + plural(non_finite, "point has", "points have") +
                               " NaN or infinite values; not drawn");
        if (non_positive)
            problems.push_back(who + ": " + plural(non_positive, "point is", "points are") +
                               " <= 0 on a log axis; not drawn");
        if (off_category)
            problems.push_back(who + ": " + plural(off_category, "point has", "points have") +
                               " an x that is not one of the " + std::to_string(figure.x.categories.size()) +
                               " category indices");
    }

    for (const Annotation& a : figure.annotations)
        if (!std::isfinite(a.x) || !std::isfinite(a.y))
            problems.push_back("annotation " + quoted(a.text) + ": position is not finite; not drawn");

    if (figure.heatmap) {
        const Heatmap& h = *figure.heatmap;
        if (h.rows <= 0 || h.cols <= 0) {
            problems.push_back("heatmap: " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                               " cells; nothing to draw");
        } else {
            size_t cells = static_cast<size_t>(h.rows) * static_cast<size_t>(h.cols);
            if (h.values.size() < cells)
                problems.push_back("heatmap: " + std::to_string(h.values.size()) + " values for " +
                                   std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                                   " cells; the missing cells read NaN");
            if (h.values.size() > cells)
                problems.push_back("heatmap: " + std::to_string(h.values.size()) + " values for " +
                                   std::to_string(cells) + " cells; the extra values are ignored");
            size_t nan_cells = 0;
            for (size_t i = 0; i < std::min(cells, h.values.size()); ++i) nan_cells += std::isnan(h.values[i]) ? 1 : 0;
            if (nan_cells)
                problems.push_back("heatmap: " + plural(nan_cells, "cell is", "cells are") +
                                   " NaN (drawn crossed out)");
        }
    }
    return problems;
}

}  // namespace kl::plot
