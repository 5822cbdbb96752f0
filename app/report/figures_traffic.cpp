// Where the bytes go: traffic per rung (ideal, model, measured DRAM and L2 bytes; sectors per
// request; bank conflicts) and the roofline (rungs at their arithmetic intensity).
// [SECTION] index: traffic / roofline
#include <algorithm>
#include <cmath>
#include <functional>

#include "plot/ticks.h"
#include "report/figures.h"
#include "report/figures_common.h"

namespace kl::report {

using namespace detail;
using plot::Figure;
using plot::Point;
using plot::Series;
using plot::SeriesKind;

// [SECTION] Traffic

BuiltFigure traffic_bars(const ResultsStore& store, const PlotContext& ctx) {
    return traffic_bars(store, ctx, Metric::Bytes);
}

namespace {

// A series of the traffic plot: a name, a colour and how to read a run.
struct TrafficColumn {
    std::string name;
    int color;
    std::function<double(const RunRecord&)> value;
    bool counter;  // from the counters pass (hidden when no rung has it)
};

// The series of each traffic metric, with the figure's name, title and y axis.
std::vector<TrafficColumn> traffic_columns(Metric metric, const std::string& ladder_id, Figure& f) {
    std::vector<TrafficColumn> columns;
    f.y.unit = metric_info(metric).unit;
    switch (metric) {
        default:  // Metric::Bytes, the default
            f.name = ladder_id + "_traffic";
            f.title = "Bytes moved per rung: ideal, the rung's model, and measured";
            f.y.label = "Traffic";
            columns = {
                {"ideal (each input read once, output written once)", 6,
                 [](const RunRecord& r) {
                     return r.values.num(tag::ideal_bytes) > 0 ? r.values.num(tag::ideal_bytes) / 1e6 : plot::kNoValue;
                 },
                 false},
                {"rung model (manifest)", 1,
                 [](const RunRecord& r) {
                     return r.values.get(tag::model_bytes) ? *r.values.get(tag::model_bytes) / 1e6 : plot::kNoValue;
                 },
                 false},
                {"measured DRAM bytes (CUPTI counters)", 2,
                 [](const RunRecord& r) { return counter(r, "dram_bytes") / 1e6; }, true},
                {"measured L2 bytes (lts__t_bytes.sum)", 4,
                 [](const RunRecord& r) { return counter(r, "lts__t_bytes.sum") / 1e6; }, true}};
            break;
        case Metric::Sectors:
            f.name = ladder_id + "_sectors_per_request";
            f.title = "Global memory sectors per request (4 = a coalesced fp32 warp, 32 = one sector per thread)";
            f.y.label = "Sectors per request";
            columns = {{"loads (sectors_per_request_ld)", 0,
                        [](const RunRecord& r) { return counter(r, "sectors_per_request_ld"); }, true},
                       {"stores (sectors_per_request_st)", 3,
                        [](const RunRecord& r) { return counter(r, "sectors_per_request_st"); }, true}};
            break;
        case Metric::Conflicts:
            f.name = ladder_id + "_bank_conflicts";
            f.title = "Shared-memory bank conflicts per rung (extra wavefronts, loads and stores)";
            f.y.label = "Bank conflicts";
            f.legend.placement = plot::LegendPlacement::Hidden;
            columns = {{"shared-memory bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum)", 0,
                        [](const RunRecord& r) {
                            return counter(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum") / 1e6;
                        },
                        true}};
            break;
        case Metric::Threads:
            f.name = ladder_id + "_threads_per_inst";
            f.title = "Active threads per warp instruction (32 = no lane masked; 16 = every instruction half-masked)";
            f.y.label = "Threads per instruction";
            f.legend.placement = plot::LegendPlacement::Hidden;
            columns = {{"active threads per warp instruction (threads_per_inst)", 0,
                        [](const RunRecord& r) { return counter(r, "threads_per_inst"); }, true}};
            break;
    }
    return columns;
}

}  // namespace

BuiltFigure traffic_bars(const ResultsStore& store, const PlotContext& ctx, Metric metric) {
    BuiltFigure out;
    if (!ctx.ladder) {
        out.empty_reason = "This step runs no kernel.";
        return out;
    }
    if (metric != Metric::Sectors && metric != Metric::Conflicts && metric != Metric::Threads)
        metric = Metric::Bytes;  // the default
    Figure& f = out.figure;
    f.caption = problem_caption(ctx);
    f.x.label = "Rung";
    f.legend.placement = plot::LegendPlacement::Below;

    std::vector<TrafficColumn> columns = traffic_columns(metric, ctx.ladder->id, f);
    std::vector<Series> series(columns.size());
    std::vector<bool> any(columns.size(), false);
    for (size_t c = 0; c < columns.size(); ++c) {
        series[c].kind = SeriesKind::Bars;
        series[c].name = columns[c].name;
        series[c].color = columns[c].color;
        series[c].value_labels = metric != Metric::Bytes;
    }
    int with_runs = 0;
    std::string note;  // the counters_note of a run without the counters asked for
    for (const auto& r : ctx.ladder->rungs) {
        f.x.categories.push_back(rung_axis_label(r));
        const StoredRun* s = run_for(store, ctx, r);
        out.bar_runs.push_back(s);
        out.bar_colors.push_back(rung_color(r));
        bool usable = s && s->record.error.empty();
        with_runs += usable;
        for (size_t c = 0; c < columns.size(); ++c) {
            double v = usable ? columns[c].value(s->record) : plot::kNoValue;
            series[c].points.push_back({double(r.index), v});
            if (std::isfinite(v))
                any[c] = true;
            else if (usable && columns[c].counter && note.empty())
                note = s->record.counters_note;
        }
    }
    // One bar series: one colour per rung, as in the other per-rung plots.
    if (columns.size() == 1) series[0].point_colors = out.bar_colors;
    bool any_counter = false;
    for (size_t c = 0; c < columns.size(); ++c) {
        if (columns[c].counter && !any[c]) continue;  // not measured: no empty legend entry
        any_counter |= columns[c].counter;
        f.series.push_back(series[c]);
    }
    out.unit = f.y.unit;
    if (with_runs == 0)
        out.empty_reason = "No results at these settings yet.";
    else if (metric != Metric::Bytes && !any_counter)
        out.empty_reason =
            "No hardware counters for these runs: " + (note.empty() ? std::string("run with --counters") : note) + ".";
    return out;
}

// [SECTION] Roofline

BuiltFigure roofline(const ResultsStore& store, const PlotContext& ctx) {
    BuiltFigure out;
    if (!ctx.ladder) {
        out.empty_reason = "This step runs no kernel.";
        return out;
    }
    Figure& f = out.figure;
    f.name = ctx.ladder->id + "_roofline";
    f.title = "Rungs on this GPU's roofline (intensity: measured DRAM bytes, else the rung's model)";
    f.caption = problem_caption(ctx);
    f.x.label = "Arithmetic intensity";
    f.x.unit = "FLOP/byte";
    f.x.scale = plot::Scale::Log10;
    f.y.label = "Throughput";
    f.y.unit = "TFLOP/s";
    f.y.scale = plot::Scale::Log10;
    // Below the plot: rung names beside it took four tenths of the page.
    f.legend.placement = plot::LegendPlacement::Below;
    double xmin = 1e9, xmax = 0;
    bool any_measured = false;
    for (const auto& r : ctx.ladder->rungs) {
        const StoredRun* s = run_for(store, ctx, r);
        if (!measured(s)) continue;
        any_measured = true;
        if (s->record.values.num(tag::flops) <= 0) continue;
        const RunRecord& rec = s->record;
        // Intensity from measured DRAM bytes when the counters pass ran, else the rung's model,
        // else the ideal bytes (docs/counters.md).
        // A model counts global-memory requests, part of which L2 serves: such a point may sit
        // above the DRAM roof, so its legend entry says "(model)".
        double bytes =
            rec.values.get(tag::model_bytes) ? *rec.values.get(tag::model_bytes) : rec.values.num(tag::ideal_bytes);
        const char* source = rec.values.get(tag::model_bytes) ? " (model)" : " (ideal bytes)";
        if (double dram = counter(rec, "dram_bytes"); dram > 0) {
            bytes = dram;
            source = "";
        }
        if (bytes <= 0) continue;
        double x = rec.values.num(tag::flops) / bytes;
        Series pt;
        pt.kind = SeriesKind::Scatter;
        pt.name = r.label() + source;
        pt.color = rung_color(r);
        pt.points.push_back({x, rec.values.num(tag::tflops)});
        f.series.push_back(pt);
        out.point_runs.push_back({s});
        xmin = std::min(xmin, x);
        xmax = std::max(xmax, x);
    }
    if (out.point_runs.empty()) {
        out.empty_reason = any_measured
                               ? "These rungs do no arithmetic: they have no place on a roofline (see Traffic)."
                               : "No measured rung with a FLOP count at these settings yet.";
        return out;
    }
    if (ctx.calibration && ctx.calibration->valid()) {
        double peak = ctx.dtype == "fp32" ? std::max(ctx.calibration->fp32_peak_tflops, ctx.calibration->sgemm_tflops)
                                          : ctx.calibration->bf16_tflops;
        // The roof is the highest rate measured: the library at these sizes may beat the
        // calibration's (another moment, another duty cycle), and no point may sit above it.
        if (const StoredRun* library = library_reference_run(store, ctx))
            peak = std::max(peak, library->record.values.num(tag::tflops));
        double bw = ctx.calibration->copy_gbps / 1000.0;  // TFLOP/s per FLOP/byte = TB/s
        double lo = std::min(xmin / 4, 0.01), hi = std::max(xmax * 4, peak / bw * 4);
        plot::Series roof = plot::make_roofline("roof: copy bandwidth and peak (" + ctx.dtype + ")", peak, bw, lo, hi);
        roof.in_legend = true;
        // Drawn first, under the points.
        f.series.insert(f.series.begin(), roof);
        out.point_runs.insert(out.point_runs.begin(), std::vector<const StoredRun*>{});
    }
    out.unit = "TFLOP/s";
    return out;
}

}  // namespace kl::report
