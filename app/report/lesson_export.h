// `kladder export-lesson`: every figure a lesson's steps name (SVG, PDF, PNG), the results
// they were drawn from, and a handout (Markdown and HTML) into one folder.
//
// All or nothing: everything is rendered and written into a hidden staging folder inside the
// destination first and moved into place at the end; on any failure the staging folder (and
// the destination, when this export created it) is removed. Steps whose figure has no data in
// the results are listed in the handout and the summary instead of failing the export.
#pragma once
#include <string>
#include <vector>

#include "course/lesson.h"
#include "plot/cairo_export.h"
#include "report/figure_request.h"

namespace kl::report {

struct LessonExportSummary {
    std::vector<std::string> written;  // file names inside the destination, in writing order
    std::vector<std::string> skipped;  // "step 3 (sweep): <why>"
    int figures = 0;
};

// `out_dir` may not exist yet if its parent does. Throws InputError (one line) on failure.
LessonExportSummary export_lesson(const Lesson& lesson, const LoadedResults& results,
                                  const std::vector<Ladder>& ladders, const std::string& out_dir,
                                  const plot::ExportOptions& options, bool caption = true);

// "step03_bars": the base name of a step's figure files (step numbers from 1).
std::string step_figure_name(size_t step_index, const std::string& plot);

}  // namespace kl::report
