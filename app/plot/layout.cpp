// compute_layout(): text helpers, margins and the plot area, the legend, and the passes that
// settle them; the axes (layout_axes.cpp) and the marks and notes (layout_marks.cpp) are placed
// from here.
// [SECTION] index: text helpers / margins and plot area / legend / compute_layout
#include "plot/layout.h"

#include <algorithm>
#include <cmath>

#include "plot/layout_parts.h"

namespace kl::plot {

// [SECTION] Text helpers --------------------------------------------------------------------

namespace detail {

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

double line_height(const MeasureText& measure, double size, bool bold) {
    TextMetrics m = safe_measure(measure, "Ag", size, bold);
    return m.ascent + m.descent;
}

}  // namespace detail

using namespace detail;

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

namespace detail {

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

}  // namespace detail

namespace detail {
Layout layout_figure(const Figure& figure, double width, double height, const MeasureText& measure,
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

}  // namespace detail

}  // namespace kl::plot
