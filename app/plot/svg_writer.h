// A Scene as an SVG document, text kept as <text> elements.
//
// Text stays text (searchable, selectable, editable in Inkscape or Illustrator) rather than
// glyph outlines as cairo's SVG surface would emit. The layout measured it with the export
// font (DejaVu Sans); viewers without it fall back to Verdana or another sans-serif of similar
// width.
#pragma once

#include <string>

#include "plot/scene.h"

namespace kl::plot {

// One SVG document, width x height in points (viewBox in scene units).
std::string scene_to_svg(const Scene& scene);

// XML text escaping (& < > " ').
std::string xml_escape(const std::string& text);

}  // namespace kl::plot
