// The screen renderer of the plot module: kl::plot::Scene drawn with ImDrawList, text measured
// with the workbook's ImGui fonts so that layout decisions (tick thinning, wrapping, legend
// corner) are made with the glyphs actually drawn. The same Figure exports through cairo.
#pragma once
#include <imgui.h>

#include <vector>

#include "plot/layout.h"
#include "plot/scene.h"
#include "plot/theme.h"

namespace kl::gui {

// Fonts the renderer may use: regular and bold faces baked at several pixel sizes; the one
// closest to (and not much smaller than) the requested size is scaled to it.
struct PlotFonts {
    struct Baked {
        ImFont* font = nullptr;
        float size = 0;
        bool bold = false;
    };
    std::vector<Baked> faces;
    ImFont* pick(double size, bool bold) const;
};

plot::MeasureText imgui_measure(const PlotFonts& fonts);

// The workbook's screen look for plots: the palette shared by every plot (one colour per rung),
// text sizes in pixels, colours matching the dark or light UI theme.
plot::Theme screen_theme(bool dark, float scale);

ImU32 to_imgui(plot::Color c);
plot::Color to_plot_color(const ImVec4& c);

// The colour of rung `index` in every plot and in the ladder strip (screen_theme's palette).
ImU32 rung_color(int index, bool dark);

// Draws `scene` with its top-left corner at `origin` (screen pixels).
void draw_scene(ImDrawList* dl, const plot::Scene& scene, ImVec2 origin, const PlotFonts& fonts);

// Text rotated 90 degrees counter-clockwise about `origin` (reads upwards).
void add_vertical_text(ImDrawList* dl, ImFont* font, float size, ImVec2 origin, ImU32 color, const char* text);

}  // namespace kl::gui
