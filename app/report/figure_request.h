// What to plot, as the command line, a lesson step or the window's plot panel names it, and the
// figure that results.
//
// The figures themselves come from the builders (figures.h: rung_bars, sweep_lines, correctness,
// traffic_bars, roofline); build_figure() is the one place that picks the builder and the metric
// for a request (the figure vocabulary, course/figure_vocabulary.h), used by the window and by
// export, so an exported figure shows the same data with the same labels as the window.
// build_export_figure() first turns a request ("bars of elementwise at n = 2^28") into the
// builders' PlotContext from a results file, the way the window does from its selection.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "course/figure_vocabulary.h"
#include "course/lesson.h"
#include "model/manifest.h"
#include "model/results.h"
#include "report/figures.h"
#include "report/results_store.h"

namespace kl::report {

struct FigureRequest {
    PlotKind plot = PlotKind::Bars;
    std::optional<Metric> metric;                  // nullopt: the kind's default (default_metric)
    std::string axis;                              // sweeps: a size axis or a parameter
    std::string ladder;                            // empty: the only ladder in the results
    std::string rung;                              // empty: the lesson step's, else the newest measured run's
    std::map<std::string, int64_t> sizes, params;  // overrides; missing ones come from the results
    std::string dtype;                             // empty: the rung's run, else fp32
    std::vector<std::string> tie;                  // sweeps: size axes that follow `axis` (M = N = K)
};

// The metric `request` shows in `ctx`: its own, else the default for its kind (a sweep over a
// size axis of ctx shows time, over a parameter the rate); nullopt for kinds without metrics.
std::optional<Metric> shown_metric(const FigureRequest& request, const PlotContext& ctx);

// The figure of `request` in `ctx` (its plot, metric and axis; the ladder, rung, sizes and tie
// come from ctx). The error map of `errors` is the context rung's newest run at these settings.
// Never throws: a figure with nothing to draw says why in empty_reason (an occupancy request
// too: the occupancy view is not a figure of results). The caption ends with the dates the runs
// drawn were measured ("measured 2026-11-22"), on screen as in files.
BuiltFigure build_figure(const ResultsStore& store, const PlotContext& ctx, const FigureRequest& request);

// The results behind every export: the store the builders read, plus the file's own facts.
struct LoadedResults {
    std::string path;   // where they came from (named in messages and in the handout)
    std::string bytes;  // the file as read, copied beside every figure
    ResultsFile file;
    ResultsStore store;
};

// Throws InputError naming the file when it cannot be read or parsed.
LoadedResults load_results_for_export(const std::string& path);
// Results held in memory (the window's runs): `bytes` is the file `kladder run --json` would
// write for them; `name` stands for the path in messages.
LoadedResults results_in_memory(ResultsFile file, const std::string& name);

// The request of one lesson step (its ladder, rung, sizes, params, dtype, plot and sweep axis);
// an occupancy step asks for its rung bars (the occupancy view is the window's calculator).
// Throws InputError when the step names no plot or an unknown one.
FigureRequest request_for_step(const LessonStep& step);

struct ExportFigure {
    BuiltFigure built;
    PlotContext context;
};

// Builds the figure. Throws InputError for an unknown ladder, rung, axis or metric, or a
// request that leaves nothing to draw (the message says what is missing from the results).
// The caption is device, problem size and the dates of the runs drawn (caption = false: none).
// A sweep with fewer than two points on every line counts as nothing to draw.
ExportFigure build_export_figure(const LoadedResults& results, const std::vector<Ladder>& ladders,
                                 const FigureRequest& request, bool caption = true);

// A handout's figure shows what was measured: categories (rungs) without a bar in any series are
// left out, the others renumbered (the window and `kladder export` keep every rung's slot, to
// show what is missing).
// Does nothing when no category or every category has a bar.
void drop_unmeasured_categories(BuiltFigure& built);

// "2026-11-22" from an ISO 8601 time, or the text as is.
std::string date_of(const std::string& iso_time);

}  // namespace kl::report
