// Figure + Layout -> Scene: the drawing commands of a whole figure, in painting order.
#pragma once

#include "plot/layout.h"
#include "plot/plot_model.h"
#include "plot/scene.h"
#include "plot/theme.h"

namespace kl::plot {

// Painting order: grid, heatmap cells, [clip to plot] bars, lines, references [unclip], markers,
// axes and ticks, texts, notes, legend, colour bar.
Scene build_scene(const Figure& figure, const Layout& layout, const Theme& theme);

// compute_layout() then build_scene(): the whole figure on a width x height page.
Scene render_figure(const Figure& figure, double width, double height, const MeasureText& measure, const Theme& theme);

}  // namespace kl::plot
