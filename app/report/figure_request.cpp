// [SECTION] index: names / loading / lesson steps / choosing defaults / building
#include "report/figure_request.h"

#include <algorithm>
#include <map>

#include "engine/json_input.h"
#include "engine/atomic_file.h"
#include "engine/errors.h"
#include "plot/plot_model.h"

namespace kl::report {

// [SECTION] Names

std::optional<PlotKind> plot_kind_from_name(const std::string& name) {
    static const std::map<std::string, PlotKind> kinds = {{"bars", PlotKind::Bars},
                                                          {"sweep", PlotKind::Sweep},
                                                          {"roofline", PlotKind::Roofline},
                                                          {"traffic", PlotKind::Traffic},
                                                          {"errors", PlotKind::Errors}};
    auto it = kinds.find(name);
    if (it == kinds.end()) return std::nullopt;
    return it->second;
}

const char* plot_kind_name(PlotKind kind) {
    switch (kind) {
        case PlotKind::Bars: return "bars";
        case PlotKind::Sweep: return "sweep";
        case PlotKind::Roofline: return "roofline";
        case PlotKind::Traffic: return "traffic";
        case PlotKind::Errors: return "errors";
    }
    return "?";
}

std::optional<Metric> metric_from_name(const std::string& name) {
    if (name == "time") return Metric::Time;
    if (name == "rate") return Metric::Rate;
    if (name == "pct") return Metric::Percent;
    if (name == "memory") return Metric::Memory;
    if (name == "bytes") return Metric::Bytes;
    if (name == "sectors") return Metric::Sectors;
    if (name == "conflicts") return Metric::Conflicts;
    return std::nullopt;
}

std::string date_of(const std::string& iso_time) {
    return iso_time.size() >= 10 && iso_time[4] == '-' ? iso_time.substr(0, 10) : iso_time;
}

// [SECTION] Loading

LoadedResults load_results_for_export(const std::string& path) {
    LoadedResults out;
    out.path = path;
    out.bytes = read_file(path);
    out.file = results_from_json(parse_json_limited(out.bytes, path), path);
    out.store.add_file(out.file, path);
    return out;
}

// [SECTION] Lesson steps

FigureRequest request_for_step(const LessonStep& step) {
    FigureRequest r;
    // The occupancy view is the window's calculator, not a figure of results: a handout shows
    // the step's rung bars instead.
    auto kind = plot_kind_from_name(step.plot == "occupancy" ? "bars" : step.plot);
    if (!kind)
        throw InputError("step '" + step.title + "': plot '" + step.plot +
                         "' is not one of bars, sweep, roofline, traffic, errors");
    r.plot = *kind;
    r.ladder = step.ladder;
    r.rung = step.rung;
    r.axis = step.sweep_axis;
    r.tie = step.sweep_tie;
    r.sizes = step.sizes;
    r.params = step.params;
    r.dtype = step.dtype;
    if (!step.metric.empty()) {
        auto m = metric_from_name(step.metric);
        if (!m) throw InputError("step '" + step.title + "': unknown metric '" + step.metric + "'");
        r.metric = *m;
    }
    return r;
}

// [SECTION] Choosing defaults

namespace {

std::string join_keys(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
}

const Ladder& pick_ladder(const LoadedResults& results, const std::vector<Ladder>& ladders, const std::string& wanted) {
    std::vector<std::string> in_results;
    for (const auto& run : results.file.runs)
        if (std::find(in_results.begin(), in_results.end(), run.ladder) == in_results.end())
            in_results.push_back(run.ladder);
    std::string id = wanted;
    if (id.empty()) {
        if (in_results.size() != 1)
            throw InputError(results.path + ": " +
                             (in_results.empty() ? "holds no runs"
                                                 : "holds runs of several ladders (" + join_keys(in_results) + ")") +
                             ": name one with --ladder");
        id = in_results.front();
    }
    for (const auto& L : ladders)
        if (L.id == id) return L;
    std::vector<std::string> known;
    for (const auto& L : ladders) known.push_back(L.id);
    throw InputError("unknown ladder '" + id + "' (ladders: " + join_keys(known) + ")");
}

// The rung with the most runs in the results (ties: the earlier rung of the ladder).
const Rung* busiest_rung(const LoadedResults& results, const Ladder& L) {
    const Rung* best = nullptr;
    size_t best_count = 0;
    for (const auto& r : L.rungs) {
        size_t n = std::count_if(results.file.runs.begin(), results.file.runs.end(),
                                 [&](const RunRecord& x) { return x.ladder == L.id && x.rung == r.id; });
        if (n > best_count) best = &r, best_count = n;
    }
    return best;
}

// The run whose problem the figure shows when the request leaves it open: the newest run of
// `rung` (else of any rung of the ladder) that fits the sizes and dtype given, preferring one at
// the ladder's default sizes (a size sweep's small points are not "the" problem).
const RunRecord* representative_run(const LoadedResults& results, const Ladder& L, const Rung* rung,
                                    const FigureRequest& req) {
    std::map<std::string, int64_t> defaults(L.default_sizes.begin(), L.default_sizes.end());
    for (const auto& [k, v] : req.sizes) defaults[k] = v;
    auto fits = [&](const RunRecord& x, bool same_rung, bool at_defaults) {
        if (x.ladder != L.id || (same_rung && rung && x.rung != rung->id)) return false;
        if (!req.dtype.empty() && x.dtype != req.dtype) return false;
        for (const auto& [k, v] : at_defaults ? defaults : req.sizes)
            if (k != req.axis && std::find(req.tie.begin(), req.tie.end(), k) == req.tie.end() &&
                (!x.sizes.count(k) || x.sizes.at(k) != v))
                return false;
        return true;
    };
    for (bool at_defaults : {true, false})
        for (bool same_rung : {true, false})
            for (auto it = results.file.runs.rbegin(); it != results.file.runs.rend(); ++it)
                if (fits(*it, same_rung, at_defaults)) return &*it;
    return nullptr;
}

Metric default_metric(PlotKind plot, bool size_axis) {
    if (plot == PlotKind::Sweep) return size_axis ? Metric::Time : Metric::Rate;
    if (plot == PlotKind::Traffic) return Metric::Bytes;
    return Metric::Rate;
}

std::string describe_problem(const figs::PlotContext& ctx) {
    std::string s = figs::format_sizes(ctx.sizes) + ", " + ctx.dtype;
    if (ctx.rung) s += ", rung " + ctx.rung->id;
    return s;
}

}  // namespace

// [SECTION] Building

ExportFigure build_export_figure(const LoadedResults& results, const std::vector<Ladder>& ladders,
                                 const FigureRequest& req, bool caption) {
    const Ladder& L = pick_ladder(results, ladders, req.ladder);
    const Rung* rung = nullptr;
    if (!req.rung.empty()) {
        rung = L.find_rung(req.rung);
        if (!rung) {
            std::vector<std::string> ids;
            for (const auto& r : L.rungs) ids.push_back(r.id);
            throw InputError("ladder '" + L.id + "' has no rung '" + req.rung + "' (rungs: " + join_keys(ids) + ")");
        }
    } else {
        rung = busiest_rung(results, L);
        if (!rung && !L.rungs.empty()) rung = &L.rungs.front();
    }

    figs::PlotContext ctx;
    ctx.ladder = &L;
    ctx.rung = rung;
    // Sizes and parameters as the workbook resolves a step: ladder defaults, then (when the
    // request leaves them open) the values the results were measured at, then the request's.
    for (const auto& [k, v] : L.default_sizes) ctx.sizes[k] = v;
    const RunRecord* rep = representative_run(results, L, rung, req);
    if (rep) {
        for (const auto& [k, v] : rep->sizes)
            if (ctx.sizes.count(k)) ctx.sizes[k] = v;
    }
    for (const auto& [k, v] : req.sizes) {
        if (!ctx.sizes.count(k)) throw InputError("ladder '" + L.id + "' has no size '" + k + "'");
        ctx.sizes[k] = v;
    }
    ctx.dtype = !req.dtype.empty() ? req.dtype : rep ? rep->dtype : "fp32";
    if (rung) {
        for (const auto& p : rung->params) ctx.params[p.name] = p.default_value;
        if (rep && rep->rung == rung->id && req.params.empty())
            for (const auto& [k, v] : rep->params)
                if (rung->find_param(k)) ctx.params[k] = v;
        for (const auto& [k, v] : req.params) {
            if (!rung->find_param(k)) throw InputError("rung '" + rung->id + "' has no parameter '" + k + "'");
            ctx.params[k] = v;
        }
    }
    ctx.calibration = results.store.calibration();
    ctx.device = results.file.device ? results.file.device->name : std::string();
    for (const auto& t : req.tie) {
        if (!ctx.sizes.count(t) || !ctx.sizes.count(req.axis))
            throw InputError("--tie: '" + t + "' is not a size axis of '" + L.id + "' tied to a size sweep");
        ctx.tie.push_back(t);
    }

    const bool size_axis = ctx.sizes.count(req.axis) != 0;
    Metric metric = req.metric == Metric::Default ? default_metric(req.plot, size_axis) : req.metric;
    if (req.metric != Metric::Default && req.plot != PlotKind::Bars && req.plot != PlotKind::Sweep &&
        req.plot != PlotKind::Traffic)
        throw InputError(std::string("--metric applies to bars, sweep and traffic plots, not ") +
                         plot_kind_name(req.plot));
    const bool traffic_metric = metric == Metric::Bytes || metric == Metric::Sectors || metric == Metric::Conflicts;
    if (req.plot == PlotKind::Traffic && !traffic_metric)
        throw InputError("--metric for the traffic plot is bytes, sectors or conflicts");
    if (req.plot != PlotKind::Traffic && traffic_metric)
        throw InputError(std::string("--metric bytes, sectors and conflicts apply to the traffic plot, not ") +
                         plot_kind_name(req.plot));
    if (req.plot == PlotKind::Bars && metric == Metric::Memory)
        throw InputError("--metric memory applies to sweeps (bars: time, rate or pct)");

    ExportFigure out;
    switch (req.plot) {
        case PlotKind::Bars: {
            auto m = metric == Metric::Time   ? figs::BarMetric::Time
                     : metric == Metric::Rate ? figs::BarMetric::Rate
                                              : figs::BarMetric::PercentOfReference;
            out.built = figs::rung_bars(results.store, ctx, m);
            break;
        }
        case PlotKind::Sweep: {
            if (req.axis.empty() || (!size_axis && !(rung && rung->find_param(req.axis)))) {
                std::vector<std::string> axes;
                for (const auto& [k, v] : ctx.sizes) axes.push_back(k);
                if (rung)
                    for (const auto& p : rung->params) axes.push_back(p.name);
                throw InputError((req.axis.empty() ? std::string("a sweep needs --axis")
                                                   : "'" + req.axis + "' is neither a size nor a parameter of rung '" +
                                                         (rung ? rung->id : "") + "'") +
                                 " (axes: " + join_keys(axes) + ")");
            }
            if (metric == Metric::Percent)
                throw InputError("--metric pct applies to bars only (sweeps: time, rate or memory)");
            auto m = metric == Metric::Time     ? figs::SweepMetric::Time
                     : metric == Metric::Memory ? figs::SweepMetric::PeakMemory
                                                : figs::SweepMetric::Rate;
            out.built = figs::sweep_lines(results.store, ctx, req.axis, m);
            break;
        }
        case PlotKind::Roofline: out.built = figs::roofline(results.store, ctx); break;
        case PlotKind::Traffic: {
            auto m = metric == Metric::Sectors     ? figs::TrafficMetric::SectorsPerRequest
                     : metric == Metric::Conflicts ? figs::TrafficMetric::BankConflicts
                                                   : figs::TrafficMetric::Bytes;
            out.built = figs::traffic_bars(results.store, ctx, m);
            break;
        }
        case PlotKind::Errors: {
            const figs::StoredRun* run =
                rung ? results.store.latest(L.id, rung->id, ctx.sizes, ctx.dtype, &ctx.params) : nullptr;
            out.built = figs::correctness(results.store, ctx, run);
            break;
        }
    }
    if (!out.built.empty_reason.empty())
        throw InputError(results.path + ": no data for the " + plot_kind_name(req.plot) + " plot of ladder '" + L.id +
                         "' at " + describe_problem(ctx) +
                         (req.plot == PlotKind::Sweep ? " over " + req.axis : std::string()) + " (" +
                         out.built.empty_reason + ")");
    plot::Figure& f = out.built.figure;
    if (!caption)
        f.caption.clear();
    else
        f.caption = plot::caption_of(
            {f.caption, results.file.created.empty() ? "" : "measured " + date_of(results.file.created)});
    out.context = ctx;
    return out;
}

}  // namespace kl::report
