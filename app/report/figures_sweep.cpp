// Sweeps: the step's rung (and for size sweeps every rung with data at its defaults) along a size
// axis or a parameter, as time, rate or peak memory; runs refused as too large are marked.
// [SECTION] index: refused runs / sweeps
#include <algorithm>
#include <cmath>
#include <regex>

#include "plot/ticks.h"
#include "report/figures.h"
#include "report/figures_common.h"

namespace kl::report {

using namespace detail;
using plot::Figure;
using plot::Point;
using plot::Series;
using plot::SeriesKind;

// [SECTION] Sweeps

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr size_t kHighlightAbove = 3;  // more lines than this: the step's rung highlighted, the rest faint
constexpr double kCloseSizes = 4;      // a size sweep spanning less than this factor gets one slot per value
constexpr size_t kManyBars = 12;       // ...and at most this many values

// Runs the runner refused before any GPU work because their buffers would not fit ("problem too
// large for GPU memory: buffer 'S' needs 64.00 GiB, ..."): a marked point at the sweep position,
// at the memory the message names, for every rung of the figure. Refused runs carry no
// parameters, so only the sizes are matched.
void add_refused_marks(const ResultsStore& store, const PlotContext& ctx, const std::string& axis, Figure& f) {
    static const std::regex needs(R"(needs ([0-9]+(\.[0-9]+)?) GiB)");
    std::map<std::pair<std::string, int64_t>, const StoredRun*> newest;
    for (const auto& s : store.runs()) {
        const RunRecord& x = s.record;
        if (x.ladder != ctx.ladder->id || to_string(x.dtype) != ctx.dtype || x.error_kind != "input" ||
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

// A line of a sweep: one rung's runs along the axis.
struct SweepLine {
    const Rung* rung;
    std::vector<const StoredRun*> runs;
};

// Which rungs: the step's rung, and for size sweeps every other rung with data at its defaults.
std::vector<SweepLine> lines_of(const ResultsStore& store, const PlotContext& ctx, const std::string& axis,
                                bool is_size) {
    const Ladder& L = *ctx.ladder;
    std::vector<SweepLine> lines;
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
    return lines;
}

// The y axis, the title and the ceiling of each sweep metric.
void label_sweep_y(const ResultsStore& store, const PlotContext& ctx, const std::string& axis, Metric metric,
                   bool is_size, bool flops, const TimeUnit& tu, BuiltFigure& out) {
    const Ladder& L = *ctx.ladder;
    Figure& f = out.figure;
    if (metric == Metric::Memory) {
        f.name = L.id + "_memory_" + axis;
        f.title = "Peak device memory vs " + axis + " (the problem's buffers and the rung's scratch)";
        f.y.label = "Peak device memory";
        f.y.unit = metric_info(Metric::Memory).unit;
        f.y.scale = plot::Scale::Log10;
        out.unit = f.y.unit;
        out.y_scale = 1.0 / kGiB;
        if (is_size) add_refused_marks(store, ctx, axis, f);
    } else if (metric == Metric::Time) {
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
}

// The problem without the swept axis, whose values are the x axis, and with the axes tied to it
// said as such: "M = N = K" swept reads "K, M = N (swept)", not the step's one size.
std::string sweep_caption(const PlotContext& ctx, const std::string& axis, bool is_size) {
    if (!is_size) return problem_caption(ctx);
    Sizes fixed;
    std::string tied;
    for (const auto& [k, v] : ctx.sizes) {
        if (k == axis) continue;
        if (std::find(ctx.tie.begin(), ctx.tie.end(), k) != ctx.tie.end())
            tied += k + " = ";
        else
            fixed[k] = v;
    }
    const std::string swept = tied + axis + " (swept)";
    return plot::caption_of({ctx.device, fixed.empty() ? swept : format_sizes(fixed) + ", " + swept, ctx.dtype});
}

}  // namespace

BuiltFigure sweep_lines(const ResultsStore& store, const PlotContext& ctx, const std::string& axis, Metric metric) {
    BuiltFigure out;
    if (!ctx.ladder || !ctx.rung) {
        out.empty_reason = "This step runs no kernel.";
        return out;
    }
    if (metric != Metric::Time && metric != Metric::Memory) metric = Metric::Rate;  // the default
    const Ladder& L = *ctx.ladder;
    bool is_size = ctx.sizes.count(axis) != 0;
    bool flops = prefers_flops(ctx, store);
    Figure& f = out.figure;
    f.name = L.id + "_sweep_" + axis;
    f.caption = sweep_caption(ctx, axis, is_size);

    std::vector<SweepLine> lines = lines_of(store, ctx, axis, is_size);
    // Many lines read as a tangle: the step's rung leads (first in the legend, drawn last) and
    // the others are faint context.
    const bool highlight = lines.size() > kHighlightAbove;
    std::stable_partition(lines.begin(), lines.end(), [&](const SweepLine& l) { return l.rung->id == ctx.rung->id; });
    double max_ms = 0;
    for (const auto& l : lines)
        for (const auto* s : l.runs) max_ms = std::max(max_ms, s->record.timing->median_ms);
    TimeUnit tu = time_unit_for(max_ms);

    std::vector<int64_t> values;  // the measured axis values
    for (const auto& l : lines)
        for (const auto* s : l.runs) values.push_back(*axis_value(s->record, axis));
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    // Parameters, and sizes measured at a few close values (1792, 1793, 2048, 2049: within a
    // factor of kCloseSizes), get one slot per value: on a size axis they would crowd together.
    const bool slots = !is_size || (metric != Metric::Memory && values.size() >= 2 && values.size() <= kManyBars &&
                                    values.front() > 0 && double(values.back()) / double(values.front()) < kCloseSizes);
    if (slots) {
        for (int64_t v : values) f.x.categories.push_back(plot::format_fixed(double(v), 0, true));
        const ParamSpec* spec = is_size ? nullptr : ctx.rung->find_param(axis);
        f.x.label = axis + (spec && !spec->help.empty() ? " (" + spec->help + ")" : "");
        if (is_size) f.x.unit = "elements";
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
        s.faint = highlight && l.rung->id != ctx.rung->id;
        std::vector<const StoredRun*> runs;
        for (const auto* r : l.runs) {
            const RunRecord& rec = r->record;
            double x = double(*axis_value(rec, axis));
            if (slots)
                x = double(std::lower_bound(values.begin(), values.end(), *axis_value(rec, axis)) - values.begin());
            double y = metric == Metric::Time ? rec.timing->median_ms * tu.per_ms
                       : metric == Metric::Memory
                           ? (rec.values.get(tag::peak_memory_bytes) ? *rec.values.get(tag::peak_memory_bytes) / kGiB
                                                                     : plot::kNoValue)
                           : (flops ? rec.values.num(tag::tflops) : rec.values.num(tag::gbps));
            s.points.push_back({x, y});
            runs.push_back(r);
        }
        f.series.push_back(s);
        out.point_runs.push_back(runs);
    }
    label_sweep_y(store, ctx, axis, metric, is_size, flops, tu, out);
    f.legend.placement = plot::LegendPlacement::Auto;
    if (lines.empty()) out.empty_reason = "No sweep over " + axis + " at these settings yet: press Sweep.";
    if (!lines.empty() && metric == Metric::Memory) {
        bool any = false;
        for (const auto& s : f.series)
            for (const auto& p : s.points) any |= s.kind == SeriesKind::Line && std::isfinite(p.y);
        if (!any)
            out.empty_reason = "These runs recorded no peak memory (results written before peak_memory_bytes existed).";
    }
    return out;
}

}  // namespace kl::report
