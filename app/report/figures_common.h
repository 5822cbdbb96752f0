// Helpers the figure builders share (figures*.cpp): how a rung is represented, counters, the
// calibration's ceilings, the time unit. Internal to app/report.
#pragma once
#include <optional>
#include <string>

#include "plot/plot_model.h"
#include "report/figures.h"

namespace kl::report::detail {

struct TimeUnit {
    const char* name;
    double per_ms;  // value in this unit = ms x per_ms
};

// Microseconds for short kernels, so that bars read "12.5 µs" and not "0.0125 ms".
inline TimeUnit time_unit_for(double max_ms) {
    return max_ms < 1.0 ? TimeUnit{"\xC2\xB5s", 1000.0} : TimeUnit{"ms", 1.0};
}

// One colour per rung across all plots: its position in the ladder.
inline int rung_color(const Rung& r) { return r.index; }

// A rung on a plot's axis: its number, as the strip and `kladder list` show it, and its name
// ("07 Warp tiling"); the window keeps the number alone when names do not fit.
inline std::string rung_axis_label(const Rung& r) { return r.number.empty() ? r.label() : r.number + " " + r.label(); }

inline bool measured(const StoredRun* s) { return s && s->record.error.empty() && s->record.timing; }

// The run a rung is represented by: the current parameters for the step's rung, the rung's
// defaults for the others (either falls back to the newest run at these sizes).
const StoredRun* run_for(const ResultsStore& store, const PlotContext& ctx, const Rung& r);

// A counter as a number (docs/counters.md: keys hold dots, so whole-string look-ups), or NaN
// when the counters pass did not run or the metric is null.
double counter(const RunRecord& rec, const char* key);

// The calibration's ceiling for a rate axis, as the bars and the sweeps draw it: cuBLAS at the
// dtype for FLOP-bound ladders, else the measured copy bandwidth; nothing without a calibration.
std::optional<plot::Series> calibration_rate_roof(const PlotContext& ctx, bool flops);

}  // namespace kl::report::detail
