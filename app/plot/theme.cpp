#include "plot/theme.h"

#include <algorithm>
#include <cmath>

namespace kl::plot {

namespace {

template <typename T>
const T& cycled(const std::vector<T>& items, int index) {
    int n = static_cast<int>(items.size());
    return items[((index % n) + n) % n];
}

}  // namespace

Color Theme::palette_color(int index) const { return palette.empty() ? ink : cycled(palette, index); }

MarkerShape Theme::marker(int index) const { return markers.empty() ? MarkerShape::Circle : cycled(markers, index); }

const std::vector<double>& Theme::dash(int index) const {
    static const std::vector<double> kSolid;
    return dashes.empty() ? kSolid : cycled(dashes, index);
}

Hatch Theme::hatch(int index) const { return hatches.empty() || index <= 0 ? Hatch::None : cycled(hatches, index); }

Color Theme::colormap(double t) const {
    if (std::isnan(t)) return nan_cell;
    if (colormap_stops.empty()) return ink;
    if (colormap_stops.size() == 1) return rgb(colormap_stops[0]);
    t = std::clamp(t, 0.0, 1.0);
    double position = t * static_cast<double>(colormap_stops.size() - 1);
    size_t i = std::min(static_cast<size_t>(position), colormap_stops.size() - 2);
    float f = static_cast<float>(position - static_cast<double>(i));
    Color a = rgb(colormap_stops[i]), b = rgb(colormap_stops[i + 1]);
    return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f, 1.0f};
}

Theme print_theme() {
    Theme t;
    // Okabe & Ito (2008), ordered so the first colours differ most in hue and lightness;
    // yellow comes last because it nearly vanishes on white.
    t.palette = {rgb(0x0072B2), rgb(0xD55E00), rgb(0x009E73), rgb(0xE69F00),
                 rgb(0xCC79A7), rgb(0x56B4E9), rgb(0x000000), rgb(0xF0E442)};
    // viridis at 0, 0.1, ..., 1: perceptually uniform and monotone in lightness (prints in grey)
    t.colormap_stops = {0x440154, 0x482475, 0x414487, 0x355F8D, 0x2A788E, 0x21918C,
                        0x22A884, 0x44BF70, 0x7AD151, 0xBDDF26, 0xFDE725};
    t.markers = {MarkerShape::Circle,       MarkerShape::Square, MarkerShape::TriangleUp, MarkerShape::Diamond,
                 MarkerShape::TriangleDown, MarkerShape::Cross,  MarkerShape::Plus};
    t.dashes = {{}, {5.0, 2.5}, {1.2, 1.8}, {6.0, 2.0, 1.2, 2.0}, {9.0, 3.0}, {4.0, 1.5, 1.2, 1.5, 1.2, 1.5}};
    t.hatches = {Hatch::None, Hatch::Diagonal, Hatch::Crossed, Hatch::Horizontal, Hatch::AntiDiagonal, Hatch::Vertical};
    return t;
}

Theme dark_theme() {
    Theme t = print_theme();
    t.background = rgb(0x1E2127);
    t.ink = rgb(0xD7DAE0);
    t.muted_ink = rgb(0x9AA1AD);
    t.grid = rgb(0x353A44);
    t.reference = rgb(0xE8C268);
    t.legend_fill = rgb(0x262A31, 0.92f);
    t.legend_border = rgb(0x4A505C);
    t.nan_cell = rgb(0x4A4F58);
    t.nan_cross = rgb(0xC8CCD4);
    // Okabe-Ito hues, lifted for a dark background; then four more so that ladders of up to
    // twelve rungs keep one colour each.
    t.palette = {rgb(0x4FA3E0), rgb(0xF0803C), rgb(0x3CC49A), rgb(0xF2C14E), rgb(0xD98BC0), rgb(0x8CD3F5),
                 rgb(0xB8BEC8), rgb(0xE4E07A), rgb(0xA88BEB), rgb(0xEF6F6C), rgb(0x7BC96F), rgb(0xC9A27E)};
    return t;
}

Theme slide_theme() {
    Theme t = dark_theme();
    for (double* size :
         {&t.title_size, &t.label_size, &t.tick_size, &t.legend_size, &t.caption_size, &t.annotation_size})
        *size *= 1.25;
    return t;
}

}  // namespace kl::plot
