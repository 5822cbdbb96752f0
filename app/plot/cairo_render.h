// Drawing a Scene with cairo, and measuring text the way cairo will draw it.
// Included only by code that links kl_plot_cairo; the rest of the module never sees cairo.
#pragma once

#include <cairo.h>

#include <string>

#include "plot/layout.h"
#include "plot/scene.h"

namespace kl::plot {

// Text measurement with cairo's toy font API in `font_family`, with hinting of metrics off so
// widths do not depend on the output (PNG at any scale, PDF, SVG all lay out the same).
MeasureText cairo_measure(const std::string& font_family);

// Paints the scene onto `cr` in scene units (scale the context first for PNG pixel density).
// Leaves the cairo state as it found it.
void draw_scene(cairo_t* cr, const Scene& scene);

}  // namespace kl::plot
