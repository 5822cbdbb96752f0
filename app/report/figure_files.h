// Writing one exported figure and the results behind it, all or nothing.
//
// A figure file never travels alone: the results JSON it was drawn from is copied beside it
// (fig.svg -> fig.results.json), so a reader of the class notes can check or re-plot every
// number. Both files are written atomically; a failure leaves neither behind and throws
// InputError with one line naming the path and the reason.
#pragma once
#include <string>

#include "plot/cairo_export.h"
#include "plot/plot_model.h"

namespace kl::report {

// "out/fig.svg" -> "out/fig.results.json" (the extension of the figure replaced).
std::string results_copy_path(const std::string& figure_path);

// Renders `figure` in `format` and writes it to `path`, then `results_bytes` to
// results_copy_path(path). Throws InputError; on failure neither file is left (a file that
// existed before at either path is left as it was only when the failure came before writing it).
void write_figure_with_results(const plot::Figure& figure, const std::string& path, plot::ExportFormat format,
                               const plot::ExportOptions& options, const std::string& results_bytes);

// Renders without writing (InputError naming `what` on failure): the lesson export renders
// everything first and writes afterwards.
std::string render_or_throw(const plot::Figure& figure, plot::ExportFormat format, const plot::ExportOptions& options,
                            const std::string& what);

// Checks that files can be created in `folder` (exists, is a folder, writable): InputError
// "cannot write 'path': folder 'x' does not exist" otherwise. `path` names what was asked for.
void check_writable_folder(const std::string& folder, const std::string& path);

}  // namespace kl::report
