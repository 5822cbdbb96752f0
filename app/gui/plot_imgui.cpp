// [SECTION] index: fonts and measuring / theme / drawing commands / scene
#include "gui/plot_imgui.h"

#include <algorithm>
#include <cmath>

namespace kl::gui {

// [SECTION] Fonts and measuring

ImFont* PlotFonts::pick(double size, bool bold) const {
    const Baked* best = nullptr;
    for (const auto& f : faces) {
        if (!f.font || f.bold != bold) continue;
        // Prefer the smallest face not smaller than 90% of the request (downscaling stays crisp).
        bool fits = f.size >= size * 0.9;
        if (!best) {
            best = &f;
            continue;
        }
        bool best_fits = best->size >= size * 0.9;
        if (fits && (!best_fits || f.size < best->size))
            best = &f;
        else if (!fits && !best_fits && f.size > best->size)
            best = &f;
    }
    if (!best && bold) return pick(size, false);
    return best ? best->font : ImGui::GetFont();
}

plot::MeasureText imgui_measure(const PlotFonts& fonts) {
    return [&fonts](const std::string& text, double size, bool bold) {
        ImFont* f = fonts.pick(size, bold);
        ImVec2 s = f->CalcTextSizeA(float(size), FLT_MAX, 0.0f, text.c_str(), text.c_str() + text.size());
        double scale = size / f->FontSize;
        return plot::TextMetrics{s.x, f->Ascent * scale, -f->Descent * scale};
    };
}

// [SECTION] Theme

plot::Theme screen_theme(bool dark, float scale) {
    plot::Theme t = dark ? plot::dark_theme() : plot::print_theme();
    if (!dark) {
        t.background = plot::rgb(0xFFFFFF);
        t.reference = plot::rgb(0xB4451F);
        t.palette = {plot::rgb(0x0072B2), plot::rgb(0xD55E00), plot::rgb(0x009E73), plot::rgb(0xE69F00),
                     plot::rgb(0xCC79A7), plot::rgb(0x56B4E9), plot::rgb(0x555555), plot::rgb(0xB5A600),
                     plot::rgb(0x6A3D9A), plot::rgb(0xC0392B), plot::rgb(0x33A02C), plot::rgb(0x8C6D31)};
    }
    // Screen sizes in pixels (the print theme is in points for a 6.5 in column).
    t.title_size = 15.0 * scale;
    t.label_size = 13.5 * scale;
    t.tick_size = 12.5 * scale;
    t.legend_size = 12.5 * scale;
    t.caption_size = 12.0 * scale;
    t.annotation_size = 12.0 * scale;
    t.line_width = 2.0 * scale;
    t.reference_width = 1.6 * scale;
    t.roofline_width = 2.5 * scale;
    t.axis_width = 1.0 * scale;
    t.grid_width = 1.0 * scale;
    t.marker_size = 8.0 * scale;
    t.marker_edge_width = 1.0 * scale;
    t.tick_length = 5.0 * scale;
    t.minor_tick_length = 3.0 * scale;
    t.pad = 8.0 * scale;
    for (auto& d : t.dashes)
        for (auto& v : d) v *= 1.6 * scale;
    return t;
}

ImU32 to_imgui(plot::Color c) {
    auto b = [](float v) { return int(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
    return IM_COL32(b(c.r), b(c.g), b(c.b), b(c.a));
}

plot::Color to_plot_color(const ImVec4& c) { return {c.x, c.y, c.z, c.w}; }

ImU32 rung_color(int index, bool dark) {
    static const plot::Theme dark_theme = screen_theme(true, 1.0f), light_theme = screen_theme(false, 1.0f);
    return to_imgui((dark ? dark_theme : light_theme).palette_color(index));
}

// [SECTION] Drawing commands

namespace {

ImVec2 at(ImVec2 o, plot::Vec2 p) { return {o.x + float(p.x), o.y + float(p.y)}; }

void draw_polyline(ImDrawList* dl, ImVec2 o, const std::vector<plot::Vec2>& pts, ImU32 col, float width) {
    if (pts.size() < 2) return;
    std::vector<ImVec2> v;
    v.reserve(pts.size());
    for (const auto& p : pts) v.push_back(at(o, p));
    // Round joins look best for data lines; ImDrawList only miters, so draw segments plus dots
    // at the joints when the line is thick.
    dl->AddPolyline(v.data(), int(v.size()), col, ImDrawFlags_None, width);
    if (width >= 2.0f)
        for (size_t i = 1; i + 1 < v.size(); ++i) dl->AddCircleFilled(v[i], width * 0.5f, col, 8);
}

void draw_line(ImDrawList* dl, ImVec2 o, const plot::LineCmd& c) {
    ImU32 col = to_imgui(c.color);
    float w = float(c.width);
    if (c.dash.empty()) {
        draw_polyline(dl, o, c.points, col, w);
        return;
    }
    for (const auto& piece : plot::split_dashes(c.points, c.dash)) draw_polyline(dl, o, piece, col, w);
}

void draw_rect(ImDrawList* dl, ImVec2 o, const plot::RectCmd& c) {
    ImVec2 a = at(o, {c.rect.x, c.rect.y}), b = at(o, {c.rect.right(), c.rect.bottom()});
    if (c.fill.a > 0) dl->AddRectFilled(a, b, to_imgui(c.fill));
    if (c.stroke_width > 0) dl->AddRect(a, b, to_imgui(c.stroke), 0.0f, ImDrawFlags_None, float(c.stroke_width));
}

void draw_marker(ImDrawList* dl, ImVec2 o, const plot::MarkerCmd& c) {
    plot::MarkerGeometry g = plot::marker_geometry(c.shape, c.center, c.size, 20);
    if (g.points.empty()) return;
    std::vector<ImVec2> v;
    for (const auto& p : g.points) v.push_back(at(o, p));
    if (g.filled) {
        dl->AddConvexPolyFilled(v.data(), int(v.size()), to_imgui(c.fill));
        if (c.stroke_width > 0)
            dl->AddPolyline(v.data(), int(v.size()), to_imgui(c.stroke), ImDrawFlags_Closed, float(c.stroke_width));
    } else {
        float w = float(std::max(c.stroke_width, c.size * 0.18));
        for (size_t i = 0; i + 1 < v.size(); i += 2) dl->AddLine(v[i], v[i + 1], to_imgui(c.fill), w);
    }
}

void draw_text(ImDrawList* dl, ImVec2 o, const plot::TextCmd& t, const PlotFonts& fonts) {
    ImFont* f = fonts.pick(t.size, t.bold);
    float size = float(t.size);
    ImU32 col = to_imgui(t.color);
    // TextCmd origins are baselines; ImGui draws from the top of the line box.
    float ascent = f->Ascent * size / f->FontSize;
    if (t.vertical) {
        add_vertical_text(dl, f, size, at(o, t.origin), col, t.text.c_str());
        return;
    }
    ImVec2 p = at(o, t.origin);
    p.y -= ascent;
    dl->AddText(f, size, ImVec2(std::round(p.x), std::round(p.y)), col, t.text.c_str());
}

}  // namespace

void add_vertical_text(ImDrawList* dl, ImFont* font, float size, ImVec2 origin, ImU32 color, const char* text) {
    // Draw horizontally at the origin, then rotate the new vertices by -90 degrees about it.
    float ascent = font->Ascent * size / font->FontSize;
    int first = dl->VtxBuffer.Size;
    // A wide CPU clip rectangle: the unrotated text may reach past the panel, and ImGui would
    // drop those glyphs before we turn them. The scissor still clips the rotated result.
    ImVec4 no_cull(-1e6f, -1e6f, 1e6f, 1e6f);
    dl->AddText(font, size, ImVec2(origin.x, origin.y - ascent), color, text, nullptr, 0.0f, &no_cull);
    for (int i = first; i < dl->VtxBuffer.Size; ++i) {
        ImVec2& p = dl->VtxBuffer[i].pos;
        float dx = p.x - origin.x, dy = p.y - origin.y;
        // (dx, dy) -> (dy, -dx): counter-clockwise on a y-down screen.
        p = ImVec2(origin.x + dy, origin.y - dx);
    }
}

// [SECTION] Scene

void draw_scene(ImDrawList* dl, const plot::Scene& scene, ImVec2 origin, const PlotFonts& fonts) {
    ImVec2 end(origin.x + float(scene.width), origin.y + float(scene.height));
    dl->PushClipRect(origin, end, true);
    dl->AddRectFilled(origin, end, to_imgui(scene.background));
    int clips = 0;
    for (const auto& cmd : scene.commands) {
        if (auto* l = std::get_if<plot::LineCmd>(&cmd))
            draw_line(dl, origin, *l);
        else if (auto* r = std::get_if<plot::RectCmd>(&cmd))
            draw_rect(dl, origin, *r);
        else if (auto* m = std::get_if<plot::MarkerCmd>(&cmd))
            draw_marker(dl, origin, *m);
        else if (auto* t = std::get_if<plot::TextCmd>(&cmd))
            draw_text(dl, origin, *t, fonts);
        else if (auto* c = std::get_if<plot::PushClipCmd>(&cmd)) {
            dl->PushClipRect(at(origin, {c->rect.x, c->rect.y}), at(origin, {c->rect.right(), c->rect.bottom()}), true);
            ++clips;
        } else if (std::holds_alternative<plot::PopClipCmd>(cmd) && clips > 0) {
            dl->PopClipRect();
            --clips;
        }
    }
    while (clips-- > 0) dl->PopClipRect();
    dl->PopClipRect();
}

}  // namespace kl::gui
