#include "plot/cairo_export.h"

#include <cairo-pdf.h>
#include <cairo.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "plot/cairo_render.h"
#include "plot/csv_export.h"
#include "plot/figure_scene.h"
#include "plot/layout.h"
#include "plot/svg_writer.h"

namespace kl::plot {

namespace {

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

// Bars drawn across get a taller page than asked when their rows need it (export_height).
Scene scene_for(const Figure& figure, const ExportOptions& options) {
    MeasureText measure = cairo_measure(options.theme.font_family);
    double height = export_height(figure, options.width_pt, options.height_pt, measure, options.theme);
    return render_figure(figure, options.width_pt, height, measure, options.theme);
}

std::optional<std::string> fail(std::string* error, const std::string& message) {
    if (error) *error = message;
    return std::nullopt;
}

std::optional<std::string> render_pdf(const Scene& scene, std::string* error) {
    std::string bytes;
    cairo_surface_t* surface = cairo_pdf_surface_create_for_stream(append_to_string, &bytes, scene.width, scene.height);
    cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Kernel Ladder");
    cairo_t* cr = cairo_create(surface);
    draw_scene(cr, scene);
    cairo_show_page(cr);
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_finish(surface);
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS)
        return fail(error, std::string("PDF rendering failed: ") + cairo_status_to_string(status));
    return bytes;
}

std::optional<std::string> render_png(const Scene& scene, double scale, std::string* error) {
    if (!std::isfinite(scale) || scale <= 0.0) return fail(error, "PNG scale must be a positive number");
    int width = static_cast<int>(std::lround(scene.width * scale));
    int height = static_cast<int>(std::lround(scene.height * scale));
    const int kMaxSide = 32767;  // cairo's image surface limit
    if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide)
        return fail(error, "PNG size " + std::to_string(width) + " x " + std::to_string(height) +
                               " pixels is outside 1.." + std::to_string(kMaxSide));
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    cairo_t* cr = cairo_create(surface);
    cairo_scale(cr, static_cast<double>(width) / scene.width, static_cast<double>(height) / scene.height);
    draw_scene(cr, scene);
    cairo_status_t status = cairo_status(cr);
    cairo_destroy(cr);
    std::string bytes;
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_write_to_png_stream(surface, append_to_string, &bytes);
    cairo_surface_destroy(surface);
    if (status != CAIRO_STATUS_SUCCESS)
        return fail(error, std::string("PNG rendering failed: ") + cairo_status_to_string(status));
    return bytes;
}

}  // namespace

std::optional<ExportFormat> format_from_path(const std::string& path) {
    size_t dot = path.find_last_of('.');
    size_t slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return std::nullopt;
    std::string ext = path.substr(dot + 1);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == "svg") return ExportFormat::Svg;
    if (ext == "pdf") return ExportFormat::Pdf;
    if (ext == "png") return ExportFormat::Png;
    if (ext == "csv") return ExportFormat::Csv;
    return std::nullopt;
}

const char* format_name(ExportFormat format) {
    switch (format) {
        case ExportFormat::Svg: return "svg";
        case ExportFormat::Pdf: return "pdf";
        case ExportFormat::Png: return "png";
        case ExportFormat::Csv: return "csv";
    }
    return "?";
}

std::optional<std::string> render_to_bytes(const Figure& figure, ExportFormat format, const ExportOptions& options,
                                           std::string* error) {
    if (format == ExportFormat::Csv) return figure_to_csv(figure);
    if (!std::isfinite(options.width_pt) || !std::isfinite(options.height_pt) || options.width_pt < 1.0 ||
        options.height_pt < 1.0)
        return fail(error, "figure size must be at least 1 x 1 points");
    Scene scene = scene_for(figure, options);
    switch (format) {
        case ExportFormat::Svg: return scene_to_svg(scene);
        case ExportFormat::Pdf: return render_pdf(scene, error);
        case ExportFormat::Png: return render_png(scene, options.png_scale, error);
        case ExportFormat::Csv: break;
    }
    return fail(error, "unknown export format");
}

WriteResult export_figure(const Figure& figure, const std::string& path, const ExportOptions& options) {
    std::optional<ExportFormat> format = format_from_path(path);
    if (!format) return {path, "cannot export '" + path + "': unknown file type (use .svg, .pdf, .png or .csv)"};
    return export_figure(figure, path, *format, options);
}

WriteResult export_figure(const Figure& figure, const std::string& path, ExportFormat format,
                          const ExportOptions& options) {
    std::string error;
    std::optional<std::string> bytes = render_to_bytes(figure, format, options, &error);
    if (!bytes) return {path, "cannot export '" + path + "': " + error};
    return write_file_atomically(path, *bytes);
}

}  // namespace kl::plot
