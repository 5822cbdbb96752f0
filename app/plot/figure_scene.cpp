// Index
// [SECTION] Helpers
// [SECTION] Grid and heatmap
// [SECTION] Series
// [SECTION] Axes, texts, legend, colour bar
// [SECTION] build_scene
#include "plot/figure_scene.h"

#include <algorithm>
#include <cstdint>
#include <cmath>

namespace kl::plot {

namespace {

// [SECTION] Helpers -------------------------------------------------------------------------

struct Painter {
    const Figure& figure;
    const Layout& layout;
    const Theme& theme;
    Scene& scene;

    void line(std::vector<Vec2> pts, Color color, double width, std::vector<double> dash = {}) {
        if (pts.size() >= 2) scene.commands.push_back(LineCmd{std::move(pts), color, width, std::move(dash)});
    }
    void rect(Rect r, Color fill, Color stroke = {}, double stroke_width = 0.0) {
        scene.commands.push_back(RectCmd{r, fill, stroke, stroke_width});
    }
    void text(const TextCmd& t) {
        if (!t.text.empty()) scene.commands.push_back(t);
    }

    Color series_color(size_t i) const {
        int index = layout.styles.at(i).color;
        Color c = index < 0 ? theme.reference : theme.palette_color(index);
        if (!figure.series.at(i).faint) return c;
        const float k = 2.0f / 3.0f;  // toward the background: pale on paper and on the dark screen theme
        const Color& b = theme.background;
        return {c.r + (b.r - c.r) * k, c.g + (b.g - c.g) * k, c.b + (b.b - c.b) * k, c.a};
    }
    Color point_color(size_t series, size_t point) const {
        int index = plot::point_color(figure.series.at(series), layout.styles.at(series), point);
        return index < 0 ? theme.reference : theme.palette_color(index);
    }
    const SeriesStyle& style(size_t i) const { return layout.styles.at(i); }
};

Color darker(Color c, float f) { return {c.r * f, c.g * f, c.b * f, c.a}; }

// The part of `r` inside `bounds`; false when none is.
bool intersect(const Rect& r, const Rect& bounds, Rect& out) {
    double l = std::max(r.left(), bounds.left()), t = std::max(r.top(), bounds.top());
    double rr = std::min(r.right(), bounds.right()), b = std::min(r.bottom(), bounds.bottom());
    if (!(rr > l) || !(b > t)) return false;
    out = {l, t, rr - l, b - t};
    return true;
}

// [SECTION] Grid and heatmap ----------------------------------------------------------------

void paint_grid(Painter& p) {
    const Rect& plot = p.layout.plot;
    if (p.figure.heatmap) return;
    if (p.figure.y.grid)
        for (const PlacedTick& t : p.layout.y.ticks)
            if (t.major) p.line({{plot.left(), t.pixel}, {plot.right(), t.pixel}}, p.theme.grid, p.theme.grid_width);
    if (p.figure.x.grid && !p.layout.x.category)
        for (const PlacedTick& t : p.layout.x.ticks)
            if (t.major) p.line({{t.pixel, plot.top()}, {t.pixel, plot.bottom()}}, p.theme.grid, p.theme.grid_width);
}

// Position of a value on the colour scale, 0..1 (values below a log scale read 0; NaN stays NaN).
double color_position(double v, const AxisLayout& scale) {
    if (std::isnan(v)) return v;
    Range r = scale.range;
    if (scale.scale == Scale::Log10) {
        if (!(v > 0)) return 0.0;
        return (std::log10(v) - std::log10(r.min)) / (std::log10(r.max) - std::log10(r.min));
    }
    return (v - r.min) / (r.max - r.min);
}

void paint_crossed(Painter& p, const Rect& r) {
    p.rect(r, p.theme.nan_cell);
    double inset = std::min(r.w, r.h) * 0.2;
    double width = std::clamp(std::min(r.w, r.h) * 0.08, 0.3, 1.0);
    p.line({{r.left() + inset, r.top() + inset}, {r.right() - inset, r.bottom() - inset}}, p.theme.nan_cross, width);
    p.line({{r.left() + inset, r.bottom() - inset}, {r.right() - inset, r.top() + inset}}, p.theme.nan_cross, width);
}

void paint_heatmap(Painter& p) {
    if (!p.figure.heatmap) return;
    const Heatmap& h = *p.figure.heatmap;
    if (h.rows <= 0 || h.cols <= 0) return;
    const Transform& tx = p.layout.x.transform;
    const Transform& ty = p.layout.y.transform;
    Range xe = h.columns(), ye = h.rows_extent();
    double dx = xe.span() / h.cols, dy = ye.span() / h.rows;
    const double seam = 0.3;  // neighbouring cells overlap a little so no hairline shows between them
    for (int r = 0; r < h.rows; ++r) {
        for (int c = 0; c < h.cols; ++c) {
            double x0 = tx.to_pixel(xe.min + c * dx), x1 = tx.to_pixel(xe.min + (c + 1) * dx);
            double y0 = ty.to_pixel(ye.min + r * dy), y1 = ty.to_pixel(ye.min + (r + 1) * dy);
            if (!std::isfinite(x0) || !std::isfinite(x1) || !std::isfinite(y0) || !std::isfinite(y1)) continue;
            Rect cell;  // the visible part: a fixed axis range may cut cells off
            if (!intersect({std::min(x0, x1), std::min(y0, y1), std::fabs(x1 - x0), std::fabs(y1 - y0)}, p.layout.plot,
                           cell))
                continue;
            double v = h.at(r, c);
            if (std::isnan(v)) {
                paint_crossed(p, cell);
                continue;
            }
            Rect grown{cell.x, cell.y, std::min(cell.w + seam, p.layout.plot.right() - cell.x),
                       std::min(cell.h + seam, p.layout.plot.bottom() - cell.y)};
            p.rect(grown, p.theme.colormap(color_position(v, p.layout.color_bar.axis)));
        }
    }
}

// [SECTION] Series --------------------------------------------------------------------------

// Maps points to pixels and splits them into runs at NaN/infinite/unplaceable points, each run
// clipped to `clip` segment by segment.
std::vector<std::vector<Vec2>> polyline_runs(const Series& s, const Layout& L, const Rect& clip) {
    std::vector<std::vector<Vec2>> runs;
    std::vector<Vec2> run;
    auto flush = [&] {
        if (run.size() >= 2) runs.push_back(run);
        run.clear();
    };
    bool have_previous = false;
    Vec2 previous;
    for (const Point& pt : s.points) {
        Vec2 v{L.x.transform.to_pixel(pt.x), L.y.transform.to_pixel(pt.y)};
        if (!std::isfinite(v.x) || !std::isfinite(v.y)) {
            flush();
            have_previous = false;
            continue;
        }
        if (have_previous) {
            Vec2 a = previous, b = v;
            if (clip_segment(a, b, clip)) {
                bool continues =
                    !run.empty() && std::fabs(run.back().x - a.x) < 1e-9 && std::fabs(run.back().y - a.y) < 1e-9;
                if (!continues) {
                    flush();
                    run.push_back(a);
                }
                run.push_back(b);
            } else {
                flush();
            }
        }
        previous = v;
        have_previous = true;
    }
    flush();
    return runs;
}

// A bar: fill, hatch lines in a darker shade of the fill, outline. `point`: the bar's point, for
// per-point colours (SIZE_MAX: the series colour, as in the legend).
void paint_bar(Painter& p, size_t series, const Rect& r, size_t point = SIZE_MAX) {
    Color fill = p.point_color(series, point);
    p.rect(r, fill);
    Hatch hatch = p.theme.hatch(p.style(series).hatch);
    for (const auto& [a, b] : hatch_segments(hatch, r, p.theme.hatch_spacing)) p.line({a, b}, darker(fill, 0.55f), 0.6);
    p.rect(r, {0, 0, 0, 0}, darker(fill, 0.7f), 0.5);
}

void paint_bars(Painter& p) {
    for (const BarLayout& b : p.layout.bars) paint_bar(p, b.series, b.rect, b.point);
    for (const BarLayout& b : p.layout.bars) {
        if (!b.has_whisker) continue;
        double w = 0.8;
        if (b.horizontal) {  // across: from whisker_top (left) to whisker_bottom (right) at height whisker_x
            const double y = b.whisker_x, c = b.cap_half_width;
            p.line({{b.whisker_top, y}, {b.whisker_bottom, y}}, p.theme.ink, w);
            p.line({{b.whisker_top, y - c}, {b.whisker_top, y + c}}, p.theme.ink, w);
            p.line({{b.whisker_bottom, y - c}, {b.whisker_bottom, y + c}}, p.theme.ink, w);
            continue;
        }
        p.line({{b.whisker_x, b.whisker_top}, {b.whisker_x, b.whisker_bottom}}, p.theme.ink, w);
        p.line({{b.whisker_x - b.cap_half_width, b.whisker_top}, {b.whisker_x + b.cap_half_width, b.whisker_top}},
               p.theme.ink, w);
        p.line({{b.whisker_x - b.cap_half_width, b.whisker_bottom}, {b.whisker_x + b.cap_half_width, b.whisker_bottom}},
               p.theme.ink, w);
    }
}

void paint_lines(Painter& p) {
    const Layout& L = p.layout;
    const Rect& clip = L.plot;
    // Faint lines first, so that the highlighted ones are drawn over them.
    std::vector<size_t> order;
    for (bool faint : {true, false})
        for (size_t i = 0; i < p.figure.series.size(); ++i)
            if (p.figure.series[i].faint == faint) order.push_back(i);
    for (size_t i : order) {
        const Series& s = p.figure.series[i];
        Color color = p.series_color(i);
        const std::vector<double>& dash = p.theme.dash(p.style(i).dash);
        switch (s.kind) {
            case SeriesKind::Line:
            case SeriesKind::Roofline: {
                double width = s.kind == SeriesKind::Roofline ? p.theme.roofline_width
                               : s.faint                      ? 0.6 * p.theme.line_width
                                                              : p.theme.line_width;
                for (auto& run : polyline_runs(s, L, clip)) p.line(std::move(run), color, width, dash);
                break;
            }
            case SeriesKind::HLine: {
                double y = L.y.transform.to_pixel(s.value);
                if (std::isfinite(y) && y >= L.plot.top() - 0.5 && y <= L.plot.bottom() + 0.5)
                    p.line({{L.plot.left(), y}, {L.plot.right(), y}}, color, p.theme.reference_width, dash);
                break;
            }
            case SeriesKind::BarMarks: {
                for (const Point& pt : s.points) {
                    auto [a, b] = bar_mark_segment(L, pt);
                    if (!std::isfinite(a.x) || !std::isfinite(b.x) || !std::isfinite(a.y)) continue;
                    if (a.y < L.plot.top() - 0.5 || a.y > L.plot.bottom() + 0.5) continue;
                    p.line({a, b}, color, p.theme.reference_width * 1.3, dash);
                }
                break;
            }
            case SeriesKind::VLine: {
                double x = L.x.transform.to_pixel(s.value);
                if (std::isfinite(x) && x >= L.plot.left() - 0.5 && x <= L.plot.right() + 0.5)
                    p.line({{x, L.plot.top()}, {x, L.plot.bottom()}}, color, p.theme.reference_width, dash);
                break;
            }
            default: break;
        }
    }
}

MarkerCmd marker_for(const Painter& p, size_t series, Vec2 at, double size, size_t point = SIZE_MAX) {
    Color color = p.point_color(series, point);
    MarkerCmd m;
    m.center = at;
    m.shape = p.theme.marker(p.style(series).marker);
    m.size = size;
    m.fill = color;
    bool stroked = m.shape == MarkerShape::Cross || m.shape == MarkerShape::Plus;
    m.stroke = stroked ? color : p.theme.background;
    m.stroke_width = stroked ? 1.3 : p.theme.marker_edge_width;
    return m;
}

void paint_markers(Painter& p) {
    const Layout& L = p.layout;
    // Drawn unclipped, so a point on the plot edge keeps its whole marker; points outside are skipped.
    const Rect visible = L.plot.inflated(0.5);
    for (size_t i = 0; i < p.figure.series.size(); ++i) {
        const Series& s = p.figure.series[i];
        bool marked = s.kind == SeriesKind::Scatter || (s.kind == SeriesKind::Line && s.markers && !s.faint);
        if (!marked) continue;
        double size = s.kind == SeriesKind::Scatter ? p.theme.marker_size * 1.2 : p.theme.marker_size;
        for (size_t k = 0; k < s.points.size(); ++k) {
            const Point& pt = s.points[k];
            Vec2 v{L.x.transform.to_pixel(pt.x), L.y.transform.to_pixel(pt.y)};
            if (!std::isfinite(v.x) || !std::isfinite(v.y) || !visible.contains(v)) continue;
            p.scene.commands.push_back(marker_for(p, i, v, size, k));
        }
    }
    // Annotation markers: a diamond outlined in ink, so that it reads as "a point, but not a value".
    for (const Layout::AnnotationMark& m : L.annotation_marks) {
        MarkerCmd cmd;
        cmd.center = m.at;
        cmd.shape = MarkerShape::Diamond;
        cmd.size = p.theme.marker_size * 1.4;
        cmd.fill = m.color < 0 ? p.theme.reference : p.theme.palette_color(m.color);
        cmd.stroke = p.theme.ink;
        cmd.stroke_width = p.theme.marker_edge_width * 1.5;
        p.scene.commands.push_back(cmd);
    }
}

// [SECTION] Axes, texts, legend, colour bar -------------------------------------------------

void paint_tick_labels(Painter& p, const AxisLayout& a) {
    for (const PlacedTick& t : a.ticks)
        for (const TextCmd& line : t.label) p.text(line);
    if (a.title) p.text(*a.title);
}

void paint_axes(Painter& p) {
    const Layout& L = p.layout;
    const Rect& plot = L.plot;
    const Theme& th = p.theme;
    if (p.figure.heatmap) {
        p.rect(plot, {0, 0, 0, 0}, th.ink, th.axis_width);
    } else {
        p.line({{plot.left(), plot.top()}, {plot.left(), plot.bottom()}, {plot.right(), plot.bottom()}}, th.ink,
               th.axis_width);
    }
    if (!L.x.category)
        for (const PlacedTick& t : L.x.ticks) {
            double len = t.major ? th.tick_length : th.minor_tick_length;
            p.line({{t.pixel, plot.bottom()}, {t.pixel, plot.bottom() + len}}, th.ink, th.axis_width);
        }
    if (!L.y.category)
        for (const PlacedTick& t : L.y.ticks) {
            double len = t.major ? th.tick_length : th.minor_tick_length;
            p.line({{plot.left() - len, t.pixel}, {plot.left(), t.pixel}}, th.ink, th.axis_width);
        }
    paint_tick_labels(p, L.x);
    paint_tick_labels(p, L.y);
}

void paint_legend_swatch(Painter& p, size_t series, const Rect& sw) {
    const Series& s = p.figure.series[series];
    Color color = p.series_color(series);
    Vec2 mid{sw.x + 0.5 * sw.w, sw.y + 0.5 * sw.h};
    switch (s.kind) {
        case SeriesKind::Bars: {
            double side = std::min(sw.w, sw.h * 1.6);
            Rect box{mid.x - 0.5 * side, mid.y - 0.5 * sw.h * 1.6, side, sw.h * 1.6};
            paint_bar(p, series, box);
            break;
        }
        case SeriesKind::Scatter:
            p.scene.commands.push_back(marker_for(p, series, mid, p.theme.marker_size * 1.2));
            break;
        default: {
            double width = s.kind == SeriesKind::Roofline ? p.theme.roofline_width : p.theme.line_width;
            p.line({{sw.left(), mid.y}, {sw.right(), mid.y}}, color, width, p.theme.dash(p.style(series).dash));
            if (s.kind == SeriesKind::Line && s.markers && !s.faint)
                p.scene.commands.push_back(marker_for(p, series, mid, p.theme.marker_size));
            break;
        }
    }
}

void paint_legend(Painter& p) {
    const LegendLayout& lg = p.layout.legend;
    if (!lg.visible) return;
    p.rect(lg.box, p.theme.legend_fill, p.theme.legend_border, 0.5);
    if (lg.title) p.text(*lg.title);
    for (const LegendItem& item : lg.items) {
        paint_legend_swatch(p, item.series, item.swatch);
        p.text(item.label);
    }
}

void paint_color_bar(Painter& p) {
    const ColorBarLayout& cb = p.layout.color_bar;
    if (!cb.visible) return;
    const int slices = 64;
    for (int i = 0; i < slices; ++i) {
        double y0 = cb.bar.bottom() - cb.bar.h * (i + 1) / slices;
        double h = cb.bar.h / slices + (i + 1 < slices ? 0.3 : 0.0);
        p.rect({cb.bar.x, y0, cb.bar.w, h}, p.theme.colormap((i + 0.5) / slices));
    }
    p.rect(cb.bar, {0, 0, 0, 0}, p.theme.ink, p.theme.axis_width);
    for (const PlacedTick& t : cb.axis.ticks) {
        double len = t.major ? p.theme.tick_length : p.theme.minor_tick_length;
        p.line({{cb.bar.right(), t.pixel}, {cb.bar.right() + len, t.pixel}}, p.theme.ink, p.theme.axis_width);
    }
    paint_tick_labels(p, cb.axis);
    if (cb.nan_key) {
        paint_crossed(p, cb.nan_swatch);
        p.rect(cb.nan_swatch, {0, 0, 0, 0}, p.theme.ink, p.theme.axis_width);
        p.text(cb.nan_label);
    }
}

}  // namespace

// [SECTION] build_scene ---------------------------------------------------------------------

Scene build_scene(const Figure& given, const Layout& layout, const Theme& theme) {
    const Figure& figure = layout.drawn ? *layout.drawn : given;  // bars laid out across
    Scene scene;
    scene.width = layout.width;
    scene.height = layout.height;
    scene.background = theme.background;
    scene.font_family = theme.font_family;
    if (layout.styles.size() != figure.series.size()) return scene;  // layout of another figure
    Painter p{figure, layout, theme, scene};

    paint_grid(p);
    paint_heatmap(p);
    paint_bars(p);
    paint_lines(p);
    paint_markers(p);
    paint_axes(p);
    for (const TextCmd& t : layout.title) p.text(t);
    for (const TextCmd& t : layout.caption) p.text(t);
    for (const TextCmd& t : layout.notes) p.text(t);
    paint_legend(p);
    paint_color_bar(p);
    return scene;
}

Scene render_figure(const Figure& figure, double width, double height, const MeasureText& measure, const Theme& theme) {
    return build_scene(figure, compute_layout(figure, width, height, measure, theme), theme);
}

}  // namespace kl::plot
