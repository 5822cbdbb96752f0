// Print-quality export of a Figure: SVG, PDF and PNG (drawn with cairo), and CSV of its data.
//
// Every file is written atomically (file_write.h): a failed export leaves no partial file and
// returns one clear line naming the path. Sizes are in points (1/72 inch); PNG pixels are
// points x png_scale.
#pragma once

#include <optional>
#include <string>

#include "plot/file_write.h"
#include "plot/plot_model.h"
#include "plot/theme.h"

namespace kl::plot {

enum class ExportFormat { Svg, Pdf, Png, Csv };

struct ExportOptions {
    double width_pt = 468.0;   // 6.5 in: a text column of a letter/A4 page
    double height_pt = 288.0;  // 4 in
    double png_scale = 2.0;    // PNG pixels per point (2 = 144 dpi; use 300/72 for 300 dpi)
    Theme theme = print_theme();
};

// The format named by the file extension (case-insensitive), if it is one of ours.
std::optional<ExportFormat> format_from_path(const std::string& path);
const char* format_name(ExportFormat format);  // "svg", "pdf", "png", "csv"

// Exports by the path's extension; an unknown extension is an error naming it.
WriteResult export_figure(const Figure& figure, const std::string& path, const ExportOptions& options = {});
WriteResult export_figure(const Figure& figure, const std::string& path, ExportFormat format,
                          const ExportOptions& options = {});

// The bytes of an export, without touching the file system (tests, clipboard, previews).
// On failure returns std::nullopt and sets `error`.
std::optional<std::string> render_to_bytes(const Figure& figure, ExportFormat format, const ExportOptions& options,
                                           std::string* error = nullptr);

}  // namespace kl::plot
