// Colours, fonts, line widths and spacing of a rendered figure.
//
// The plot model names styles by index (colour 2, marker 1, dash 3); a Theme turns the indices
// into concrete colours, shapes and patterns. print_theme() is the export look; a screen
// renderer builds its own Theme (sizes in pixels, its own background) from the same fields.
#pragma once

#include <string>
#include <vector>

#include "plot/scene.h"

namespace kl::plot {

struct Theme {
    // Colours
    Color background = rgb(0xFFFFFF);
    Color ink = rgb(0x222222);        // axes, tick labels, titles
    Color muted_ink = rgb(0x555555);  // caption, minor text
    Color grid = rgb(0xE3E3E3);
    Color reference = rgb(0x444444);  // horizontal/vertical reference lines and rooflines
    Color legend_fill = rgb(0xFFFFFF, 0.9f);
    Color legend_border = rgb(0xBBBBBB);
    Color nan_cell = rgb(0xD9D9D9);  // heatmap cells holding NaN (drawn crossed)
    Color nan_cross = rgb(0x444444);
    std::vector<Color> palette;            // series colours, cycled
    std::vector<unsigned> colormap_stops;  // heatmap scale, low to high, linearly interpolated

    // Shapes that keep series apart in greyscale
    std::vector<MarkerShape> markers;
    std::vector<std::vector<double>> dashes;  // on/off lengths in page units; {} = solid
    std::vector<Hatch> hatches;               // bar fills; index 0 should be Hatch::None
    double hatch_spacing = 3.5;

    // Text (sizes in page units: points for print, pixels on screen)
    std::string font_family = "DejaVu Sans";
    double title_size = 11.0;
    double label_size = 9.0;  // axis titles
    double tick_size = 8.0;   // tick labels
    double legend_size = 8.0;
    double caption_size = 7.0;
    double annotation_size = 7.5;

    // Lines and spacing
    double line_width = 1.5;
    double reference_width = 1.1;
    double roofline_width = 2.0;
    double axis_width = 0.8;
    double grid_width = 0.5;
    double marker_size = 5.0;
    double marker_edge_width = 0.6;
    double tick_length = 3.5;
    double minor_tick_length = 2.0;
    double pad = 6.0;  // the unit of spacing between blocks (title, labels, legend)

    Color palette_color(int index) const;
    MarkerShape marker(int index) const;
    const std::vector<double>& dash(int index) const;
    Hatch hatch(int index) const;
    Color colormap(double t) const;  // t in [0, 1], clamped; NaN gives nan_cell
};

// White background, Okabe-Ito palette (colour-blind safe), viridis heatmaps, DejaVu Sans.
Theme print_theme();
// The workbook's dark screen colours on print_theme()'s sizes (points): the GUI's dark theme
// scales it to pixels, `kladder export --theme screen` enlarges its text for slides.
Theme dark_theme();
// Slides: dark_theme() with text a quarter larger (`kladder export --theme screen`, the GUI's
// export popup "screen").
Theme slide_theme();

}  // namespace kl::plot
