// What to plot, as the command line or a lesson step names it, and the figure that results.
//
// The figures themselves come from the workbook's builders (figures.h: rung_bars, sweep_lines,
// correctness, traffic_bars, roofline), so an exported figure shows the same data with the same
// labels as the GUI. This file only turns a request ("bars of elementwise at n = 2^28") into the
// builders' PlotContext, the way the workbook does for a lesson step.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/lesson.h"
#include "engine/manifest.h"
#include "engine/results.h"
#include "report/figures.h"
#include "report/results_store.h"

namespace kl::report {

// The builders' namespace, named once so that moving them is a one-line change here.
namespace figs = kl::gui;

enum class PlotKind { Bars, Sweep, Roofline, Traffic, Errors };
// bars: time, rate, pct; sweep: time, rate, memory; traffic: bytes, sectors, conflicts.
enum class Metric { Default, Time, Rate, Percent, Memory, Bytes, Sectors, Conflicts };

std::optional<PlotKind> plot_kind_from_name(const std::string& name);  // "bars", ... as lesson steps name them
const char* plot_kind_name(PlotKind kind);
std::optional<Metric> metric_from_name(const std::string& name);  // "time", "rate", "pct", "memory", "bytes", ...

struct FigureRequest {
    PlotKind plot = PlotKind::Bars;
    std::string ladder;                            // empty: the only ladder in the results
    std::string rung;                              // empty: the lesson step's, else the newest measured run's
    std::string axis;                              // sweeps: a size axis or a parameter
    Metric metric = Metric::Default;               // bars: rate; sweeps: time over sizes, rate over parameters
    std::map<std::string, int64_t> sizes, params;  // overrides; missing ones come from the results
    std::string dtype;                             // empty: the rung's run, else fp32
    std::vector<std::string> tie;                  // sweeps: size axes that follow `axis` (M = N = K)
};

// The results behind every export: the store the builders read, plus the file's own facts.
struct LoadedResults {
    std::string path;
    std::string bytes;  // the file as read, copied beside every figure
    ResultsFile file;
    figs::ResultsStore store;
};

// Throws InputError naming the file when it cannot be read or parsed.
LoadedResults load_results_for_export(const std::string& path);

// The request of one lesson step (its ladder, rung, sizes, params, dtype, plot and sweep axis).
// Throws InputError when the step names no plot or an unknown one.
FigureRequest request_for_step(const LessonStep& step);

struct ExportFigure {
    figs::BuiltFigure built;
    figs::PlotContext context;
};

// Builds the figure. Throws InputError for an unknown ladder, rung, axis or metric, or a
// request that leaves nothing to draw (the message says what is missing from the results).
// The caption is device, measurement date and problem size (caption = false: none).
ExportFigure build_export_figure(const LoadedResults& results, const std::vector<Ladder>& ladders,
                                 const FigureRequest& request, bool caption = true);

// "2026-11-22" from an ISO 8601 time, or the text as is.
std::string date_of(const std::string& iso_time);

}  // namespace kl::report
