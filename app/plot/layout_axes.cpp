// Axes: tick values (custom, numeric, categories), their labels placed and thinned until they do
// not collide, axis titles, and the heatmap's colour bar.
// [SECTION] index: axis ticks and labels / colour bar
#include <algorithm>
#include <cmath>

#include "plot/layout_parts.h"

namespace kl::plot::detail {

// [SECTION] Axis ticks and labels -----------------------------------------------------------

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
    // Bars drawn across give their names more of the page: they are the chart's only labels.
    const double across_share = c.figure.bars == BarOrientation::Horizontal ? 0.45 : 0.3;
    for (size_t i = 0; i < axis.categories.size(); ++i)
        ticks.push_back({static_cast<double>(i),
                         fit_text(axis.categories[i], across_share * c.width, size, false, c.measure), true});
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

}  // namespace kl::plot::detail
