#include "plot/scene.h"

#include <algorithm>
#include <cmath>

namespace kl::plot {

Color rgb(unsigned hex, float alpha) {
    return {((hex >> 16) & 0xFF) / 255.0f, ((hex >> 8) & 0xFF) / 255.0f, (hex & 0xFF) / 255.0f, alpha};
}

std::vector<std::vector<Vec2>> split_dashes(const std::vector<Vec2>& polyline, const std::vector<double>& pattern) {
    double total = 0.0;
    bool valid = !pattern.empty();
    for (double d : pattern) {
        if (!(d >= 0.0) || !std::isfinite(d)) valid = false;
        total += d;
    }
    if (!valid || !(total > 0.0) || polyline.size() < 2) return {polyline};
    double polyline_length = 0.0;
    for (size_t i = 1; i < polyline.size(); ++i)
        polyline_length += std::hypot(polyline[i].x - polyline[i - 1].x, polyline[i].y - polyline[i - 1].y);
    if (!std::isfinite(polyline_length) || polyline_length / total > 1e5)
        return {polyline};          // dashes finer than a pixel
    if (pattern.size() % 2 == 1) {  // odd patterns repeat with on/off swapped, as in cairo and SVG
        std::vector<double> doubled = pattern;
        doubled.insert(doubled.end(), pattern.begin(), pattern.end());
        return split_dashes(polyline, doubled);
    }

    std::vector<std::vector<Vec2>> pieces;
    size_t index = 0;          // current pattern entry; even = on, odd = off
    double left = pattern[0];  // length left in the current entry
    std::vector<Vec2> current;
    if (left > 0.0) current.push_back(polyline[0]);
    for (size_t i = 1; i < polyline.size(); ++i) {
        Vec2 a = polyline[i - 1], b = polyline[i];
        double length = std::hypot(b.x - a.x, b.y - a.y);
        double done = 0.0;
        while (length - done > left) {
            done += left;
            double t = length > 0.0 ? done / length : 0.0;
            Vec2 p{a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t};
            bool was_on = index % 2 == 0;
            if (was_on) {
                current.push_back(p);
                if (current.size() >= 2) pieces.push_back(std::move(current));
                current.clear();
            } else {
                current = {p};
            }
            index = (index + 1) % pattern.size();
            left = pattern[index];
        }
        left -= length - done;
        if (index % 2 == 0) current.push_back(b);
    }
    if (index % 2 == 0 && current.size() >= 2) pieces.push_back(std::move(current));
    return pieces;
}

MarkerGeometry marker_geometry(MarkerShape shape, Vec2 c, double size, int circle_segments) {
    const double r = size * 0.5;
    const double pi = 3.14159265358979323846;
    MarkerGeometry g;
    auto regular = [&](int n, double radius, double start_angle) {
        for (int i = 0; i < n; ++i) {
            double a = start_angle + 2.0 * pi * i / n;
            g.points.push_back({c.x + radius * std::cos(a), c.y + radius * std::sin(a)});
        }
    };
    switch (shape) {
        case MarkerShape::Circle: regular(std::max(3, circle_segments), r, 0.0); break;
        case MarkerShape::Square:  // same area as the circle, so no shape looks heavier
            regular(4, r * 1.25, pi / 4);
            break;
        case MarkerShape::TriangleUp: regular(3, r * 1.3, -pi / 2); break;
        case MarkerShape::TriangleDown: regular(3, r * 1.3, pi / 2); break;
        case MarkerShape::Diamond: regular(4, r * 1.3, 0.0); break;
        case MarkerShape::Cross: {
            double d = r * 0.9;
            g.filled = false;
            g.points = {{c.x - d, c.y - d}, {c.x + d, c.y + d}, {c.x - d, c.y + d}, {c.x + d, c.y - d}};
            break;
        }
        case MarkerShape::Plus: {
            double d = r * 1.15;
            g.filled = false;
            g.points = {{c.x - d, c.y}, {c.x + d, c.y}, {c.x, c.y - d}, {c.x, c.y + d}};
            break;
        }
    }
    return g;
}

std::vector<std::pair<Vec2, Vec2>> hatch_segments(Hatch hatch, const Rect& rect, double spacing) {
    std::vector<std::pair<Vec2, Vec2>> out;
    if (hatch == Hatch::None || !(spacing > 0) || !(rect.w > 0) || !(rect.h > 0)) return out;
    if ((rect.w / spacing) * (rect.h / spacing) > 1e6) return out;  // absurdly fine: leave the fill plain
    // Lines x*dx + y*dy = c for c on a page-anchored grid of `spacing`.
    auto family = [&](double dx, double dy) {
        double norm = std::hypot(dx, dy);
        double step = spacing * norm;
        double corners[4] = {rect.left() * dx + rect.top() * dy, rect.right() * dx + rect.top() * dy,
                             rect.left() * dx + rect.bottom() * dy, rect.right() * dx + rect.bottom() * dy};
        double lo = *std::min_element(corners, corners + 4), hi = *std::max_element(corners, corners + 4);
        for (double c = std::ceil(lo / step) * step; c <= hi; c += step) {
            if (c - lo < 1e-9 * step || hi - c < 1e-9 * step) continue;  // on the outline already
            // Two far points on the line, then clipped to the rectangle.
            Vec2 a, b;
            if (dy != 0.0) {
                a = {rect.left() - 1, (c - (rect.left() - 1) * dx) / dy};
                b = {rect.right() + 1, (c - (rect.right() + 1) * dx) / dy};
            } else {
                a = {c / dx, rect.top() - 1};
                b = {c / dx, rect.bottom() + 1};
            }
            if (clip_segment(a, b, rect) && std::hypot(b.x - a.x, b.y - a.y) > 1e-9) out.push_back({a, b});
        }
    };
    switch (hatch) {
        case Hatch::Diagonal: family(1, 1); break;  // "/" in page coordinates (y down)
        case Hatch::AntiDiagonal: family(1, -1); break;
        case Hatch::Crossed: family(1, 1), family(1, -1); break;
        case Hatch::Horizontal: family(0, 1); break;
        case Hatch::Vertical: family(1, 0); break;
        case Hatch::None: break;
    }
    return out;
}

bool clip_segment(Vec2& a, Vec2& b, const Rect& rect) {
    if (!std::isfinite(a.x) || !std::isfinite(a.y) || !std::isfinite(b.x) || !std::isfinite(b.y)) return false;
    double t0 = 0.0, t1 = 1.0;
    double dx = b.x - a.x, dy = b.y - a.y;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {a.x - rect.left(), rect.right() - a.x, a.y - rect.top(), rect.bottom() - a.y};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) return false;  // parallel to this edge and outside it
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0.0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    Vec2 start{a.x + t0 * dx, a.y + t0 * dy};
    Vec2 end{a.x + t1 * dx, a.y + t1 * dy};
    a = start;
    b = end;
    return true;
}

}  // namespace kl::plot
