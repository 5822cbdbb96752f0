// `kladder export-lesson`: every figure a lesson's steps name (SVG, PDF, PNG), the results
// they were drawn from, and a handout (Markdown and HTML) into one folder.
//
// All or nothing: everything is rendered and written into a hidden staging folder inside the
// destination first and moved into place at the end; on any failure the staging folder (and
// the destination, when this export created it) is removed. Steps whose figure has no data in
// the results are listed in the handout ("not recorded for this device") and the summary instead
// of failing the export.
//
// export_lesson_handouts() is the one entry of `kladder export-lesson` and of the window's Export
// lesson: one device per handout (handout_results.h), in the edition asked for.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "course/lesson.h"
#include "plot/cairo_export.h"
#include "report/figure_request.h"
#include "report/handout.h"

namespace kl::report {

struct LessonExportOptions {
    plot::ExportOptions page;
    bool caption = true;  // device, date and problem under each figure
    HandoutEdition edition = HandoutEdition::Instructor;
    // Files of several devices: one handout per device, each in a folder of `out_dir` named after
    // the device (device_folder_name), instead of the one-line refusal. Each handout is written
    // all or nothing; one that fails leaves the handouts written before it.
    bool per_device = false;
};

struct LessonExportSummary {
    std::string folder;                // where this handout went (out_dir, or its device's folder)
    std::string device;                // the device it shows
    std::vector<std::string> written;  // file names inside the destination, in writing order
    std::vector<std::string> skipped;  // "step 3 (sweep): <why>"
    int figures = 0;
};

// `out_dir` may not exist yet if its parent does. Throws InputError (one line) on failure,
// among them files of different devices without `per_device`.
std::vector<LessonExportSummary> export_lesson_handouts(const Lesson& lesson, std::vector<LoadedResults> files,
                                                        const std::vector<Ladder>& ladders, const std::string& out_dir,
                                                        const LessonExportOptions& options);

// One device's handout from results already merged (merge_results).
LessonExportSummary export_lesson(const Lesson& lesson, const LoadedResults& results,
                                  const std::vector<Ladder>& ladders, const std::string& out_dir,
                                  const LessonExportOptions& options);

// "nvidia_h100_80gb_hbm3": a device's folder under a per-device export.
std::string device_folder_name(const std::string& device);

// "step03_bars": the base name of a step's figure files (step numbers from 1).
std::string step_figure_name(size_t step_index, const std::string& plot);

}  // namespace kl::report
