// A class folder from a merged class (`kladder class merge`, docs/class-mode.md): per exercise,
// the leaderboard normalised to each device's roof and one per device, the distribution of times
// and the share of the roof by device as print figures (SVG, PDF, PNG through the plot library),
// the best kernels' sources side by side; the handout as Markdown and HTML (class.md,
// class.html), the gradebook (gradebook.csv, every text cell guarded against spreadsheet
// formulas), and the files not merged (problems.txt). Written all or nothing (export_staging.h).
#pragma once
#include <string>
#include <vector>

#include "course/class_merge.h"
#include "plot/cairo_export.h"
#include "plot/plot_model.h"

namespace kl::report {

// "01_first_kernel/3" -> "01_first_kernel_3": an exercise's figure file stem.
std::string exercise_slug(const std::string& exercise);

plot::Figure class_times_figure(const ClassMerge& m, const std::string& exercise);
plot::Figure class_roof_figure(const ClassMerge& m, const std::string& exercise);
std::string gradebook_csv(const ClassMerge& m);
std::string class_markdown(const ClassMerge& m, const std::string& key_id);

// Writes the class folder; returns the names written. Throws InputError (nothing written).
std::vector<std::string> write_class_folder(const ClassMerge& m, const std::string& key_id, const std::string& out_dir,
                                            const plot::ExportOptions& page);

}  // namespace kl::report
