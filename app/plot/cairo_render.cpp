#include "plot/cairo_render.h"

#include <cmath>
#include <memory>
#include <variant>

namespace kl::plot {

namespace {

void set_font(cairo_t* cr, const std::string& family, double size, bool bold) {
    cairo_select_font_face(cr, family.c_str(), CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_font_options_t* options = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
    cairo_set_font_options(cr, options);
    cairo_font_options_destroy(options);
}

void set_color(cairo_t* cr, Color c) { cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a); }

bool finite(Vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

struct CairoPainter {
    cairo_t* cr;
    const Scene& scene;
    int clip_depth = 0;

    void operator()(const LineCmd& l) {
        if (l.points.size() < 2) return;
        cairo_new_path(cr);
        bool started = false;
        for (const Vec2& p : l.points) {
            if (!finite(p)) continue;
            if (!started)
                cairo_move_to(cr, p.x, p.y);
            else
                cairo_line_to(cr, p.x, p.y);
            started = true;
        }
        set_color(cr, l.color);
        cairo_set_line_width(cr, l.width);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
        cairo_set_dash(cr, l.dash.empty() ? nullptr : l.dash.data(), static_cast<int>(l.dash.size()), 0.0);
        cairo_stroke(cr);
        cairo_set_dash(cr, nullptr, 0, 0.0);
    }
    void operator()(const RectCmd& r) {
        if (!std::isfinite(r.rect.x) || !std::isfinite(r.rect.y) || !std::isfinite(r.rect.w) ||
            !std::isfinite(r.rect.h))
            return;
        cairo_new_path(cr);
        cairo_rectangle(cr, r.rect.x, r.rect.y, r.rect.w, r.rect.h);
        if (r.fill.a > 0.0f) {
            set_color(cr, r.fill);
            if (r.stroke_width > 0.0)
                cairo_fill_preserve(cr);
            else
                cairo_fill(cr);
        }
        if (r.stroke_width > 0.0) {
            set_color(cr, r.stroke);
            cairo_set_line_width(cr, r.stroke_width);
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
            cairo_stroke(cr);
        }
        cairo_new_path(cr);
    }
    void operator()(const MarkerCmd& m) {
        if (!finite(m.center)) return;
        cairo_new_path(cr);
        if (m.shape == MarkerShape::Circle) {
            cairo_arc(cr, m.center.x, m.center.y, 0.5 * m.size, 0.0, 2.0 * M_PI);
            cairo_close_path(cr);
        } else {
            MarkerGeometry g = marker_geometry(m.shape, m.center, m.size);
            if (!g.filled) {
                cairo_move_to(cr, g.points[0].x, g.points[0].y);
                cairo_line_to(cr, g.points[1].x, g.points[1].y);
                cairo_move_to(cr, g.points[2].x, g.points[2].y);
                cairo_line_to(cr, g.points[3].x, g.points[3].y);
                set_color(cr, m.fill);
                cairo_set_line_width(cr, m.stroke_width);
                cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
                cairo_stroke(cr);
                cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
                return;
            }
            cairo_move_to(cr, g.points[0].x, g.points[0].y);
            for (size_t i = 1; i < g.points.size(); ++i) cairo_line_to(cr, g.points[i].x, g.points[i].y);
            cairo_close_path(cr);
        }
        set_color(cr, m.fill);
        cairo_fill_preserve(cr);
        set_color(cr, m.stroke);
        cairo_set_line_width(cr, m.stroke_width);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        cairo_stroke(cr);
    }
    void operator()(const TextCmd& t) {
        if (t.text.empty() || !finite(t.origin)) return;
        cairo_save(cr);
        set_font(cr, scene.font_family, t.size, t.bold);
        set_color(cr, t.color);
        cairo_translate(cr, t.origin.x, t.origin.y);
        if (t.vertical) cairo_rotate(cr, -M_PI / 2.0);
        cairo_move_to(cr, 0.0, 0.0);
        cairo_show_text(cr, t.text.c_str());
        cairo_new_path(cr);
        cairo_restore(cr);
    }
    void operator()(const PushClipCmd& c) {
        cairo_save(cr);
        cairo_new_path(cr);
        cairo_rectangle(cr, c.rect.x, c.rect.y, c.rect.w, c.rect.h);
        cairo_clip(cr);
        ++clip_depth;
    }
    void operator()(const PopClipCmd&) {
        if (clip_depth == 0) return;
        cairo_restore(cr);
        --clip_depth;
    }
};

}  // namespace

MeasureText cairo_measure(const std::string& font_family) {
    // One small surface kept alive by the closure; measuring never draws.
    std::shared_ptr<cairo_surface_t> surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1),
                                             cairo_surface_destroy);
    std::shared_ptr<cairo_t> context(cairo_create(surface.get()), cairo_destroy);
    return [surface, context, font_family](const std::string& text, double size, bool bold) {
        cairo_t* cr = context.get();
        set_font(cr, font_family, size, bold);
        cairo_font_extents_t font;
        cairo_font_extents(cr, &font);
        cairo_text_extents_t extents{};
        if (!text.empty()) cairo_text_extents(cr, text.c_str(), &extents);
        return TextMetrics{extents.x_advance, font.ascent, font.descent};
    };
}

void draw_scene(cairo_t* cr, const Scene& scene) {
    cairo_save(cr);
    set_color(cr, scene.background);
    cairo_paint(cr);
    CairoPainter painter{cr, scene};
    for (const DrawCmd& cmd : scene.commands) std::visit(painter, cmd);
    while (painter.clip_depth > 0) painter(PopClipCmd{});
    cairo_restore(cr);
}

}  // namespace kl::plot
