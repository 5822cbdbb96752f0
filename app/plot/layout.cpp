// Index
// [SECTION] Text helpers
// [SECTION] Axis ticks and labels
// [SECTION] Colour bar
// [SECTION] Margins and plot area
// [SECTION] Bars
// [SECTION] Data footprint
// [SECTION] Notes
// [SECTION] Legend
// [SECTION] compute_layout
#include "plot/layout.h"

#include <algorithm>
#include <cmath>

namespace kl::plot {

// [SECTION] Text helpers --------------------------------------------------------------------

namespace {

size_t utf8_length(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
    return n;
}

TextMetrics safe_measure(const MeasureText& measure, const std::string& text, double size, bool bold) {
    TextMetrics m = measure ? measure(text, size, bold) : TextMetrics{};
    auto clean = [](double v) { return std::isfinite(v) && v > 0 ? v : 0.0; };
    return {clean(m.width), clean(m.ascent), clean(m.descent)};
}

double line_height(const MeasureText& measure, double size, bool bold = false) {
    TextMetrics m = safe_measure(measure, "Ag", size, bold);
    return m.ascent + m.descent;
}

}  // namespace

MeasureText approximate_measure() {
    return [](const std::string& text, double size, bool) {
        return TextMetrics{0.6 * size * static_cast<double>(utf8_length(text)), 0.93 * size, 0.24 * size};
    };
}

TextCmd place_text(const std::string& text, double size, bool bold, Color color, Vec2 anchor, HAlign h, VAlign v,
                   const MeasureText& measure, bool vertical) {
    TextMetrics m = safe_measure(measure, text, size, bold);
    double along = h == HAlign::Left ? 0.0 : (h == HAlign::Center ? 0.5 * m.width : m.width);
    // Distance from the anchor to the baseline, across the reading direction.
    double across = 0.0;
    switch (v) {
        case VAlign::Top: across = m.ascent; break;
        case VAlign::Middle: across = 0.5 * (m.ascent - m.descent); break;
        case VAlign::Baseline: across = 0.0; break;
        case VAlign::Bottom: across = -m.descent; break;
    }
    TextCmd t;
    t.text = text;
    t.size = size;
    t.bold = bold;
    t.color = color;
    t.vertical = vertical;
    if (!vertical) {
        t.origin = {anchor.x - along, anchor.y + across};
        t.box = {t.origin.x, t.origin.y - m.ascent, m.width, m.ascent + m.descent};
    } else {
        // Reading upwards: "along" runs towards -y, glyph tops point towards -x.
        t.origin = {anchor.x + across, anchor.y + along};
        t.box = {t.origin.x - m.ascent, t.origin.y - m.width, m.ascent + m.descent, m.width};
    }
    return t;
}

std::string fit_text(const std::string& text, double max_width, double size, bool bold, const MeasureText& measure) {
    if (safe_measure(measure, text, size, bold).width <= max_width) return text;
    // Character starts (UTF-8 lead bytes): a cut never splits a character.
    std::vector<size_t> cuts;
    for (size_t i = 1; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) cuts.push_back(i);
    auto candidate = [&](size_t k) {  // the first cuts[k] bytes, trailing spaces dropped, plus "…"
        std::string prefix = text.substr(0, cuts[k]);
        while (!prefix.empty() && prefix.back() == ' ') prefix.pop_back();
        return prefix + "…";
    };
    // Binary search for the longest prefix that fits: widths grow with the prefix, and a long
    // label (a device name of 100,000 characters) costs O(n log n), not one measure per character.
    size_t lo = 0, hi = cuts.size();  // candidates [0, lo) known to fit, [hi, ...) known not to
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (safe_measure(measure, candidate(mid), size, bold).width <= max_width)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0) {
        std::string best = candidate(lo - 1);
        if (best != "…") return best;
    }
    return safe_measure(measure, "…", size, bold).width <= max_width ? "…" : "";
}

std::vector<std::string> wrap_text(const std::string& text, double max_width, double size, bool bold,
                                   const MeasureText& measure) {
    std::vector<std::string> words;
    std::string word;
    for (char c : text) {
        if (c == ' ' || c == '\n') {
            if (!word.empty()) words.push_back(word);
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) words.push_back(word);
    std::vector<std::string> lines;
    std::string line;
    for (const std::string& w : words) {
        std::string candidate = line.empty() ? w : line + " " + w;
        if (line.empty() || safe_measure(measure, candidate, size, bold).width <= max_width) {
            line = candidate;
        } else {
            lines.push_back(fit_text(line, max_width, size, bold, measure));
            line = w;
        }
    }
    if (!line.empty()) lines.push_back(fit_text(line, max_width, size, bold, measure));
    return lines;
}

// [SECTION] Axis ticks and labels -----------------------------------------------------------

namespace {

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

double label_gap(const Theme& theme) { return 0.3 * theme.tick_size; }

// The box around all lines of one tick label.
Rect label_box(const PlacedTick& t) {
    Rect box = t.label.front().box;
    for (const TextCmd& line : t.label) {
        double l = std::min(box.left(), line.box.left()), r = std::max(box.right(), line.box.right());
        double top = std::min(box.top(), line.box.top()), bottom = std::max(box.bottom(), line.box.bottom());
        box = {l, top, r - l, bottom - top};
    }
    return box;
}

// True when two labels are closer than min_gap along the axis. (Sorted by their leading edge,
// any overlapping pair implies an overlapping neighbour pair.)
bool labels_overlap(const std::vector<PlacedTick>& ticks, bool horizontal_axis, double min_gap) {
    std::vector<Rect> boxes;
    for (const PlacedTick& t : ticks)
        if (!t.label.empty()) boxes.push_back(label_box(t));
    auto lead = [&](const Rect& r) { return horizontal_axis ? r.left() : r.top(); };
    auto tail = [&](const Rect& r) { return horizontal_axis ? r.right() : r.bottom(); };
    std::sort(boxes.begin(), boxes.end(), [&](const Rect& a, const Rect& b) { return lead(a) < lead(b); });
    for (size_t i = 1; i < boxes.size(); ++i)
        if (lead(boxes[i]) < tail(boxes[i - 1]) + min_gap) return true;
    return false;
}

// Keeps every k-th label (k = 2, 3, 4...) until the labels no longer overlap.
void thin_labels(std::vector<PlacedTick>& ticks, bool horizontal_axis, double min_gap) {
    if (!labels_overlap(ticks, horizontal_axis, min_gap)) return;
    const std::vector<PlacedTick> original = ticks;
    for (int keep_every = 2; keep_every <= 64 && labels_overlap(ticks, horizontal_axis, min_gap); ++keep_every) {
        ticks = original;
        int labelled = 0;
        for (PlacedTick& t : ticks) {
            if (t.label.empty()) continue;
            if (labelled++ % keep_every != 0) t.label.clear();
        }
    }
}

bool minor_ticks_fit(Scale scale, Range range, double length, const Theme& theme) {
    if (scale != Scale::Log10) return false;
    double decades = std::log10(range.max) - std::log10(range.min);
    return decades > 0 && length / decades >= 2.5 * theme.tick_size;
}

TickRequest tick_request(const Axis& axis, int max_count, bool minor) {
    TickRequest r;
    r.max_count = max_count;
    r.min_count = std::min(4, max_count);
    r.style = axis.numbers;
    r.thousands = axis.thousands;
    r.minor = minor;
    return r;
}

// The axis's own ticks inside the range, labelled where the caller left the label empty.
std::vector<Tick> custom_ticks(const Axis& axis, Range range) {
    std::vector<Tick> out;
    for (Tick t : axis.ticks) {
        if (!std::isfinite(t.value) || t.value < range.min || t.value > range.max) continue;
        if (axis.scale == Scale::Log10 && !(t.value > 0)) continue;
        if (t.label.empty() && t.major) t.label = format_value(t.value, 4, axis.thousands);
        out.push_back(t);
    }
    std::sort(out.begin(), out.end(), [](const Tick& a, const Tick& b) { return a.value < b.value; });
    return out;
}

// Labels for a horizontal axis: centred under each tick.
std::vector<PlacedTick> place_x_ticks(const Context& c, const std::vector<Tick>& ticks, const Transform& t,
                                      double label_top) {
    std::vector<PlacedTick> out;
    for (const Tick& tick : ticks) {
        PlacedTick p{tick.value, t.to_pixel(tick.value), tick.major, {}};
        if (!std::isfinite(p.pixel)) continue;
        if (!tick.label.empty())
            p.label.push_back(place_text(tick.label, c.theme.tick_size, false, c.theme.ink, {p.pixel, label_top},
                                         HAlign::Center, VAlign::Top, c.measure));
        out.push_back(std::move(p));
    }
    return out;
}

// Labels for a vertical axis: right-aligned left of each tick (or left-aligned right of it).
std::vector<PlacedTick> place_y_ticks(const Context& c, const std::vector<Tick>& ticks, const Transform& t,
                                      double label_x, HAlign align) {
    std::vector<PlacedTick> out;
    for (const Tick& tick : ticks) {
        PlacedTick p{tick.value, t.to_pixel(tick.value), tick.major, {}};
        if (!std::isfinite(p.pixel)) continue;
        if (!tick.label.empty())
            p.label.push_back(place_text(tick.label, c.theme.tick_size, false, c.theme.ink, {label_x, p.pixel}, align,
                                         VAlign::Middle, c.measure));
        out.push_back(std::move(p));
    }
    return out;
}

// A numeric axis `length` units long: as many 1-2-5 ticks as fit without overlapping labels
// (or the axis's own ticks, thinned if they crowd).
template <typename PlaceFn>
std::vector<PlacedTick> numeric_ticks(const Context& c, const Axis& axis, Scale scale, Range range, double length,
                                      double spacing_per_tick, bool horizontal, PlaceFn place) {
    double min_gap = horizontal ? 0.6 * c.theme.tick_size : 0.15 * c.theme.tick_size;
    std::vector<PlacedTick> placed;
    if (!axis.ticks.empty()) {
        placed = place(custom_ticks(axis, range));
    } else {
        int max_count = std::clamp(static_cast<int>(length / spacing_per_tick) + 1, 2, 8);
        bool minor = minor_ticks_fit(scale, range, length, c.theme);
        for (;; --max_count) {
            placed = place(make_ticks(scale, range, tick_request(axis, max_count, minor)));
            if (max_count <= 2 || !labels_overlap(placed, horizontal, min_gap)) break;
        }
    }
    thin_labels(placed, horizontal, min_gap);
    return placed;
}

AxisLayout layout_x_axis(const Context& c, Range range, const Rect& plot) {
    const Axis& axis = c.figure.x;
    AxisLayout a;
    a.category = axis.is_category();
    a.scale = a.category ? Scale::Linear : axis.scale;
    a.range = range;
    a.transform = Transform(a.scale, range, plot.left(), plot.right());
    const double label_top = plot.bottom() + c.theme.tick_length + label_gap(c.theme);
    const double size = c.theme.tick_size;

    if (!a.category) {
        a.ticks = numeric_ticks(c, axis, a.scale, range, plot.w, 5.5 * size, true, [&](const std::vector<Tick>& ticks) {
            return place_x_ticks(c, ticks, a.transform, label_top);
        });
        return a;
    }

    // Category names: one line if all fit their slot, else wrapped (up to 4 lines), else vertical.
    const auto& names = axis.categories;
    double slot = std::fabs(a.transform.to_pixel(1.0) - a.transform.to_pixel(0.0));
    double available = std::max(1.0, slot - 0.6 * size);
    double line_h = line_height(c.measure, size);
    bool single = true, wrapped = true;
    std::vector<std::vector<std::string>> lines(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
        if (safe_measure(c.measure, names[i], size, false).width > available) single = false;
        lines[i] = wrap_text(names[i], available, size, false, c.measure);
        std::string joined;
        for (const std::string& l : lines[i]) joined += (joined.empty() ? "" : " ") + l;
        if (lines[i].size() > 4 || joined != names[i]) wrapped = false;  // too many lines, or a word was cut
    }
    a.vertical_labels = !single && !wrapped;
    double max_vertical = std::max(10.0, 0.45 * c.height);
    for (size_t i = 0; i < names.size(); ++i) {
        PlacedTick p{static_cast<double>(i), a.transform.to_pixel(static_cast<double>(i)), true, {}};
        if (a.vertical_labels) {
            std::string fitted = fit_text(names[i], max_vertical, size, false, c.measure);
            p.label.push_back(place_text(fitted, size, false, c.theme.ink, {p.pixel, label_top}, HAlign::Right,
                                         VAlign::Middle, c.measure, true));
        } else {
            std::vector<std::string> rows = single ? std::vector<std::string>{names[i]} : lines[i];
            for (size_t r = 0; r < rows.size(); ++r)
                p.label.push_back(place_text(rows[r], size, false, c.theme.ink,
                                             {p.pixel, label_top + static_cast<double>(r) * line_h}, HAlign::Center,
                                             VAlign::Top, c.measure));
        }
        a.ticks.push_back(std::move(p));
    }
    thin_labels(a.ticks, true, 0.2 * size);  // only vertical names in very narrow slots get here
    return a;
}

AxisLayout layout_y_axis(const Context& c, Range range, const Rect& plot, bool top_down) {
    const Axis& axis = c.figure.y;
    AxisLayout a;
    a.category = axis.is_category();
    a.scale = a.category ? Scale::Linear : axis.scale;
    a.range = range;
    a.transform = top_down ? Transform(a.scale, range, plot.top(), plot.bottom())
                           : Transform(a.scale, range, plot.bottom(), plot.top());
    const double label_x = plot.left() - c.theme.tick_length - label_gap(c.theme);
    const double size = c.theme.tick_size;
    if (!a.category) {
        a.ticks =
            numeric_ticks(c, axis, a.scale, range, plot.h, 2.0 * size, false, [&](const std::vector<Tick>& ticks) {
                return place_y_ticks(c, ticks, a.transform, label_x, HAlign::Right);
            });
        return a;
    }
    std::vector<Tick> ticks;
    for (size_t i = 0; i < axis.categories.size(); ++i)
        ticks.push_back(
            {static_cast<double>(i), fit_text(axis.categories[i], 0.3 * c.width, size, false, c.measure), true});
    a.ticks = place_y_ticks(c, ticks, a.transform, label_x, HAlign::Right);
    thin_labels(a.ticks, false, 0.15 * size);
    return a;
}

// The union of all tick label boxes, or an empty rect at `fallback` when there are none.
Rect label_bounds(const AxisLayout& a, Vec2 fallback) {
    bool any = false;
    double l = fallback.x, r = fallback.x, t = fallback.y, b = fallback.y;
    for (const PlacedTick& tick : a.ticks)
        for (const TextCmd& line : tick.label) {
            if (!any) l = line.box.left(), r = line.box.right(), t = line.box.top(), b = line.box.bottom();
            l = std::min(l, line.box.left()), r = std::max(r, line.box.right());
            t = std::min(t, line.box.top()), b = std::max(b, line.box.bottom());
            any = true;
        }
    return {l, t, r - l, b - t};
}

// [SECTION] Colour bar ----------------------------------------------------------------------

ColorBarLayout layout_color_bar(const Context& c, const Rect& plot) {
    ColorBarLayout cb;
    if (!c.figure.heatmap) return cb;
    const Heatmap& h = *c.figure.heatmap;
    const Theme& th = c.theme;
    cb.visible = true;
    double bar_width = 1.1 * th.label_size;
    cb.bar = {plot.right() + 1.5 * th.pad, plot.top(), bar_width, plot.h};
    const double label_x = cb.bar.right() + th.tick_length + label_gap(th);

    double key = bar_width;
    if (c.heatmap_has_nan && plot.h > 4 * key) {
        cb.nan_key = true;
        cb.nan_swatch = {cb.bar.x, plot.bottom() - key, key, key};
        cb.nan_label = place_text("NaN", th.tick_size, false, th.ink, {label_x, plot.bottom() - 0.5 * key},
                                  HAlign::Left, VAlign::Middle, c.measure);
        cb.bar.h -= key + 1.5 * key;  // the key, and a gap that keeps its label clear of the lowest tick label
    }

    Axis value_axis;
    value_axis.scale = h.value_scale;
    AxisLayout& a = cb.axis;
    a.scale = h.value_scale;
    a.range = c.heatmap_values;
    a.transform = Transform(a.scale, a.range, cb.bar.bottom(), cb.bar.top());
    a.ticks = numeric_ticks(
        c, value_axis, a.scale, a.range, cb.bar.h, 2.0 * th.tick_size, false,
        [&](const std::vector<Tick>& ticks) { return place_y_ticks(c, ticks, a.transform, label_x, HAlign::Left); });
    std::string title = h.value_title();
    if (!title.empty()) {
        Rect labels = label_bounds(a, {label_x, cb.bar.top()});
        double right = std::max(labels.right(), cb.bar.right());
        if (cb.nan_key) right = std::max(right, cb.nan_label.box.right());
        double room = std::max(10.0, c.room_bottom - c.room_top);
        title = fit_text(title, room, th.label_size, false, c.measure);
        double w = safe_measure(c.measure, title, th.label_size, false).width;
        double cy = std::clamp(cb.bar.y + 0.5 * cb.bar.h, c.room_top + 0.5 * w,
                               std::max(c.room_top + 0.5 * w, c.room_bottom - 0.5 * w));
        a.title = place_text(title, th.label_size, false, th.ink, {right + 0.6 * th.pad, cy}, HAlign::Center,
                             VAlign::Top, c.measure, true);
    }
    return cb;
}

// [SECTION] Margins and plot area -----------------------------------------------------------

struct Margins {
    double left = 0, right = 0, top = 0, bottom = 0;
};

// Raises an automatic y maximum so that labels above the highest items stay inside the plot:
// reference-line labels above their line, value labels above their bar or point.
Range make_headroom(const Context& c, Range y, double plot_height) {
    const Axis& axis = c.figure.y;
    if (axis.max || axis.is_category() || c.figure.heatmap) return y;
    const bool log = axis.scale == Scale::Log10;
    auto u = [&](double v) { return log ? std::log10(v) : v; };
    const double label = line_height(c.measure, c.theme.annotation_size);
    std::vector<std::pair<double, double>> needs;  // (data value, units of room needed above it)
    for (const Series& s : c.figure.series) {
        if (s.kind == SeriesKind::HLine && !s.name.empty()) needs.push_back({s.value, label + 6.0});
        if (!s.value_labels) continue;
        double marker = s.kind == SeriesKind::Bars ? 0.0 : c.theme.marker_size;
        for (const Point& p : s.points) {
            double top = std::isfinite(p.y_high) ? std::max(p.y, p.y_high) : p.y;
            needs.push_back({top, label + 3.0 + marker});
        }
    }
    const double lo = u(y.min), old_hi = u(y.max);
    double hi = old_hi;
    for (const auto& [value, room] : needs) {
        if (!std::isfinite(value) || (log && !(value > 0)) || !(plot_height > 2 * room)) continue;
        double v = u(value);
        if (v > lo && v <= old_hi) hi = std::max(hi, lo + (v - lo) * plot_height / (plot_height - room));
    }
    if (hi > old_hi) y.max = log ? std::pow(10.0, hi) : hi;
    return y;
}

Rect plot_rect(const Context& c, const Margins& m) {
    Rect plot{m.left, m.top, std::max(1.0, c.width - m.left - m.right), std::max(1.0, c.height - m.top - m.bottom)};
    const auto& h = c.figure.heatmap;
    if (h && h->equal_aspect && h->rows > 0 && h->cols > 0) {
        double aspect = static_cast<double>(h->cols) / h->rows;
        if (plot.w > plot.h * aspect) {
            double w = std::max(1.0, plot.h * aspect);
            plot.x += 0.5 * (plot.w - w);
            plot.w = w;
        } else {
            double hgt = std::max(1.0, plot.w / aspect);
            plot.y += 0.5 * (plot.h - hgt);
            plot.h = hgt;
        }
    }
    return plot;
}

struct PassResult {
    Rect plot;
    AxisLayout x, y;
    ColorBarLayout color_bar;
    Margins needed;
};

// One layout pass: ticks for the plot area the margins leave, and the margins those ticks need.
PassResult layout_pass(const Context& c, const Margins& m, double top_block, double bottom_block,
                       double reserve_right) {
    const Theme& th = c.theme;
    PassResult r;
    r.plot = plot_rect(c, m);
    Range y_range = make_headroom(c, c.y_range, r.plot.h);
    r.x = layout_x_axis(c, c.x_range, r.plot);
    r.y = layout_y_axis(c, y_range, r.plot, c.figure.heatmap.has_value());
    r.color_bar = layout_color_bar(c, r.plot);

    const Rect& p = r.plot;
    Rect xl = label_bounds(r.x, {p.x, p.bottom() + th.tick_length});
    Rect yl = label_bounds(r.y, {p.x - th.tick_length, p.y});
    double x_title_h = c.figure.x.title().empty() ? 0.0 : line_height(c.measure, th.label_size) + 0.5 * th.pad;
    double y_title_w = c.figure.y.title().empty() ? 0.0 : line_height(c.measure, th.label_size) + 0.5 * th.pad;

    // Needs are distances from the plot edges, so they hold wherever the plot moves.
    double left = th.pad + y_title_w + (p.left() - yl.left());
    left = std::max(left, th.pad + (p.left() - xl.left()));
    double right = th.pad + reserve_right;
    if (r.color_bar.visible) {
        Rect cbl = label_bounds(r.color_bar.axis, {r.color_bar.bar.right(), p.y});
        double extent = std::max(cbl.right(), r.color_bar.bar.right());
        if (r.color_bar.nan_key) extent = std::max(extent, r.color_bar.nan_label.box.right());
        if (r.color_bar.axis.title) extent = std::max(extent, r.color_bar.axis.title->box.right());
        right += extent - p.right();
    }
    right = std::max(right, th.pad + (xl.right() - p.right()));
    double top = top_block + std::max(0.0, p.top() - yl.top());  // the top tick label may rise above the plot
    double bottom = bottom_block + x_title_h + (xl.bottom() - p.bottom()) + 0.3 * th.pad;
    // An equal-aspect heatmap sits centred in the space the margins leave: what it gained by
    // centring counts towards what its labels need.
    if (c.figure.heatmap && c.figure.heatmap->equal_aspect) {
        Rect full{m.left, m.top, c.width - m.left - m.right, c.height - m.top - m.bottom};
        left = std::max(th.pad, left - (p.left() - full.left()));
        right = std::max(th.pad, right - (full.right() - p.right()));
        top = std::max(top_block, top - (p.top() - full.top()));
        bottom = std::max(bottom_block, bottom - (full.bottom() - p.bottom()));
    }
    r.needed = {left, right, top, bottom};
    return r;
}

// [SECTION] Bars ----------------------------------------------------------------------------

void layout_bars(const Context& c, Layout& L) {
    L.bars.clear();
    std::vector<size_t> bar_series;
    for (size_t i = 0; i < c.figure.series.size(); ++i)
        if (c.figure.series[i].kind == SeriesKind::Bars) bar_series.push_back(i);
    if (bar_series.empty()) return;

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

}  // namespace

std::pair<Vec2, Vec2> bar_mark_segment(const Layout& L, const Point& p) {
    double y = L.y.transform.to_pixel(p.y);
    double half = 0.45;  // of a category slot: the width of a group of bars
    return {{L.x.transform.to_pixel(p.x - half), y}, {L.x.transform.to_pixel(p.x + half), y}};
}

namespace {

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

void layout_notes(const Context& c, Layout& L) {
    L.notes.clear();
    const Theme& th = c.theme;
    const double size = th.annotation_size;
    const double gap = 2.5;

    // Reference labels: at the right end above a horizontal line, at the top beside a vertical one.
    struct ReferenceLabel {
        size_t note;
        std::string text;
        double y;
    };
    std::vector<ReferenceLabel> reference_labels;  // horizontal ones, moved below if a bar label collides
    for (const Series& s : c.figure.series) {
        if (s.name.empty()) continue;
        if (s.kind == SeriesKind::HLine) {
            double y = L.y.transform.to_pixel(s.value);
            if (!std::isfinite(y) || y < L.plot.top() - 0.5 || y > L.plot.bottom() + 0.5) continue;
            std::string text = fit_text(s.name, L.plot.w - th.pad, size, false, c.measure);
            Vec2 anchor{L.plot.right() - 0.5 * th.pad, y - gap};
            TextCmd t = place_text(text, size, false, th.reference, anchor, HAlign::Right, VAlign::Bottom, c.measure);
            if (t.box.top() < L.plot.top())  // no room above the line (a fixed y maximum): write under it
                t = place_text(text, size, false, th.reference, {anchor.x, y + gap}, HAlign::Right, VAlign::Top,
                               c.measure);
            reference_labels.push_back({L.notes.size(), text, y});
            L.notes.push_back(t);
        } else if (s.kind == SeriesKind::VLine) {
            double x = L.x.transform.to_pixel(s.value);
            if (!std::isfinite(x) || x < L.plot.left() - 0.5 || x > L.plot.right() + 0.5) continue;
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

    // Value labels above bars (above the whisker when there is one). A label that would sit on a
    // reference line goes inside the top of its bar instead (under the whisker), in a colour that
    // reads on the bar.
    std::vector<double> reference_rows;
    for (const Series& s : c.figure.series)
        if (s.kind == SeriesKind::HLine) reference_rows.push_back(L.y.transform.to_pixel(s.value));
    for (const BarLayout& b : L.bars) {
        const Series& s = c.figure.series[b.series];
        if (!s.value_labels) continue;
        double value = s.points[b.point].y;
        std::string text = format_value(value, 3, c.figure.y.thousands);
        bool downward = L.y.scale == Scale::Linear && value < 0;
        double cx = b.rect.x + 0.5 * b.rect.w;
        double top = b.has_whisker ? std::min(b.rect.top(), b.whisker_top) : b.rect.top();
        double bottom = b.has_whisker ? std::max(b.rect.bottom(), b.whisker_bottom) : b.rect.bottom();
        TextCmd t = place_text(text, size, false, th.ink, {cx, downward ? bottom + gap : top - gap}, HAlign::Center,
                               downward ? VAlign::Top : VAlign::Bottom, c.measure);
        bool on_reference = std::any_of(reference_rows.begin(), reference_rows.end(), [&](double y) {
            return std::isfinite(y) && y >= t.box.top() - 1.0 && y <= t.box.bottom() + 1.0;
        });
        if (on_reference && !downward && b.rect.h > t.box.h + 2 * gap) {
            int color = point_color(s, L.styles.at(b.series), b.point);
            Color fill = color < 0 ? th.reference : th.palette_color(color);
            double inside_top = (b.has_whisker ? std::max(b.rect.top(), b.whisker_bottom) : b.rect.top()) + gap;
            if (inside_top + t.box.h < b.rect.bottom())  // under the whisker, still inside the bar
            {
                // Of the theme's two text-capable colours, the one that contrasts with the bar (the
                // light one on a dark fill); works for the print and the dark screen theme alike.
                Color light = is_dark(th.ink) ? th.background : th.ink, dark = is_dark(th.ink) ? th.ink : th.background;
                t = place_text(text, size, false, is_dark(fill) ? light : dark, {cx, inside_top}, HAlign::Center,
                               VAlign::Top, c.measure);
            }
        }
        L.notes.push_back(t);
    }
    // A bar's value label just above a reference line can sit where the line's own label is: try
    // the line's label under the line, then at the left end above and below it.
    for (const ReferenceLabel& r : reference_labels) {
        auto collides = [&](const TextCmd& t) {
            for (size_t i = 0; i < L.notes.size(); ++i)
                if (i != r.note && t.box.overlaps(L.notes[i].box)) return true;
            return false;
        };
        if (!collides(L.notes[r.note])) continue;
        const double right = L.plot.right() - 0.5 * th.pad, left = L.plot.left() + 0.5 * th.pad;
        const TextCmd candidates[] = {
            place_text(r.text, size, false, th.reference, {right, r.y + gap}, HAlign::Right, VAlign::Top, c.measure),
            place_text(r.text, size, false, th.reference, {left, r.y - gap}, HAlign::Left, VAlign::Bottom, c.measure),
            place_text(r.text, size, false, th.reference, {left, r.y + gap}, HAlign::Left, VAlign::Top, c.measure)};
        auto on_bar = [&](const TextCmd& t) {
            return std::any_of(L.bars.begin(), L.bars.end(),
                               [&](const BarLayout& b) { return t.box.overlaps(b.rect); });
        };
        // First a place clear of text and bars; else one clear of text (over a bar beats over a number).
        bool placed = false;
        for (bool avoid_bars : {true, false}) {
            for (const TextCmd& t : candidates) {
                if (placed || t.box.top() < L.plot.top() || t.box.bottom() > L.plot.bottom() || collides(t) ||
                    (avoid_bars && on_bar(t)))
                    continue;
                L.notes[r.note] = t;
                placed = true;
            }
        }
    }

    // Point value labels and annotations: beside their point, where they hide the least data.
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
        Vec2 at{L.x.transform.to_pixel(a.x), a.at_axis_floor ? L.plot.bottom() : L.y.transform.to_pixel(a.y)};
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

// [SECTION] Legend --------------------------------------------------------------------------

bool shows_in_legend(const Series& s) {
    return s.in_legend && !s.name.empty() && s.kind != SeriesKind::HLine && s.kind != SeriesKind::VLine;
}

// Builds the legend box with its corner at (0, 0); move_legend() puts it in place. One entry
// per row, or (`flow`) entries side by side in rows no wider than max_width.
LegendLayout legend_at_origin(const Context& c, bool flow = false, double max_width = 0) {
    LegendLayout lg;
    const Theme& th = c.theme;
    const double size = th.legend_size;
    const double inner = 0.6 * th.pad;
    const double swatch_w = 2.6 * size;
    const double row_h = std::max(line_height(c.measure, size), th.marker_size) * 1.25;
    const double max_label = std::max(20.0, 0.4 * c.width);
    std::vector<size_t> entries;
    for (size_t i = 0; i < c.figure.series.size(); ++i)
        if (shows_in_legend(c.figure.series[i])) entries.push_back(i);
    if (entries.empty() || c.figure.legend.placement == LegendPlacement::Hidden) return lg;

    lg.visible = true;
    double y = inner;
    double widest = 0.0;
    if (!c.figure.legend.title.empty()) {
        std::string t = fit_text(c.figure.legend.title, max_label + swatch_w, size, true, c.measure);
        lg.title = place_text(t, size, true, th.ink, {inner, y + 0.5 * row_h}, HAlign::Left, VAlign::Middle, c.measure);
        widest = lg.title->box.w;
        y += row_h;
    }
    double x = inner;
    const double entry_gap = 1.2 * th.pad;
    const double flow_width = std::max(20.0, max_width - 2 * inner);
    for (size_t i : entries) {
        std::string name = fit_text(c.figure.series[i].name, flow ? flow_width - swatch_w - 0.5 * th.pad : max_label,
                                    size, false, c.measure);
        lg.truncated |= name != c.figure.series[i].name;
        double entry_w = swatch_w + 0.5 * th.pad + safe_measure(c.measure, name, size, false).width;
        if (flow && x > inner && x + entry_w > inner + flow_width) {  // start a new row
            x = inner;
            y += row_h;
        }
        LegendItem item;
        item.series = i;
        item.swatch = {x, y + 0.5 * row_h - 0.5 * th.marker_size, swatch_w, th.marker_size};
        item.label = place_text(name, size, false, th.ink, {x + swatch_w + 0.5 * th.pad, y + 0.5 * row_h}, HAlign::Left,
                                VAlign::Middle, c.measure);
        widest = std::max(widest, item.label.box.right() - inner);
        lg.items.push_back(item);
        if (flow)
            x += entry_w + entry_gap;
        else
            y += row_h;
    }
    if (flow) y += row_h;
    lg.box = {0, 0, widest + 2 * inner, y + inner};
    return lg;
}

void move_legend(LegendLayout& lg, Vec2 to) {
    auto shift = [&](Rect& r) { r.x += to.x, r.y += to.y; };
    auto shift_text = [&](TextCmd& t) {
        t.origin.x += to.x, t.origin.y += to.y;
        shift(t.box);
    };
    shift(lg.box);
    if (lg.title) shift_text(*lg.title);
    for (LegendItem& item : lg.items) {
        shift(item.swatch);
        shift_text(item.label);
    }
}

Vec2 corner_position(const Rect& plot, const Rect& box, LegendPlacement corner, double inset) {
    bool left = corner == LegendPlacement::TopLeft || corner == LegendPlacement::BottomLeft;
    bool top = corner == LegendPlacement::TopLeft || corner == LegendPlacement::TopRight;
    return {left ? plot.left() + inset : plot.right() - inset - box.w,
            top ? plot.top() + inset : plot.bottom() - inset - box.h};
}

// [SECTION] compute_layout ------------------------------------------------------------------

void run_passes(const Context& c, Layout& L, double top_block, double bottom_block, double reserve_right) {
    const Theme& th = c.theme;
    // A first guess; each pass measures what the ticks really need, and a few passes settle.
    Margins m{th.pad + 5 * th.tick_size, th.pad + reserve_right + 2 * th.tick_size, top_block,
              bottom_block + 3 * th.tick_size};
    PassResult r;
    for (int pass = 0; pass < 6; ++pass) {
        r = layout_pass(c, m, top_block, bottom_block, reserve_right);
        const Margins& n = r.needed;
        bool settled = std::fabs(n.left - m.left) < 0.25 && std::fabs(n.right - m.right) < 0.25 &&
                       std::fabs(n.top - m.top) < 0.25 && std::fabs(n.bottom - m.bottom) < 0.25;
        if (settled || pass == 5) break;
        // After the first measured pass margins only grow, so tick choices cannot oscillate.
        m = pass == 0 ? n
                      : Margins{std::max(m.left, n.left), std::max(m.right, n.right), std::max(m.top, n.top),
                                std::max(m.bottom, n.bottom)};
    }
    // Margins only grew, so a bottom margin kept for vertical category names of an earlier, narrower
    // pass can outlive them (the names wrapped once the plot widened): give the unused height back.
    // A taller plot leaves the slot widths, and so the names, as they are.
    if (r.needed.bottom < m.bottom - 0.25) {
        m.bottom = r.needed.bottom;
        r = layout_pass(c, m, top_block, bottom_block, reserve_right);
    }
    L.plot = r.plot;
    L.x = std::move(r.x);
    L.y = std::move(r.y);
    L.color_bar = std::move(r.color_bar);

    // Axis titles hang off the final label extents.
    const Rect& p = L.plot;
    Rect xl = label_bounds(L.x, {p.x, p.bottom() + th.tick_length});
    Rect yl = label_bounds(L.y, {p.x - th.tick_length, p.y});
    if (!c.figure.x.title().empty()) {
        std::string t =
            fit_text(c.figure.x.title(), std::max(10.0, c.width - 2 * th.pad), th.label_size, false, c.measure);
        double w = safe_measure(c.measure, t, th.label_size, false).width;
        double cx = std::clamp(p.x + 0.5 * p.w, th.pad + 0.5 * w, c.width - th.pad - 0.5 * w);
        L.x.title = place_text(t, th.label_size, false, th.ink, {cx, xl.bottom() + 0.5 * th.pad}, HAlign::Center,
                               VAlign::Top, c.measure);
    }
    if (!c.figure.y.title().empty()) {
        double x = std::min(yl.left(), p.left() - th.tick_length) - 0.5 * th.pad;
        // It may reach down beside the x tick labels unless one of them reaches under it; never
        // down to the x title.
        double bottom = xl.left() >= x ? xl.bottom() : p.bottom();
        double room = std::max(10.0, bottom - c.room_top);
        std::string t = fit_text(c.figure.y.title(), room, th.label_size, false, c.measure);
        double w = safe_measure(c.measure, t, th.label_size, false).width;
        double cy = std::clamp(p.y + 0.5 * p.h, c.room_top + 0.5 * w, std::max(c.room_top + 0.5 * w, bottom - 0.5 * w));
        L.y.title =
            place_text(t, th.label_size, false, th.ink, {x, cy}, HAlign::Center, VAlign::Bottom, c.measure, true);
    }
}

void place_data(Context& c, Layout& L, double top_block, double bottom_block, double reserve_right) {
    c.room_top = top_block;
    c.room_bottom = c.height - bottom_block;
    run_passes(c, L, top_block, bottom_block, reserve_right);
    layout_bars(c, L);
    layout_notes(c, L);
}

// The whole layout at one level of detail: 0 everything, 1 without caption, 2 without caption
// and title.
Layout layout_at(Context& c, int level) {
    const Figure& figure = c.figure;
    const Theme& theme = c.theme;
    const MeasureText& measure = c.measure;
    Layout L;
    L.width = c.width;
    L.height = c.height;
    L.styles = resolve_styles(figure);
    L.caption_omitted = level >= 1 && !figure.caption.empty();
    L.title_omitted = level >= 2 && !figure.title.empty();
    const double pad = theme.pad;
    const double text_width = std::max(10.0, L.width - 2 * pad);

    // Title on top, caption at the bottom: both wrapped to the page width.
    double y = pad;
    if (!L.title_omitted)
        for (const std::string& line : wrap_text(figure.title, text_width, theme.title_size, true, measure)) {
            L.title.push_back(place_text(line, theme.title_size, true, theme.ink, {0.5 * L.width, y}, HAlign::Center,
                                         VAlign::Top, measure));
            y = L.title.back().box.bottom();
        }
    double top_block = L.title.empty() ? pad : y + 0.8 * pad;
    std::vector<std::string> caption;
    if (!L.caption_omitted) caption = wrap_text(figure.caption, text_width, theme.caption_size, false, measure);
    double caption_line = line_height(measure, theme.caption_size);
    double bottom_block =
        pad + (caption.empty() ? 0.0 : static_cast<double>(caption.size()) * caption_line + 0.6 * pad);
    for (size_t i = 0; i < caption.size(); ++i) {
        double line_top = L.height - pad - static_cast<double>(caption.size() - i) * caption_line;
        L.caption.push_back(place_text(caption[i], theme.caption_size, false, theme.muted_ink, {pad, line_top},
                                       HAlign::Left, VAlign::Top, measure));
    }

    place_data(c, L, top_block, bottom_block, 0.0);

    // Legend: a fixed place, or (Auto) the inside corner that hides no data, else outside on the
    // right if the plot can spare the width, else in rows below the plot.
    LegendLayout legend = legend_at_origin(c);
    if (!legend.visible) return L;
    LegendPlacement placement = figure.legend.placement;
    const double inset = 0.5 * pad;
    bool fits_inside = legend.box.w + 2 * inset <= L.plot.w && legend.box.h + 2 * inset <= L.plot.h;
    // Beside the plot only when narrow (a quarter of the page at most) and uncut; a wide or cut
    // legend goes in rows below, where every entry has the page's width.
    bool narrow = legend.box.w <= 0.25 * L.width && !legend.truncated;
    bool can_go_outside = narrow && L.plot.w - legend.box.w - pad >= 0.45 * L.width;
    if (placement == LegendPlacement::Auto) {
        std::vector<Vec2> footprint = data_footprint(c, L);
        int best_score = -1;
        for (LegendPlacement corner : {LegendPlacement::TopRight, LegendPlacement::TopLeft, LegendPlacement::BottomLeft,
                                       LegendPlacement::BottomRight}) {
            Vec2 at = corner_position(L.plot, legend.box, corner, inset);
            int score = covered(footprint, {at.x, at.y, legend.box.w, legend.box.h});
            if (best_score < 0 || score < best_score) best_score = score, placement = corner;
        }
        if (best_score > 0 || !fits_inside || legend.truncated)
            placement = can_go_outside ? LegendPlacement::OutsideRight : LegendPlacement::Below;
    } else if (placement == LegendPlacement::OutsideRight && !can_go_outside) {
        placement = LegendPlacement::Below;  // too wide to stand beside the plot
    } else if (placement != LegendPlacement::OutsideRight && placement != LegendPlacement::Below &&
               (!fits_inside || legend.truncated)) {
        placement = LegendPlacement::Below;  // a corner too small for it: the legend would cover the axes
    }
    if (placement == LegendPlacement::OutsideRight) {
        place_data(c, L, top_block, bottom_block, legend.box.w + pad);
        move_legend(legend, {L.width - pad - legend.box.w, L.plot.top()});
    } else if (placement == LegendPlacement::Below) {
        legend = legend_at_origin(c, true, L.width - 2 * pad);
        place_data(c, L, top_block, bottom_block + legend.box.h + 0.4 * pad, 0.0);
        move_legend(legend, {std::max(pad, 0.5 * (L.width - legend.box.w)), L.height - bottom_block - legend.box.h});
    } else {
        move_legend(legend, corner_position(L.plot, legend.box, placement, inset));
    }
    legend.placement = placement;
    L.legend = std::move(legend);
    return L;
}

}  // namespace

Layout compute_layout(const Figure& figure, double width, double height, const MeasureText& measure,
                      const Theme& theme) {
    width = std::isfinite(width) ? std::max(width, 1.0) : 1.0;
    height = std::isfinite(height) ? std::max(height, 1.0) : 1.0;
    Context c{figure, theme, measure, width, height};
    c.x_range = axis_range(figure, AxisId::X);
    c.y_range = axis_range(figure, AxisId::Y);
    if (figure.heatmap) {
        const Heatmap& h = *figure.heatmap;
        c.heatmap_values = heatmap_value_range(h);
        for (int r = 0; r < h.rows && !c.heatmap_has_nan; ++r)
            for (int col = 0; col < h.cols && !c.heatmap_has_nan; ++col) c.heatmap_has_nan = std::isnan(h.at(r, col));
    }
    // The plot is the point of a figure: on small pages the caption, then the title, give way.
    const double min_w = std::max(24.0, 0.25 * width), min_h = std::max(24.0, 0.25 * height);
    Layout L;
    for (int level = 0; level <= 2; ++level) {
        if (level == 1 && figure.caption.empty()) continue;
        if (level == 2 && figure.title.empty()) continue;
        L = layout_at(c, level);
        if (L.plot.w >= min_w && L.plot.h >= min_h) break;
    }
    return L;
}

}  // namespace kl::plot
