// Figure + Layout -> Scene: the drawing commands of a whole figure, in painting order.
#pragma once

#include "plot/layout.h"
#include "plot/plot_model.h"
#include "plot/scene.h"
#include "plot/theme.h"

namespace kl::plot {

// Painting order: grid, heatmap cells, bars, lines, references, markers, axes and ticks, texts,
// notes, legend, colour bar. Data geometry is already cut to the plot area (lines clipped
// segment by segment, bars and whiskers clamped, markers outside skipped), so the scene holds
// no clip commands and renderers need not clip; SVG files stay free of clip paths, which some
// SVG renderers (ImageMagick's own) drop together with their content.
Scene build_scene(const Figure& figure, const Layout& layout, const Theme& theme);

// compute_layout() then build_scene(): the whole figure on a width x height page.
Scene render_figure(const Figure& figure, double width, double height, const MeasureText& measure, const Theme& theme);

}  // namespace kl::plot
