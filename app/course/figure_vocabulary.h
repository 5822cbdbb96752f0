// The figure vocabulary, written once: which plots exist, which metrics each can show, their
// names as lesson steps (`plot`, `metric`), `kladder export` (--plot, --metric) and the window
// (--view, its plot tabs and metric choices) write them, and which metric a plot shows when none
// is named. Lesson validation, the report's figure builders, export and the window all read
// this header; none keeps a list of its own. No UI and no report here: the engine's lesson
// loader needs it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kl {

// In the window's tab order (the tab index is the enum value).
enum class PlotKind {
    Bars,       // one bar per rung
    Sweep,      // the step's rung along a size axis (log x) or a parameter
    Errors,     // correctness: the error map of a 2-D output, else relative error per rung
    Traffic,    // bytes moved per rung, or a hardware counter
    Roofline,   // rungs at their arithmetic intensity under the copy and GEMM roofs
    Occupancy,  // the window's occupancy calculator: a view, not a figure of results
};
constexpr int kPlotKindCount = 6;

enum class Metric {
    Time,       // median time (bars, sweeps)
    Rate,       // GB/s, or TFLOP/s for compute-bound ladders (bars, sweeps)
    Percent,    // % of the reference's speed (bars)
    Memory,     // peak device memory (sweeps)
    Bytes,      // bytes moved: ideal, model, measured (traffic)
    Sectors,    // global sectors per request (traffic)
    Conflicts,  // shared-memory bank conflicts (traffic)
    Threads,    // active threads per warp instruction: divergence (traffic)
};

struct PlotKindInfo {
    PlotKind kind;
    const char* name;             // "bars": lesson.toml `plot`, --plot, --view
    const char* tab;              // "Rungs": the window's tab
    bool from_results;            // a figure drawn from results (export can write it)
    std::vector<Metric> metrics;  // the metrics it can show, in the order they are offered; empty: none
};

struct MetricInfo {
    Metric metric;
    const char* name;         // "pct": lesson.toml `metric`, --metric
    const char* label;        // "% of reference": the window's choice
    const char* flops_label;  // the label for compute-bound ladders (Rate: "TFLOP/s"), else `label`
    const char* unit;         // the y unit when it does not depend on the data ("" for time and rate)
    const char* help;         // a few words for --help ("pct (of reference)")
};

// Every kind, in enum order.
const std::vector<PlotKindInfo>& plot_kinds();
const PlotKindInfo& plot_kind_info(PlotKind kind);
const MetricInfo& metric_info(Metric metric);

std::optional<PlotKind> plot_kind_from_name(std::string_view name);
const char* plot_kind_name(PlotKind kind);
std::optional<Metric> metric_from_name(std::string_view name);
const char* metric_name(Metric metric);
// The window's label of a metric: Rate reads "GB/s", or "TFLOP/s" when `flops`.
const char* metric_label(Metric metric, bool flops);

// True when `kind` can show `metric`.
bool metric_fits(PlotKind kind, Metric metric);

// The default-metric rule: bars show the rate; sweeps the time over a size axis (log axes) and
// the rate over a parameter; traffic the bytes; kinds without metrics nothing.
std::optional<Metric> default_metric(PlotKind kind, bool size_axis);

// The metric a figure shows: `asked` when given, else the default.
std::optional<Metric> metric_or_default(PlotKind kind, std::optional<Metric> asked, bool size_axis);

// "bars, sweep, errors, traffic, roofline, occupancy" (figures_only: the kinds export writes).
std::string plot_kind_list(bool figures_only);
// Every metric name, "time, rate, pct, ..." (what --metric accepts).
std::vector<std::string> metric_names();
// "bars: time, rate, pct; sweep: time, rate, memory; traffic: bytes, sectors, conflicts, threads".
std::string metrics_by_kind();
// "time, rate or pct": the metrics of one kind, for messages.
std::string metric_list(PlotKind kind, const char* last_joiner = " or ");

}  // namespace kl
