// Bars drawn across: the choice (horizontal_bars_wanted) and the turned figure (bars_across).
// A bar chart of many rungs cannot give each name room under its bar; drawn across, every name
// has the whole left margin on one line and the bars keep their order from the top.
#include <algorithm>
#include <cmath>

#include "plot/layout_parts.h"

namespace kl::plot {

bool horizontal_bars_wanted(const Figure& figure, double width, const MeasureText& measure, const Theme& theme) {
    if (!figure.x.is_category() || figure.heatmap || figure.bars == BarOrientation::Vertical) return false;
    if (figure.bars == BarOrientation::Horizontal) return true;
    if (std::none_of(figure.series.begin(), figure.series.end(),
                     [](const Series& s) { return s.kind == SeriesKind::Bars; }))
        return false;
    const auto& names = figure.x.categories;
    if (names.size() > kManyBars) return true;
    // The slot each name would get: the page less the y axis and its title, shared by the bars
    // (the layout's own first guess of the margins).
    const double size = theme.tick_size;
    const double plot_w = width - 2 * theme.pad - 7 * size;
    const double available = plot_w / static_cast<double>(names.size()) - 0.6 * size;
    if (available <= size) return true;
    for (const std::string& name : names) {
        std::vector<std::string> lines = wrap_text(name, available, size, false, measure);
        std::string joined;
        for (const std::string& l : lines) joined += (joined.empty() ? "" : " ") + l;
        if (lines.size() > 3 || joined != name) return true;
    }
    return false;
}

Figure bars_across(const Figure& figure) {
    Figure f = figure;
    const size_t n = figure.x.categories.size();
    const double top = static_cast<double>(n) - 1;
    auto row = [&](double index) { return top - index; };  // first category at the top
    f.bars = BarOrientation::Horizontal;
    f.x = figure.y;
    f.x.categories.clear();
    if (f.x.scale == Scale::Linear) f.x.include_zero = true;
    f.y = Axis{};
    f.y.label = figure.x.label;
    f.y.unit = figure.x.unit;
    f.y.categories.assign(figure.x.categories.rbegin(), figure.x.categories.rend());
    f.y.grid = false;
    bool labelled_reference = false, value_labels = false;
    for (Series& s : f.series) {
        value_labels = value_labels || s.value_labels;
        if (s.kind == SeriesKind::HLine) {
            s.kind = SeriesKind::VLine;
            labelled_reference = labelled_reference || !s.name.empty();
            continue;
        }
        if (s.kind == SeriesKind::VLine) s.kind = SeriesKind::HLine, s.value = row(s.value);
        for (Point& p : s.points) {
            double value = p.y;
            p.y = row(p.x);
            p.x = value;  // y_low and y_high stay: for bars drawn across they bound the value (x)
        }
    }
    for (Annotation& a : f.annotations) {
        double value = a.y;
        a.y = row(a.x);
        a.x = value;
    }
    // Room on the right for the values printed after the bars' ends.
    if (value_labels) f.x.padding = std::max(f.x.padding, 0.16);
    // A spare row on top, where the labels of reference lines go: never over a bar.
    if (labelled_reference && !f.y.max) f.y.max = static_cast<double>(n) - 0.5 + 0.9;
    return f;
}

Layout compute_layout(const Figure& figure, double width, double height, const MeasureText& measure,
                      const Theme& theme) {
    if (!horizontal_bars_wanted(figure, width, measure, theme))
        return detail::layout_figure(figure, width, height, measure, theme);
    auto across = std::make_shared<const Figure>(bars_across(figure));
    Layout L = detail::layout_figure(*across, width, height, measure, theme);
    L.drawn = across;
    return L;
}

double export_height(const Figure& figure, double width, double height, const MeasureText& measure,
                     const Theme& theme) {
    if (!horizontal_bars_wanted(figure, width, measure, theme)) return height;
    Layout trial = compute_layout(figure, width, height, measure, theme);
    const double row = 1.45 * std::max(detail::line_height(measure, theme.tick_size),
                                       detail::line_height(measure, theme.annotation_size));
    const double rows = trial.y.range.max - trial.y.range.min;  // categories and the spare row
    return std::clamp(height + rows * row - trial.plot.h, height, std::max(height, 7200.0));
}

namespace detail {

void layout_bars_across(const Context& c, Layout& L, const std::vector<size_t>& bar_series) {
    const Transform& tx = L.x.transform;
    const Transform& ty = L.y.transform;
    double slot = std::fabs(ty.to_pixel(1.0) - ty.to_pixel(0.0));
    double group = std::min(slot * 0.8, 0.6 * L.plot.h);
    double bar_h = group / static_cast<double>(bar_series.size());
    // Baseline: 0 on linear axes (clamped into the plot), the left edge on log axes.
    double base = L.plot.left();
    if (L.x.scale == Scale::Linear) {
        double zero = tx.to_pixel(0.0);
        base = std::clamp(std::isfinite(zero) ? zero : L.plot.left(), L.plot.left(), L.plot.right());
    }
    auto clamp_x = [&](double v) { return std::clamp(v, L.plot.left(), L.plot.right()); };
    for (size_t k = 0; k < bar_series.size(); ++k) {
        const Series& s = c.figure.series[bar_series[k]];
        for (size_t pi = 0; pi < s.points.size(); ++pi) {
            const Point& p = s.points[pi];
            double cy = ty.to_pixel(p.y), end = tx.to_pixel(p.x);
            if (!std::isfinite(cy) || !std::isfinite(end)) continue;
            double top = cy - 0.5 * group + static_cast<double>(k) * bar_h;
            double bottom = std::min(top + bar_h, L.plot.bottom()), visible_top = std::max(top, L.plot.top());
            if (bottom <= visible_top) continue;
            end = clamp_x(end);
            BarLayout b;
            b.series = bar_series[k];
            b.point = pi;
            b.horizontal = true;
            b.rect = {std::min(end, base), visible_top, std::fabs(end - base), bottom - visible_top};
            double lo = tx.to_pixel(p.y_low), hi = tx.to_pixel(p.y_high);
            if (std::isfinite(lo) && std::isfinite(hi)) {
                b.has_whisker = true;
                b.whisker_x = std::clamp(top + 0.5 * bar_h, L.plot.top(), L.plot.bottom());
                b.whisker_top = clamp_x(std::min(lo, hi));
                b.whisker_bottom = clamp_x(std::max(lo, hi));
                b.cap_half_width = std::min(0.2 * bar_h, 4.0);
            }
            L.bars.push_back(b);
        }
    }
}

TextCmd place_across_value_label(const Context& c, const Layout& L, const BarLayout& b, const std::string& text,
                                 Color on_bar, const std::vector<double>& reference_columns) {
    const Theme& th = c.theme;
    const double size = th.annotation_size, gap = 2.5;
    const double cy = b.rect.y + 0.5 * b.rect.h;
    const double end = b.has_whisker ? std::max(b.rect.right(), b.whisker_bottom) : b.rect.right();
    auto crossed = [&](const TextCmd& t) {
        for (double x : reference_columns)
            if (std::isfinite(x) && x >= t.box.left() - 1.0 && x <= t.box.right() + 1.0) return x;
        return std::nan("");
    };
    TextCmd t = place_text(text, size, false, th.ink, {end + gap, cy}, HAlign::Left, VAlign::Middle, c.measure);
    const double line = crossed(t);
    if (t.box.right() <= L.plot.right() && std::isnan(line)) return t;
    // inside: left of the whisker's near end, so the label does not touch the spread
    const double inner = b.has_whisker ? std::min(b.rect.right(), b.whisker_top) : b.rect.right();
    TextCmd inside = place_text(text, size, false, on_bar, {inner - gap, cy}, HAlign::Right, VAlign::Middle, c.measure);
    if (inside.box.left() >= b.rect.left() + gap && inside.box.h <= b.rect.h + 2.0 && std::isnan(crossed(inside)))
        return inside;
    if (!std::isnan(line)) {  // a short bar ending just before the line: its value after the line
        t = place_text(text, size, false, th.ink, {line + gap, cy}, HAlign::Left, VAlign::Middle, c.measure);
        if (t.box.right() <= L.plot.right() && std::isnan(crossed(t))) return t;
    }
    return {};
}

}  // namespace detail
}  // namespace kl::plot
