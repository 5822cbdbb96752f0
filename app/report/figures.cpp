// [SECTION] index: formatting / choosing runs / rung bars / sweeps / correctness / traffic / roofline
#include "report/figures.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>

#include "plot/ticks.h"

namespace kl::gui {

namespace {

using plot::Figure;
using plot::Point;
using plot::Series;
using plot::SeriesKind;

// [SECTION] Formatting

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

struct TimeUnit {
    const char* name;
    double per_ms;  // value in this unit = ms x per_ms
};

// Microseconds for short kernels, so that bars read "12.5 µs" and not "0.0125 ms".
TimeUnit time_unit_for(double max_ms) { return max_ms < 1.0 ? TimeUnit{"\xC2\xB5s", 1000.0} : TimeUnit{"ms", 1.0}; }

int rung_color(const Rung& r) { return r.index; }

}  // namespace

std::string format_size_value(int64_t v) {
    std::string plain = plot::format_fixed(double(v), 0, true);
    if (is_pow2(v) && v >= 1024) return "2^" + std::to_string(int(std::log2(double(v)))) + " (" + plain + ")";
    return plain;
}

std::string format_sizes(const Sizes& sizes) {
    std::string s;
    for (const auto& [k, v] : sizes) s += (s.empty() ? "" : ", ") + k + " = " + plot::format_fixed(double(v), 0, true);
    return s;
}

std::string problem_caption(const PlotContext& ctx) {
    return plot::caption_of({ctx.device, format_sizes(ctx.sizes), ctx.dtype});
}

// [SECTION] Choosing runs

namespace {

// The run a rung is represented by: the current parameters for the step's rung, the rung's
// defaults for the others (either falls back to the newest run at these sizes).
const StoredRun* run_for(const ResultsStore& store, const PlotContext& ctx, const Rung& r) {
    ParamValues preferred;
    if (ctx.rung && ctx.rung->id == r.id) {
        preferred = ctx.params;
    } else {
        for (const auto& p : r.params) preferred[p.name] = p.default_value;
    }
    return store.latest(ctx.ladder->id, r.id, ctx.sizes, ctx.dtype, &preferred);
}

bool measured(const StoredRun* s) { return s && s->record.error.empty() && s->record.timing; }

// A counter as a number (docs/counters.md: keys hold dots, so whole-string look-ups), or NaN
// when the counters pass did not run or the metric is null.
double counter(const RunRecord& rec, const char* key) {
    const auto& k = rec.counters;
    if (!k.is_object()) return plot::kNoValue;
    auto it = k.find(key);
    if (it == k.end() || !it->is_number()) return plot::kNoValue;
    return it->get<double>();
}

// The calibration's ceiling for a rate axis, as the bars and the sweeps draw it: cuBLAS at the
// dtype for FLOP-bound ladders, else the measured copy bandwidth; nothing without a calibration.
std::optional<Series> calibration_rate_roof(const PlotContext& ctx, bool flops) {
    const auto& cal = ctx.calibration;
    if (!cal || !cal->valid()) return std::nullopt;
    if (!flops) return plot::make_hline("copy roof (measured)", cal->copy_gbps);
    double roof = ctx.dtype == "fp32" ? cal->sgemm_tflops : cal->bf16_tflops;
    if (!(roof > 0)) return std::nullopt;
    return plot::make_hline(std::string("cuBLAS ") + ctx.dtype + " (calibration, 4096^3)", roof);
}

}  // namespace

const Rung* library_reference_rung(const Ladder& ladder, const std::string& dtype) {
    for (const auto& r : ladder.rungs) {
        if (!r.reference || !r.compute.empty()) continue;
        for (DType d : r.dtypes)
            if (to_string(d) == dtype) return &r;
    }
    return nullptr;
}

const StoredRun* library_reference_run(const ResultsStore& store, const PlotContext& ctx) {
    const Rung* r = ctx.ladder ? library_reference_rung(*ctx.ladder, ctx.dtype) : nullptr;
    const StoredRun* s = r ? store.latest(ctx.ladder->id, r->id, ctx.sizes, ctx.dtype, nullptr) : nullptr;
    return measured(s) ? s : nullptr;
}

bool prefers_flops(const PlotContext& ctx, const ResultsStore& store) {
    if (!ctx.ladder) return false;
    for (const auto& s : store.runs()) {
        const RunRecord& r = s.record;
        if (r.ladder == ctx.ladder->id && r.ideal_bytes > 0 && r.flops > 0) return r.flops / r.ideal_bytes > 8.0;
    }
    return ctx.ladder->operation == "matmul" || ctx.ladder->operation == "attention";
}

// [SECTION] Rung bars

namespace {
// One bar's value for a run (NaN without a measured run), whiskers from the fastest and the
// slowest repetition.
Point bar_point(const StoredRun* s, double x, BarMetric metric, bool flops, const TimeUnit& tu) {
    Point p;
    p.x = x;
    p.y = plot::kNoValue;
    if (!measured(s)) return p;
    const RunRecord& rec = s->record;
    switch (metric) {
        case BarMetric::Time:
            p.y = rec.timing->median_ms * tu.per_ms;
            p.y_low = rec.timing->min_ms * tu.per_ms;
            p.y_high = rec.timing->max_ms * tu.per_ms;
            break;
        case BarMetric::Rate: {
            double v = flops ? rec.tflops : rec.gbps;
            p.y = v;
            if (rec.timing->min_ms > 0 && rec.timing->max_ms > 0) {
                p.y_high = v * rec.timing->median_ms / rec.timing->min_ms;
                p.y_low = v * rec.timing->median_ms / rec.timing->max_ms;
            }
            break;
        }
        case BarMetric::PercentOfReference:
            if (rec.pct_reference) p.y = *rec.pct_reference;
            break;
    }
    return p;
}

// Bars grouped by device: the first series (already in `out`) becomes the preferred device's,
// a second, hatched series holds `ctx.compare_device`'s runs of the same rungs at the same
// settings; the legend names both. Returns how many bars of the second device have data.
int add_device_bars(const ResultsStore& store, const PlotContext& ctx, BarMetric metric, bool flops, const TimeUnit& tu,
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
}  // namespace

BuiltFigure rung_bars(const ResultsStore& store, const PlotContext& ctx, BarMetric metric) {
    BuiltFigure out;
    if (!ctx.ladder) {
        out.empty_reason = "This step runs no kernel.";
        return out;
    }
    const Ladder& L = *ctx.ladder;
    bool flops = prefers_flops(ctx, store);
    Figure& f = out.figure;
    f.name = L.id + "_" +
             (metric == BarMetric::Time   ? "time"
              : metric == BarMetric::Rate ? (flops ? "tflops" : "gbps")
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
        f.x.categories.push_back(r.title);
        const StoredRun* s = out.bar_runs[i];
        out.bar_colors.push_back(rung_color(r));
        bars.point_colors.push_back(rung_color(r));
        ideal_bytes.push_back(measured(s) && s->record.ideal_bytes > 0 ? s->record.ideal_bytes : plot::kNoValue);
        Point p = bar_point(s, double(r.index), metric, flops, tu);
        if (std::isfinite(p.y)) ++with_data;
        bars.points.push_back(p);
    }
    f.series.push_back(bars);
    if (!ctx.compare_device.empty()) with_data += add_device_bars(store, ctx, metric, flops, tu, out);

    const auto& cal = ctx.calibration;
    switch (metric) {
        case BarMetric::Time:
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
        case BarMetric::Rate:
            if (flops) {
                f.title = "Achieved FLOP rate per rung";
                f.y.label = "Throughput";
                f.y.unit = "TFLOP/s";
                if (const StoredRun* ref = library_reference_run(store, ctx)) {
                    // The library at these very sizes, from the same results: the bar to reach.
                    f.series.push_back(plot::make_hline(ref->record.title + " at these sizes", ref->record.tflops));
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
        case BarMetric::PercentOfReference:
            f.title = "Speed relative to the reference (reference time / rung time)";
            f.y.label = "Share of reference speed";
            f.y.unit = "%";
            out.unit = "%";
            f.series.push_back(plot::make_hline("reference", 100.0));
            break;
    }
    if (with_data == 0) {
        out.empty_reason = metric == BarMetric::PercentOfReference
                               ? "No rung of this ladder has a reference comparison at these settings yet."
                               : "No results at these settings yet: run the rung or the ladder.";
    }
    if (!ctx.compare_device.empty())  // the ceilings are the first device's: say so
        for (auto& ser : f.series)
            if (ser.kind == SeriesKind::HLine && metric != BarMetric::PercentOfReference)
                ser.name += ", " + (ctx.device.empty() ? store.preferred_device() : ctx.device);
    return out;
}

// [SECTION] Sweeps

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Runs the runner refused before any GPU work because their buffers would not fit ("problem too
// large for GPU memory: buffer 'S' needs 64.00 GiB, ..."): a marked point at the sweep position,
// at the memory the message names, for every rung of the figure. Refused runs carry no
// parameters, so only the sizes are matched.
void add_refused_marks(const ResultsStore& store, const PlotContext& ctx, const std::string& axis, Figure& f) {
    static const std::regex needs(R"(needs ([0-9]+(\.[0-9]+)?) GiB)");
    std::map<std::pair<std::string, int64_t>, const StoredRun*> newest;
    for (const auto& s : store.runs()) {
        const RunRecord& x = s.record;
        if (x.ladder != ctx.ladder->id || x.dtype != ctx.dtype || x.error_kind != "input" ||
            x.error.find("too large") == std::string::npos)
            continue;
        auto v = axis_value(x, axis);
        if (!v) continue;
        bool same = true;
        for (const auto& [k, val] : ctx.sizes)
            if (k != axis) same &= x.sizes.count(k) && x.sizes.at(k) == val;
        if (!same) continue;
        auto& slot = newest[{x.rung, *v}];
        if (!slot || s.seq > slot->seq) slot = &s;
    }
    for (const auto& [key, s] : newest) {
        const Rung* r = ctx.ladder->find_rung(key.first);
        bool shown = false;
        for (const auto& series : f.series) shown |= r && series.name == r->title;
        if (!shown) continue;  // a rung the figure does not draw
        std::smatch m;
        plot::Annotation a;
        a.x = double(key.second);
        a.mark = true;
        a.color = rung_color(*r);
        if (std::regex_search(s->record.error, m, needs)) {
            a.y = std::stod(m[1].str());
            a.text = "refused: needs " + m[1].str() + " GiB";
        } else {
            a.at_axis_floor = true;
            a.text = "refused: too large for GPU memory";
        }
        f.annotations.push_back(a);
    }
}

}  // namespace

BuiltFigure sweep_lines(const ResultsStore& store, const PlotContext& ctx, const std::string& axis,
                        SweepMetric metric) {
    BuiltFigure out;
    if (!ctx.ladder || !ctx.rung) {
        out.empty_reason = "This step runs no kernel.";
        return out;
    }
    const Ladder& L = *ctx.ladder;
    bool is_size = ctx.sizes.count(axis) != 0;
    bool flops = prefers_flops(ctx, store);
    Figure& f = out.figure;
    f.name = L.id + "_sweep_" + axis;
    f.caption = problem_caption(ctx);

    // Which rungs: the step's rung, and for size sweeps every other rung with data at its defaults.
    struct Line {
        const Rung* rung;
        std::vector<const StoredRun*> runs;
    };
    std::vector<Line> lines;
    for (const auto& r : L.rungs) {
        bool selected = &r == ctx.rung || r.id == ctx.rung->id;
        if (!selected && !is_size) continue;
        ParamValues params;
        if (selected)
            params = ctx.params;
        else
            for (const auto& p : r.params) params[p.name] = p.default_value;
        auto runs = store.sweep(L.id, r.id, axis, ctx.sizes, params, ctx.dtype, ctx.tie);
        if (runs.size() >= (selected ? 1u : 2u)) lines.push_back({&r, runs});
    }
    double max_ms = 0;
    for (const auto& l : lines)
        for (const auto* s : l.runs) max_ms = std::max(max_ms, s->record.timing->median_ms);
    TimeUnit tu = time_unit_for(max_ms);

    std::vector<int64_t> values;  // category values for parameter sweeps
    if (!is_size) {
        for (const auto& l : lines)
            for (const auto* s : l.runs) values.push_back(*axis_value(s->record, axis));
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        for (int64_t v : values) f.x.categories.push_back(plot::format_fixed(double(v), 0, true));
        const ParamSpec* spec = ctx.rung->find_param(axis);
        f.x.label = axis + (spec && !spec->help.empty() ? " (" + spec->help + ")" : "");
    } else {
        f.x.label = axis;
        f.x.unit = "elements";
        f.x.scale = plot::Scale::Log10;
        f.x.padding = 0.04;
    }
    for (const auto& l : lines) {
        Series s;
        s.kind = SeriesKind::Line;
        s.name = l.rung->title;
        s.color = rung_color(*l.rung);
        std::vector<const StoredRun*> runs;
        for (const auto* r : l.runs) {
            const RunRecord& rec = r->record;
            double x = double(*axis_value(rec, axis));
            if (!is_size)
                x = double(std::lower_bound(values.begin(), values.end(), *axis_value(rec, axis)) - values.begin());
            double y = metric == SweepMetric::Time ? rec.timing->median_ms * tu.per_ms
                       : metric == SweepMetric::PeakMemory
                           ? (rec.peak_memory_bytes ? *rec.peak_memory_bytes / kGiB : plot::kNoValue)
                           : (flops ? rec.tflops : rec.gbps);
            s.points.push_back({x, y});
            runs.push_back(r);
        }
        f.series.push_back(s);
        out.point_runs.push_back(runs);
    }
    if (metric == SweepMetric::PeakMemory) {
        f.name = L.id + "_memory_" + axis;
        f.title = "Peak device memory vs " + axis + " (the problem's buffers and the rung's scratch)";
        f.y.label = "Peak device memory";
        f.y.unit = "GiB";
        f.y.scale = plot::Scale::Log10;
        out.unit = "GiB";
        out.y_scale = 1.0 / kGiB;
        if (is_size) add_refused_marks(store, ctx, axis, f);
    } else if (metric == SweepMetric::Time) {
        f.title = "Median time vs " + axis;
        f.y.label = "Median time";
        f.y.unit = tu.name;
        f.y.scale = is_size ? plot::Scale::Log10 : plot::Scale::Linear;
        f.y.include_zero = !is_size;
        out.unit = tu.name;
        out.y_scale = tu.per_ms;
    } else if (flops) {
        f.title = "Throughput vs " + axis;
        f.y.label = "Throughput";
        f.y.unit = "TFLOP/s";
        f.y.include_zero = true;
        out.unit = "TFLOP/s";
        if (auto roof = calibration_rate_roof(ctx, true)) f.series.push_back(*roof);
    } else {
        f.title = "Bandwidth vs " + axis;
        f.y.label = "Bandwidth";
        f.y.unit = "GB/s";
        f.y.include_zero = true;
        out.unit = "GB/s";
        if (auto roof = calibration_rate_roof(ctx, false)) f.series.push_back(*roof);
    }
    f.legend.placement = plot::LegendPlacement::Auto;
    if (lines.empty()) out.empty_reason = "No sweep over " + axis + " at these settings yet: press Sweep.";
    if (!lines.empty() && metric == SweepMetric::PeakMemory) {
        bool any = false;
        for (const auto& s : f.series)
            for (const auto& p : s.points) any |= s.kind == SeriesKind::Line && std::isfinite(p.y);
        if (!any)
            out.empty_reason = "These runs recorded no peak memory (results written before peak_memory_bytes existed).";
    }
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
        f.caption = plot::caption_of({ctx.device, format_sizes(run->record.sizes), run->record.dtype, c.summary()});
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
        f.x.categories.push_back(r.title);
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

// [SECTION] Traffic

BuiltFigure traffic_bars(const ResultsStore& store, const PlotContext& ctx) {
    return traffic_bars(store, ctx, TrafficMetric::Bytes);
}

BuiltFigure traffic_bars(const ResultsStore& store, const PlotContext& ctx, TrafficMetric metric) {
    BuiltFigure out;
    if (!ctx.ladder) {
        out.empty_reason = "This step runs no kernel.";
        return out;
    }
    Figure& f = out.figure;
    f.caption = problem_caption(ctx);
    f.x.label = "Rung";
    f.legend.placement = plot::LegendPlacement::Below;

    // The series of each metric: a name, a colour and how to read a run.
    struct Column {
        std::string name;
        int color;
        std::function<double(const RunRecord&)> value;
        bool counter;  // from the counters pass (hidden when no rung has it)
    };
    std::vector<Column> columns;
    switch (metric) {
        case TrafficMetric::Bytes:
            f.name = ctx.ladder->id + "_traffic";
            f.title = "Bytes moved per rung: ideal, the rung's model, and measured";
            f.y.label = "Traffic";
            f.y.unit = "MB";
            columns = {
                {"ideal (each input read once, output written once)", 6,
                 [](const RunRecord& r) { return r.ideal_bytes > 0 ? r.ideal_bytes / 1e6 : plot::kNoValue; }, false},
                {"rung model (manifest)", 1,
                 [](const RunRecord& r) { return r.model_bytes ? *r.model_bytes / 1e6 : plot::kNoValue; }, false},
                {"measured DRAM bytes (CUPTI counters)", 2,
                 [](const RunRecord& r) { return counter(r, "dram_bytes") / 1e6; }, true},
                {"measured L2 bytes (lts__t_bytes.sum)", 4,
                 [](const RunRecord& r) { return counter(r, "lts__t_bytes.sum") / 1e6; }, true}};
            break;
        case TrafficMetric::SectorsPerRequest:
            f.name = ctx.ladder->id + "_sectors_per_request";
            f.title = "Global memory sectors per request (4 = a coalesced fp32 warp, 32 = one sector per thread)";
            f.y.label = "Sectors per request";
            f.y.unit = "sectors";
            columns = {{"loads (sectors_per_request_ld)", 0,
                        [](const RunRecord& r) { return counter(r, "sectors_per_request_ld"); }, true},
                       {"stores (sectors_per_request_st)", 3,
                        [](const RunRecord& r) { return counter(r, "sectors_per_request_st"); }, true}};
            break;
        case TrafficMetric::BankConflicts:
            f.name = ctx.ladder->id + "_bank_conflicts";
            f.title = "Shared-memory bank conflicts per rung (extra wavefronts, loads and stores)";
            f.y.label = "Bank conflicts";
            f.y.unit = "millions";
            f.legend.placement = plot::LegendPlacement::Hidden;
            columns = {{"shared-memory bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum)", 0,
                        [](const RunRecord& r) {
                            return counter(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum") / 1e6;
                        },
                        true}};
            break;
    }
    std::vector<Series> series(columns.size());
    std::vector<bool> any(columns.size(), false);
    for (size_t c = 0; c < columns.size(); ++c) {
        series[c].kind = SeriesKind::Bars;
        series[c].name = columns[c].name;
        series[c].color = columns[c].color;
        series[c].value_labels = metric != TrafficMetric::Bytes;
    }
    int with_runs = 0;
    std::string note;  // the counters_note of a run without the counters asked for
    for (const auto& r : ctx.ladder->rungs) {
        f.x.categories.push_back(r.title);
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
    else if (metric != TrafficMetric::Bytes && !any_counter)
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
        if (s->record.flops <= 0) continue;
        const RunRecord& rec = s->record;
        // Intensity from measured DRAM bytes when the counters pass ran, else the rung's model,
        // else the ideal bytes (docs/counters.md).
        // A model counts global-memory requests, part of which L2 serves: such a point may sit
        // above the DRAM roof, so its legend entry says "(model)".
        double bytes = rec.model_bytes ? *rec.model_bytes : rec.ideal_bytes;
        const char* source = rec.model_bytes ? " (model)" : " (ideal bytes)";
        if (double dram = counter(rec, "dram_bytes"); dram > 0) {
            bytes = dram;
            source = "";
        }
        if (bytes <= 0) continue;
        double x = rec.flops / bytes;
        Series pt;
        pt.kind = SeriesKind::Scatter;
        pt.name = r.title + source;
        pt.color = rung_color(r);
        pt.points.push_back({x, rec.tflops});
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
        if (const StoredRun* library = library_reference_run(store, ctx)) peak = std::max(peak, library->record.tflops);
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

}  // namespace kl::gui
