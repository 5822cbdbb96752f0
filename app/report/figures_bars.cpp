// The per-rung figures: one bar per rung of the selected metric with its ceiling (bars grouped
// by device when a second one is compared), and correctness (error map, or relative error per
// rung against the tolerance).
// [SECTION] index: rung bars / correctness
#include <algorithm>
#include <cmath>

#include "plot/ticks.h"
#include "report/figures.h"
#include "report/figures_common.h"

namespace kl::report {

using namespace detail;
using plot::Figure;
using plot::Point;
using plot::Series;
using plot::SeriesKind;

// [SECTION] Rung bars

namespace {
// One bar's value for a run (NaN without a measured run), whiskers from the fastest and the
// slowest repetition.
Point bar_point(const StoredRun* s, double x, Metric metric, bool flops, const TimeUnit& tu) {
    Point p;
    p.x = x;
    p.y = plot::kNoValue;
    if (!measured(s)) return p;
    const RunRecord& rec = s->record;
    switch (metric) {
        case Metric::Time:
            p.y = rec.timing->median_ms * tu.per_ms;
            p.y_low = rec.timing->min_ms * tu.per_ms;
            p.y_high = rec.timing->max_ms * tu.per_ms;
            break;
        case Metric::Rate: {
            double v = flops ? rec.values.num(tag::tflops) : rec.values.num(tag::gbps);
            p.y = v;
            if (rec.timing->min_ms > 0 && rec.timing->max_ms > 0) {
                p.y_high = v * rec.timing->median_ms / rec.timing->min_ms;
                p.y_low = v * rec.timing->median_ms / rec.timing->max_ms;
            }
            break;
        }
        default:  // Metric::Percent
            if (rec.values.get(tag::pct_reference)) p.y = *rec.values.get(tag::pct_reference);
            break;
    }
    return p;
}

// Bars grouped by device: the first series (already in `out`) becomes the preferred device's,
// a second, hatched series holds `ctx.compare_device`'s runs of the same rungs at the same
// settings; the legend names both. Returns how many bars of the second device have data.
int add_device_bars(const ResultsStore& store, const PlotContext& ctx, Metric metric, bool flops, const TimeUnit& tu,
                    BuiltFigure& out) {
    const Ladder& L = *ctx.ladder;
    Series second;
    second.kind = SeriesKind::Bars;
    second.name = ctx.compare_device;
    second.value_labels = true;
    second.color = 1;
    second.hatch = 1;
    int with_data = 0;
    for (const auto& r : L.rungs) {
        ParamValues preferred;
        if (ctx.rung && ctx.rung->id == r.id)
            preferred = ctx.params;
        else
            for (const auto& p : r.params) preferred[p.name] = p.default_value;
        const StoredRun* s = store.latest_on(ctx.compare_device, L.id, r.id, ctx.sizes, ctx.dtype, &preferred);
        out.compare_runs.push_back(s);
        second.point_colors.push_back(rung_color(r));
        Point p = bar_point(s, double(r.index), metric, flops, tu);
        if (std::isfinite(p.y)) ++with_data;
        second.points.push_back(p);
    }
    Series& first = out.figure.series.front();
    first.name = ctx.device.empty() ? store.preferred_device() : ctx.device;
    first.in_legend = true;
    out.figure.legend.placement = plot::LegendPlacement::Below;
    out.figure.series.push_back(second);
    out.figure.caption += "  \xC2\xB7  bars grouped by device (hatched: " + ctx.compare_device + ")";
    return with_data;
}
// The y axis, the title and the ceiling of each bar metric: the copy roof as time (one line, or a
// mark per rung when rungs move different bytes), the library or calibrated rate, 100 %.
void label_bars(const ResultsStore& store, const PlotContext& ctx, Metric metric, bool flops, const TimeUnit& tu,
                const std::vector<double>& ideal_bytes, BuiltFigure& out) {
    const Ladder& L = *ctx.ladder;
    Figure& f = out.figure;
    const auto& cal = ctx.calibration;
    switch (metric) {
        case Metric::Time:
            f.title = "Median time per rung";
            f.y.label = "Median time";
            f.y.unit = tu.name;
            out.unit = tu.name;
            out.y_scale = tu.per_ms;
            if (cal && cal->valid() && !flops) {
                // Each rung's own floor: its ideal bytes at the measured copy bandwidth. One line when
                // all rungs move the same bytes; a mark per bar when they differ (vector_add moves
                // 12n bytes, GeLU 8n).
                auto at_roof = [&](double bytes) { return bytes / (cal->copy_gbps * 1e9) * 1e3 * tu.per_ms; };
                std::vector<double> known;
                for (double b : ideal_bytes)
                    if (std::isfinite(b)) known.push_back(b);
                bool same = !known.empty() &&
                            std::all_of(known.begin(), known.end(), [&](double b) { return b == known.front(); });
                if (same) {
                    f.series.push_back(plot::make_hline("time at the copy roof", at_roof(known.front())));
                } else if (!known.empty()) {
                    Series marks;
                    marks.kind = SeriesKind::BarMarks;
                    marks.name = "time at the copy roof (each rung's ideal bytes)";
                    for (size_t i = 0; i < L.rungs.size(); ++i)
                        marks.points.push_back({double(L.rungs[i].index), std::isfinite(ideal_bytes[i])
                                                                              ? at_roof(ideal_bytes[i])
                                                                              : plot::kNoValue});
                    f.series.push_back(marks);
                    f.series.front().in_legend = false;  // the bars are named under the axis
                    f.legend.placement = plot::LegendPlacement::Below;
                }
            }
            break;
        case Metric::Rate:
            if (flops) {
                f.title = "Achieved FLOP rate per rung";
                f.y.label = "Throughput";
                f.y.unit = "TFLOP/s";
                if (const StoredRun* ref = library_reference_run(store, ctx)) {
                    // The library at these very sizes, from the same results: the bar to reach.
                    f.series.push_back(
                        plot::make_hline(ref->record.title + " at these sizes", ref->record.values.num(tag::tflops)));
                } else if (auto roof = calibration_rate_roof(ctx, true)) {
                    f.series.push_back(*roof);
                }
            } else {
                f.title = "Achieved bandwidth per rung (ideal bytes / time)";
                f.y.label = "Bandwidth";
                f.y.unit = "GB/s";
                if (auto roof = calibration_rate_roof(ctx, false)) f.series.push_back(*roof);
            }
            out.unit = f.y.unit;
            break;
        default:  // Metric::Percent
            f.title = "Speed relative to the reference (reference time / rung time)";
            f.y.label = "Share of reference speed";
            f.y.unit = metric_info(Metric::Percent).unit;
            out.unit = f.y.unit;
            f.series.push_back(plot::make_hline("reference", 100.0));
            break;
    }
}
// Bandwidth bars: each rung's own roof, the best calibrated kernel of its read:write mix
// (model/roof.h), marked on its bar where it is not the copy line; and the rungs a correct run
// put above it by more than their spread, named in the caption as the measuring errors they are.
void mark_own_roofs(const PlotContext& ctx, BuiltFigure& out) {
    Figure& f = out.figure;
    Series marks;
    marks.kind = SeriesKind::BarMarks;
    marks.name = "each rung's roof (its read:write mix)";
    bool differs = false;
    std::string above;
    const Ladder& L = *ctx.ladder;
    for (size_t i = 0; i < L.rungs.size(); ++i) {
        const StoredRun* s = out.bar_runs[i];
        const double roof = measured(s) ? s->record.values.num(tag::roof_gbps) : plot::kNoValue;
        const bool known = std::isfinite(roof) && roof > 0;
        marks.points.push_back({double(L.rungs[i].index), known ? roof : plot::kNoValue});
        if (known && ctx.calibration && std::fabs(roof / ctx.calibration->copy_gbps - 1) > 0.005) differs = true;
        if (known && s->record.values.num(tag::above_roof) > 0)
            above += (above.empty() ? "" : ", ") + rung_axis_label(L.rungs[i]);
    }
    if (differs) {
        f.series.push_back(marks);
        f.caption += " · a tick on a bar: that rung's own roof, for its read:write mix";
    }
    if (!above.empty()) f.caption += " · above its own roof by more than its spread (a measuring error): " + above;
}
}  // namespace

BuiltFigure rung_bars(const ResultsStore& store, const PlotContext& ctx, Metric metric) {
    BuiltFigure out;
    if (!ctx.ladder) {
        out.empty_reason = "This step runs no kernel.";
        return out;
    }
    if (metric != Metric::Time && metric != Metric::Percent) metric = Metric::Rate;  // the default
    const Ladder& L = *ctx.ladder;
    bool flops = prefers_flops(ctx, store);
    Figure& f = out.figure;
    f.name = L.id + "_" +
             (metric == Metric::Time   ? "time"
              : metric == Metric::Rate ? (flops ? "tflops" : "gbps")
                                       : "pct_reference");
    f.caption = problem_caption(ctx);
    f.legend.placement = plot::LegendPlacement::Hidden;
    f.x.label = "Rung";
    Series bars;
    bars.kind = SeriesKind::Bars;
    bars.name = L.title;
    bars.value_labels = true;
    bars.color = 0;

    // One look-up per rung (each scans the store): the time unit needs every run before the bars.
    for (const auto& r : L.rungs) out.bar_runs.push_back(run_for(store, ctx, r));
    double max_ms = 0;
    for (const StoredRun* s : out.bar_runs)
        if (measured(s)) max_ms = std::max(max_ms, s->record.timing->median_ms);
    TimeUnit tu = time_unit_for(max_ms);
    int with_data = 0;
    std::vector<double> ideal_bytes;  // per rung (NaN without a measured run)
    for (size_t i = 0; i < L.rungs.size(); ++i) {
        const Rung& r = L.rungs[i];
        f.x.categories.push_back(rung_axis_label(r));
        const StoredRun* s = out.bar_runs[i];
        out.bar_colors.push_back(rung_color(r));
        bars.point_colors.push_back(rung_color(r));
        ideal_bytes.push_back(measured(s) && s->record.values.num(tag::ideal_bytes) > 0
                                  ? s->record.values.num(tag::ideal_bytes)
                                  : plot::kNoValue);
        Point p = bar_point(s, double(r.index), metric, flops, tu);
        if (std::isfinite(p.y)) ++with_data;
        bars.points.push_back(p);
    }
    // A gap is said, not filled: the store answers for one device (results_store.h), so a rung
    // that device did not run has no bar.
    for (size_t i = 0; i < L.rungs.size(); ++i)
        if (!out.bar_runs[i] && with_data > 0)
            out.not_recorded += (out.not_recorded.empty() ? "" : ", ") + rung_axis_label(L.rungs[i]);
    f.series.push_back(bars);
    if (!ctx.compare_device.empty()) with_data += add_device_bars(store, ctx, metric, flops, tu, out);

    label_bars(store, ctx, metric, flops, tu, ideal_bytes, out);
    if (metric == Metric::Rate && !flops && with_data > 0) mark_own_roofs(ctx, out);
    if (with_data == 0) {
        out.empty_reason = metric == Metric::Percent
                               ? "No rung of this ladder has a reference comparison at these settings yet."
                               : "No results at these settings yet: run the rung or the ladder.";
    }
    if (!ctx.compare_device.empty())  // the ceilings are the first device's: say so
        for (auto& ser : f.series)
            if (ser.kind == SeriesKind::HLine && metric != Metric::Percent)
                ser.name += ", " + (ctx.device.empty() ? store.preferred_device() : ctx.device);
    return out;
}

// [SECTION] Correctness

BuiltFigure correctness(const ResultsStore& store, const PlotContext& ctx, const StoredRun* run) {
    BuiltFigure out;
    Figure& f = out.figure;
    if (run && run->record.correctness && run->record.correctness->error_map.rows > 0) {
        const Correctness& c = *run->record.correctness;
        const ErrorMap& m = c.error_map;
        f.name = run->record.ladder + "_" + run->record.rung + "_error_map";
        f.title = "Where " + run->record.title + " is wrong: share of failing elements per cell";
        f.caption =
            plot::caption_of({ctx.device, format_sizes(run->record.sizes), to_string(run->record.dtype), c.summary()});
        plot::Heatmap h;
        h.rows = m.rows;
        h.cols = m.cols;
        h.values.assign(m.fraction_bad.begin(), m.fraction_bad.end());
        for (auto& v : h.values) v *= 100.0;
        h.x_extent = {0.0, double(m.source_cols)};
        h.y_extent = {0.0, double(m.source_rows)};
        h.value_label = "failing";
        h.value_unit = "%";
        h.value_min = 0.0;
        h.value_max = 100.0;
        h.equal_aspect = false;
        f.heatmap = h;
        f.x.label = "Output column";
        f.x.unit = "element";
        f.y.label = "Output row";
        f.y.unit = "element";
        f.x.grid = f.y.grid = false;
        f.legend.placement = plot::LegendPlacement::Hidden;
        out.unit = "%";
        return out;
    }
    if (!ctx.ladder) {
        out.empty_reason = "This step runs no kernel.";
        return out;
    }
    // 1-D outputs: the relative L2 error of every rung on a log axis, against the tolerance.
    f.name = ctx.ladder->id + "_rel_l2";
    f.title = "Relative L2 error against the reference";
    f.caption = problem_caption(ctx);
    f.x.label = "Rung";
    f.y.label = "Relative L2 error";
    f.y.unit = "ratio";
    f.y.scale = plot::Scale::Log10;
    f.legend.placement = plot::LegendPlacement::Hidden;
    Series bars;
    bars.kind = SeriesKind::Bars;
    bars.name = "relative L2 error";
    bars.color = 0;
    bars.value_labels = true;
    double tolerance = 0;
    int with_data = 0;
    for (const auto& r : ctx.ladder->rungs) {
        f.x.categories.push_back(rung_axis_label(r));
        const StoredRun* s = run_for(store, ctx, r);
        out.bar_runs.push_back(s);
        out.bar_colors.push_back(rung_color(r));
        bars.point_colors.push_back(rung_color(r));
        Point p{double(r.index), plot::kNoValue};
        if (s && s->record.correctness) {
            const Correctness& c = *s->record.correctness;
            // The value as measured (the CSV says 0 for an exact match). A log axis cannot show 0:
            // an exact rung gets no bar but a mark at the bottom of the axis labelled "exact".
            p.y = c.rel_l2;
            if (c.rel_l2 == 0) {
                plot::Annotation exact;
                exact.x = double(r.index);
                exact.at_axis_floor = true;
                exact.mark = true;
                exact.color = rung_color(r);
                exact.text = "exact";
                f.annotations.push_back(exact);
            }
            tolerance = std::max(tolerance, c.tolerance.rel);
            ++with_data;
        }
        bars.points.push_back(p);
    }
    f.series.push_back(bars);
    if (tolerance > 0) f.series.push_back(plot::make_hline("tolerance (relative)", tolerance));
    out.unit = "";
    if (with_data == 0) out.empty_reason = "No checked results at these settings yet.";
    return out;
}

}  // namespace kl::report
