// What sits on the data: bar rectangles with their whiskers, the data footprint that other
// placements avoid, and the notes (reference-line labels, value labels, annotations).
// [SECTION] index: bars / data footprint / notes
#include <algorithm>
#include <cmath>

#include "plot/layout_parts.h"

namespace kl::plot {

std::pair<Vec2, Vec2> bar_mark_segment(const Layout& L, const Point& p) {
    double half = 0.45;  // of a category slot: the width of a group of bars
    if (L.y.category) {  // bars drawn across: the level is a short vertical line across the row
        double x = L.x.transform.to_pixel(p.x);
        return {{x, L.y.transform.to_pixel(p.y + half)}, {x, L.y.transform.to_pixel(p.y - half)}};
    }
    double y = L.y.transform.to_pixel(p.y);
    return {{L.x.transform.to_pixel(p.x - half), y}, {L.x.transform.to_pixel(p.x + half), y}};
}

namespace detail {

// [SECTION] Bars ----------------------------------------------------------------------------

void layout_bars(const Context& c, Layout& L) {
    L.bars.clear();
    std::vector<size_t> bar_series;
    for (size_t i = 0; i < c.figure.series.size(); ++i)
        if (c.figure.series[i].kind == SeriesKind::Bars) bar_series.push_back(i);
    if (bar_series.empty()) return;
    if (L.y.category) return layout_bars_across(c, L, bar_series);

    const Transform& tx = L.x.transform;
    const Transform& ty = L.y.transform;
    // Slot: the pixel distance between neighbouring x values (a category, or the closest pair).
    double slot = 0.0;
    if (L.x.category) {
        slot = std::fabs(tx.to_pixel(1.0) - tx.to_pixel(0.0));
    } else {
        std::vector<double> px;
        for (size_t si : bar_series)
            for (const Point& p : c.figure.series[si].points) {
                double v = tx.to_pixel(p.x);
                if (std::isfinite(v)) px.push_back(v);
            }
        std::sort(px.begin(), px.end());
        for (size_t i = 1; i < px.size(); ++i)
            if (px[i] - px[i - 1] > 0.5 && (slot == 0.0 || px[i] - px[i - 1] < slot)) slot = px[i] - px[i - 1];
        if (slot == 0.0) slot = 0.5 * L.plot.w;
    }
    double group = std::min(slot * 0.8, 0.6 * L.plot.w);
    double bar_w = group / static_cast<double>(bar_series.size());

    // Baseline: 0 on linear axes (clamped into the plot), the bottom edge on log axes.
    double base = L.plot.bottom();
    if (L.y.scale == Scale::Linear) {
        double zero = ty.to_pixel(0.0);
        base = std::clamp(std::isfinite(zero) ? zero : L.plot.bottom(), L.plot.top(), L.plot.bottom());
    }
    // Everything stays inside the plot, so renderers need no clipping for it.
    auto clamp_y = [&](double v) { return std::clamp(v, L.plot.top(), L.plot.bottom()); };

    for (size_t k = 0; k < bar_series.size(); ++k) {
        const Series& s = c.figure.series[bar_series[k]];
        for (size_t pi = 0; pi < s.points.size(); ++pi) {
            const Point& p = s.points[pi];
            double cx = tx.to_pixel(p.x);
            double top = ty.to_pixel(p.y);
            if (!std::isfinite(cx) || !std::isfinite(top)) continue;
            double left = cx - 0.5 * group + static_cast<double>(k) * bar_w;
            double right = std::min(left + bar_w, L.plot.right());
            double visible_left = std::max(left, L.plot.left());
            if (right <= visible_left) continue;  // outside a fixed x range
            top = clamp_y(top);
            BarLayout b;
            b.series = bar_series[k];
            b.point = pi;
            b.rect = {visible_left, std::min(top, base), right - visible_left, std::fabs(base - top)};
            double lo = ty.to_pixel(p.y_low), hi = ty.to_pixel(p.y_high);
            if (std::isfinite(lo) && std::isfinite(hi)) {
                b.has_whisker = true;
                b.whisker_x = std::clamp(left + 0.5 * bar_w, L.plot.left(), L.plot.right());
                b.whisker_top = clamp_y(std::min(lo, hi));
                b.whisker_bottom = clamp_y(std::max(lo, hi));
                b.cap_half_width = std::min(0.2 * bar_w, 4.0);
            }
            L.bars.push_back(b);
        }
    }
}

// [SECTION] Data footprint ------------------------------------------------------------------

const double kFootprintStep = 3.0;  // sampling distance in page units

void sample_box(std::vector<Vec2>& pts, const Rect& r) {
    for (double x = r.left(); x <= r.right(); x += kFootprintStep)
        for (double y = r.top(); y <= r.bottom(); y += kFootprintStep) pts.push_back({x, y});
    pts.push_back({r.right(), r.bottom()});
}

// Where the data is drawn, as points every few units: lines, markers, bars, references and the
// notes placed so far. Legend and annotation placement count how much of it a box would hide.
std::vector<Vec2> data_footprint(const Context& c, const Layout& L) {
    std::vector<Vec2> pts;
    auto sample_segment = [&](Vec2 a, Vec2 b) {
        if (!clip_segment(a, b, L.plot)) return;
        int n = std::min(2000, static_cast<int>(std::hypot(b.x - a.x, b.y - a.y) / kFootprintStep) + 1);
        for (int i = 0; i <= n; ++i) pts.push_back({a.x + (b.x - a.x) * i / n, a.y + (b.y - a.y) * i / n});
    };
    for (const Series& s : c.figure.series) {
        if (s.kind == SeriesKind::Bars) continue;  // sampled from L.bars below
        if (s.kind == SeriesKind::HLine) {
            double y = L.y.transform.to_pixel(s.value);
            sample_segment({L.plot.left(), y}, {L.plot.right(), y});
            continue;
        }
        if (s.kind == SeriesKind::VLine) {
            double x = L.x.transform.to_pixel(s.value);
            sample_segment({x, L.plot.top()}, {x, L.plot.bottom()});
            continue;
        }
        if (s.kind == SeriesKind::BarMarks) {
            for (const Point& p : s.points) {
                auto [a, b] = bar_mark_segment(L, p);
                if (std::isfinite(a.y)) sample_segment(a, b);
            }
            continue;
        }
        bool joined = s.kind == SeriesKind::Line || s.kind == SeriesKind::Roofline;
        bool have_previous = false;
        Vec2 previous;
        for (const Point& p : s.points) {
            Vec2 v{L.x.transform.to_pixel(p.x), L.y.transform.to_pixel(p.y)};
            bool ok = std::isfinite(v.x) && std::isfinite(v.y);
            if (ok && L.plot.contains(v)) pts.push_back(v);
            if (ok && joined && have_previous) sample_segment(previous, v);
            previous = v;
            have_previous = ok;
        }
    }
    for (const BarLayout& b : L.bars) sample_box(pts, b.rect);
    for (const TextCmd& t : L.notes) sample_box(pts, t.box);
    if (c.figure.heatmap) sample_box(pts, L.plot);
    return pts;
}

int covered(const std::vector<Vec2>& pts, const Rect& box) {
    int n = 0;
    Rect r = box.inflated(2.0);
    for (const Vec2& p : pts) n += r.contains(p) ? 1 : 0;
    return n;
}

// [SECTION] Notes ---------------------------------------------------------------------------

// Places a note beside a data point where it covers the least of the drawn data: tries eight
// positions around the point (above-right first) and leaves the plot only if none fits inside.
TextCmd place_avoiding(const Context& c, const Layout& L, const std::string& text, Vec2 at,
                       const std::vector<Vec2>& footprint) {
    const Theme& th = c.theme;
    const double size = th.annotation_size;
    const double o = 0.6 * th.marker_size + 1.0;
    std::string fitted = fit_text(text, std::max(10.0, L.plot.w - 2 * o), size, false, c.measure);
    struct Candidate {
        double dx, dy;
        HAlign h;
        VAlign v;
    };
    const Candidate candidates[] = {
        {o, -o, HAlign::Left, VAlign::Bottom},      {o, o, HAlign::Left, VAlign::Top},
        {-o, -o, HAlign::Right, VAlign::Bottom},    {-o, o, HAlign::Right, VAlign::Top},
        {1.5 * o, 0, HAlign::Left, VAlign::Middle}, {-1.5 * o, 0, HAlign::Right, VAlign::Middle},
        {0, -o, HAlign::Center, VAlign::Bottom},    {0, o, HAlign::Center, VAlign::Top}};
    TextCmd best;
    double best_score = 0;
    bool have_best = false;
    for (const Candidate& k : candidates) {
        TextCmd t = place_text(fitted, size, false, th.ink, {at.x + k.dx, at.y + k.dy}, k.h, k.v, c.measure);
        const Rect& b = t.box;
        double outside = std::max(0.0, L.plot.left() - b.left()) + std::max(0.0, b.right() - L.plot.right()) +
                         std::max(0.0, L.plot.top() - b.top()) + std::max(0.0, b.bottom() - L.plot.bottom());
        double score = covered(footprint, b) + (outside > 0.5 ? 1e6 + outside : 0.0);
        if (!have_best || score < best_score) best = t, best_score = score, have_best = true;
    }
    // Nothing fits beside the point (a note nearly as wide as the plot): slide it inside.
    double dx = std::max(0.0, L.plot.left() - best.box.left()) - std::max(0.0, best.box.right() - L.plot.right());
    double dy = std::max(0.0, L.plot.top() - best.box.top()) - std::max(0.0, best.box.bottom() - L.plot.bottom());
    best.origin.x += dx, best.box.x += dx;
    best.origin.y += dy, best.box.y += dy;
    return best;
}

bool is_dark(Color c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b < 0.5; }

const double kNoteGap = 2.5;  // between a note and what it labels

// Of the theme's two text-capable colours, the one that reads on `fill` (the light one on a dark
// fill); works for the print and the dark screen theme alike.
Color text_on(const Theme& th, Color fill) {
    Color light = is_dark(th.ink) ? th.background : th.ink, dark = is_dark(th.ink) ? th.ink : th.background;
    return is_dark(fill) ? light : dark;
}

// The rule for value labels, the same for every bar chart (docs/formats.md, "Figures"): a bar's
// value goes at its end (above a bar, after a bar drawn across), or inside the end where outside
// it would sit on a reference line or leave the plot (across: past the line when the bar is too
// short to hold it). Labels are placed bar by bar in category
// order; one that would overlap a label already placed, another bar, or leave the plot is
// dropped, so the earlier bar keeps its number. The CSV export carries every value.
bool value_label_fits(const Layout& L, const TextCmd& t, size_t own_bar) {
    if (t.box.left() < L.plot.left() - 0.5 || t.box.right() > L.plot.right() + 0.5 || t.box.top() < 0) return false;
    for (const TextCmd& n : L.notes)
        if (t.box.overlaps(n.box)) return false;
    for (size_t i = 0; i < L.bars.size(); ++i)
        if (i != own_bar && t.box.overlaps(L.bars[i].rect.inflated(-0.5))) return false;
    return true;
}

void place_bar_value_labels(const Context& c, Layout& L) {
    const Theme& th = c.theme;
    const double size = th.annotation_size;
    const double gap = kNoteGap;
    std::vector<double> reference_rows, reference_columns;  // bars drawn across have vertical references
    for (const Series& s : c.figure.series) {
        if (s.kind == SeriesKind::HLine) reference_rows.push_back(L.y.transform.to_pixel(s.value));
        if (s.kind == SeriesKind::VLine) reference_columns.push_back(L.x.transform.to_pixel(s.value));
    }
    for (size_t bi = 0; bi < L.bars.size(); ++bi) {
        const BarLayout& b = L.bars[bi];
        const Series& s = c.figure.series[b.series];
        if (!s.value_labels) continue;
        double value = b.horizontal ? s.points[b.point].x : s.points[b.point].y;
        std::string text = format_value(value, 3, c.figure.y.thousands);
        int color = point_color(s, L.styles.at(b.series), b.point);
        Color on_bar = text_on(th, color < 0 ? th.reference : th.palette_color(color));
        TextCmd t;
        if (b.horizontal) {
            t = place_across_value_label(c, L, b, text, on_bar, reference_columns);
        } else {
            bool downward = L.y.scale == Scale::Linear && value < 0;
            double cx = b.rect.x + 0.5 * b.rect.w;
            double top = b.has_whisker ? std::min(b.rect.top(), b.whisker_top) : b.rect.top();
            double bottom = b.has_whisker ? std::max(b.rect.bottom(), b.whisker_bottom) : b.rect.bottom();
            t = place_text(text, size, false, th.ink, {cx, downward ? bottom + gap : top - gap}, HAlign::Center,
                           downward ? VAlign::Top : VAlign::Bottom, c.measure);
            bool on_reference = std::any_of(reference_rows.begin(), reference_rows.end(), [&](double y) {
                return std::isfinite(y) && y >= t.box.top() - 1.0 && y <= t.box.bottom() + 1.0;
            });
            if (on_reference && !downward && b.rect.h > t.box.h + 2 * gap) {
                double inside_top = (b.has_whisker ? std::max(b.rect.top(), b.whisker_bottom) : b.rect.top()) + gap;
                if (inside_top + t.box.h < b.rect.bottom())  // under the whisker, still inside the bar
                    t = place_text(text, size, false, on_bar, {cx, inside_top}, HAlign::Center, VAlign::Top, c.measure);
            }
        }
        if (!t.text.empty() && value_label_fits(L, t, bi)) L.notes.push_back(t);
    }
}

// The rule for reference-line labels ("copy roof"): never on a bar, a value label or another
// note. A horizontal line's label is tried above the line at the right end, then at positions
// further left (every quarter of a category slot, or a sixteenth of the plot), then below the
// line, then along the top of the plot; the first free place wins, and a label with no free
// place is left out (the line stays). Bars drawn across keep a spare row on top for the labels
// of their (vertical) reference lines.
void place_reference_labels(const Context& c, Layout& L) {
    const Theme& th = c.theme;
    const double size = th.annotation_size;
    const double gap = kNoteGap;
    auto free = [&](const TextCmd& t) {
        if (t.box.left() < L.plot.left() || t.box.right() > L.plot.right() || t.box.top() < L.plot.top() ||
            t.box.bottom() > L.plot.bottom())
            return false;
        for (const TextCmd& n : L.notes)
            if (t.box.overlaps(n.box)) return false;
        for (const BarLayout& b : L.bars)
            if (t.box.overlaps(b.rect.inflated(1.0))) return false;
        return true;
    };
    const double step =
        L.x.category ? 0.25 * std::fabs(L.x.transform.to_pixel(1.0) - L.x.transform.to_pixel(0.0)) : L.plot.w / 16;
    for (const Series& s : c.figure.series) {
        if (s.name.empty()) continue;
        if (s.kind == SeriesKind::HLine) {
            double y = L.y.transform.to_pixel(s.value);
            if (!std::isfinite(y) || y < L.plot.top() - 0.5 || y > L.plot.bottom() + 0.5) continue;
            std::string text = fit_text(s.name, L.plot.w - th.pad, size, false, c.measure);
            const double rows[] = {y - gap, y + gap, L.plot.top() + gap};
            const VAlign aligns[] = {VAlign::Bottom, VAlign::Top, VAlign::Top};
            bool placed = false;
            for (int r = 0; r < 3 && !placed; ++r)
                for (double x = L.plot.right() - 0.5 * th.pad; x > L.plot.left() && !placed; x -= std::max(step, 2.0)) {
                    TextCmd t =
                        place_text(text, size, false, th.reference, {x, rows[r]}, HAlign::Right, aligns[r], c.measure);
                    if (free(t)) L.notes.push_back(t), placed = true;
                }
        } else if (s.kind == SeriesKind::VLine) {
            double x = L.x.transform.to_pixel(s.value);
            if (!std::isfinite(x) || x < L.plot.left() - 0.5 || x > L.plot.right() + 0.5) continue;
            if (L.y.category) {  // bars across: in the spare row on top, beside the line
                double row = 0.5 * (L.plot.top() + L.y.transform.to_pixel(L.y.range.max - 0.9));
                std::string text = fit_text(s.name, L.plot.w - th.pad, size, false, c.measure);
                for (bool left_of_line : {true, false}) {
                    TextCmd t = place_text(text, size, false, th.reference, {left_of_line ? x - gap : x + gap, row},
                                           left_of_line ? HAlign::Right : HAlign::Left, VAlign::Middle, c.measure);
                    if (free(t)) {
                        L.notes.push_back(t);
                        break;
                    }
                }
                continue;
            }
            std::string text = fit_text(s.name, L.plot.h - th.pad, size, false, c.measure);
            Vec2 anchor{x + gap, L.plot.top() + 0.5 * th.pad};
            TextCmd t =
                place_text(text, size, false, th.reference, anchor, HAlign::Right, VAlign::Top, c.measure, true);
            if (t.box.right() > L.plot.right())
                t = place_text(text, size, false, th.reference, {x - gap, anchor.y}, HAlign::Right, VAlign::Bottom,
                               c.measure, true);
            L.notes.push_back(t);
        }
    }
}

// Point value labels and annotations: beside their point, where they hide the least data.
void place_point_notes(const Context& c, Layout& L) {
    const Theme& th = c.theme;
    std::vector<Vec2> footprint = data_footprint(c, L);
    auto add = [&](const TextCmd& t) {
        L.notes.push_back(t);
        sample_box(footprint, t.box);
    };
    for (const Series& s : c.figure.series) {
        if (!s.value_labels || (s.kind != SeriesKind::Scatter && s.kind != SeriesKind::Line)) continue;
        for (const Point& p : s.points) {
            Vec2 at{L.x.transform.to_pixel(p.x), L.y.transform.to_pixel(p.y)};
            if (!L.plot.contains(at)) continue;
            add(place_avoiding(c, L, format_value(p.y, 3, c.figure.y.thousands), at, footprint));
        }
    }
    for (const Annotation& a : c.figure.annotations) {
        Vec2 at{L.x.transform.to_pixel(a.x), L.y.transform.to_pixel(a.y)};
        if (a.at_axis_floor && L.y.category) at.x = L.plot.left();  // bars across: the value axis is x
        if (a.at_axis_floor && !L.y.category) at.y = L.plot.bottom();
        if (!std::isfinite(at.x) || !std::isfinite(at.y)) continue;
        at.x = std::clamp(at.x, L.plot.left(), L.plot.right());
        at.y = std::clamp(at.y, L.plot.top(), L.plot.bottom());
        if (a.mark) {
            L.annotation_marks.push_back({at, a.color});
            sample_box(footprint,
                       {at.x - th.marker_size, at.y - th.marker_size, 2 * th.marker_size, 2 * th.marker_size});
        }
        if (!a.text.empty()) add(place_avoiding(c, L, a.text, at, footprint));
    }
}

void layout_notes(const Context& c, Layout& L) {
    L.notes.clear();
    place_bar_value_labels(c, L);
    place_reference_labels(c, L);
    place_point_notes(c, L);
}

}  // namespace detail
}  // namespace kl::plot
