// [SECTION] index: names / loading / lesson steps / choosing defaults / the shared builder / export
#include "report/figure_request.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "base/printable.h"
#include "model/results_json.h"
#include "model/stopwatch_label.h"
#include "plot/plot_model.h"
#include "report/handout_results.h"

namespace kl::report {

// [SECTION] Names

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

LoadedResults results_in_memory(ResultsFile file, const std::string& name) {
    LoadedResults out;
    out.path = name;
    out.bytes = results_to_text(file);  // as save_results writes it
    out.file = std::move(file);
    out.store.add_file(out.file, name);
    return out;
}

// [SECTION] Lesson steps

FigureRequest request_for_step(const LessonStep& step) {
    FigureRequest r;
    std::optional<PlotKind> kind = step.plot_kind ? step.plot_kind : plot_kind_from_name(step.plot);
    if (!kind)
        throw InputError("step '" + step.title + "': plot '" + step.plot + "' is not one of " + plot_kind_list(false));
    // The occupancy view is the window's calculator, not a figure of results: a handout shows
    // the step's rung bars instead.
    r.plot = *kind == PlotKind::Occupancy ? PlotKind::Bars : *kind;
    r.ladder = step.ladder;
    r.rung = step.rung;
    r.axis = step.sweep_axis;
    r.tie = step.sweep_tie;
    r.sizes = step.sizes;
    r.params = step.params;
    r.dtype = step.dtype;
    r.metric = step.plot_metric;
    if (!r.metric && !step.metric.empty()) {
        r.metric = metric_from_name(step.metric);
        if (!r.metric) throw InputError("step '" + step.title + "': unknown metric '" + step.metric + "'");
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
        if (!req.dtype.empty() && to_string(x.dtype) != req.dtype) return false;
        for (const auto& [k, v] : at_defaults ? defaults : req.sizes)
            if (k != req.axis && std::find(req.tie.begin(), req.tie.end(), k) == req.tie.end() && x.sizes.count(k) &&
                x.sizes.at(k) != v)  // an axis the run lacks is not its operation's
                return false;
        return true;
    };
    for (bool at_defaults : {true, false})
        for (bool same_rung : {true, false})
            for (auto it = results.file.runs.rbegin(); it != results.file.runs.rend(); ++it)
                if (fits(*it, same_rung, at_defaults)) return &*it;
    return nullptr;
}

std::string describe_problem(const PlotContext& ctx) {
    std::string s = format_sizes(ctx.sizes) + ", " + ctx.dtype;
    if (ctx.rung) s += ", rung " + ctx.rung->id;
    return s;
}

// The ladder's rung the request names, else the rung with the most runs, else the first.
const Rung* pick_rung(const LoadedResults& results, const Ladder& L, const std::string& wanted) {
    if (wanted.empty()) {
        const Rung* rung = busiest_rung(results, L);
        return rung || L.rungs.empty() ? rung : &L.rungs.front();
    }
    if (const Rung* rung = L.find_rung(wanted)) return rung;
    std::vector<std::string> ids;
    for (const auto& r : L.rungs) ids.push_back(r.id);
    throw InputError("ladder '" + L.id + "' has no rung '" + wanted + "' (rungs: " + join_keys(ids) + ")");
}

// Sizes and parameters as the window resolves a step: ladder defaults, then (when the request
// leaves them open) the values the results were measured at, then the request's.
PlotContext resolve_context(const LoadedResults& results, const Ladder& L, const Rung* rung, const FigureRequest& req) {
    PlotContext ctx;
    ctx.ladder = &L;
    ctx.rung = rung;
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
    ctx.dtype = !req.dtype.empty() ? req.dtype : rep ? to_string(rep->dtype) : "fp32";
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
    ctx.device = results.file.device ? printable(results.file.device->name, kDeviceNameChars) : std::string();
    for (const auto& t : req.tie) {
        if (!ctx.sizes.count(t) || !ctx.sizes.count(req.axis))
            throw InputError("--tie: '" + t + "' is not a size axis of '" + L.id + "' tied to a size sweep");
        ctx.tie.push_back(t);
    }
    return ctx;
}

// A request export cannot draw, in one line: a metric on a plot without metrics or one that does
// not fit the plot, a sweep without an axis (or with one the rung does not have).
void check_request(const FigureRequest& req, const PlotContext& ctx) {
    const char* kind = plot_kind_name(req.plot);
    if (!plot_kind_info(req.plot).from_results)
        throw InputError(std::string("--plot ") + kind + " is not a figure of results (plots: " + plot_kind_list(true) +
                         ")");
    if (req.metric && plot_kind_info(req.plot).metrics.empty())
        throw InputError("--metric applies to bars, sweep and traffic plots, not " + std::string(kind));
    if (req.metric && !metric_fits(req.plot, *req.metric))
        throw InputError(std::string("--metric ") + metric_name(*req.metric) + " does not fit the " + kind + " plot (" +
                         metrics_by_kind() + ")");
    if (req.plot != PlotKind::Sweep) return;
    const bool size_axis = ctx.sizes.count(req.axis) != 0;
    if (req.axis.empty() || (!size_axis && !(ctx.rung && ctx.rung->find_param(req.axis)))) {
        std::vector<std::string> axes;
        for (const auto& [k, v] : ctx.sizes) axes.push_back(k);
        if (ctx.rung)
            for (const auto& p : ctx.rung->params) axes.push_back(p.name);
        throw InputError((req.axis.empty() ? std::string("a sweep needs --axis")
                                           : "'" + req.axis + "' is neither a size nor a parameter of rung '" +
                                                 (ctx.rung ? ctx.rung->id : "") + "'") +
                         " (axes: " + join_keys(axes) + ")");
    }
}

}  // namespace

// [SECTION] The shared builder

std::optional<Metric> shown_metric(const FigureRequest& request, const PlotContext& ctx) {
    return metric_or_default(request.plot, request.metric, ctx.sizes.count(request.axis) != 0);
}

namespace {
BuiltFigure build_by_kind(const ResultsStore& store, const PlotContext& ctx, const FigureRequest& request) {
    std::optional<Metric> metric = shown_metric(request, ctx);
    switch (request.plot) {
        case PlotKind::Bars: return rung_bars(store, ctx, *metric);
        case PlotKind::Sweep: return sweep_lines(store, ctx, request.axis, *metric);
        case PlotKind::Traffic: return traffic_bars(store, ctx, *metric);
        case PlotKind::Roofline: return roofline(store, ctx);
        case PlotKind::Errors: {
            const StoredRun* run = ctx.ladder && ctx.rung
                                       ? store.latest(ctx.ladder->id, ctx.rung->id, ctx.sizes, ctx.dtype, &ctx.params)
                                       : nullptr;
            return correctness(store, ctx, run);
        }
        case PlotKind::Occupancy: break;
    }
    BuiltFigure none;
    none.empty_reason = "The occupancy view is a calculator, not a figure of results.";
    return none;
}
}  // namespace

BuiltFigure build_figure(const ResultsStore& store, const PlotContext& ctx, const FigureRequest& request) {
    BuiltFigure out = build_by_kind(store, ctx, request);
    // Every figure names its device (problem_caption) and when the runs it draws were measured.
    std::vector<const StoredRun*> drawn(out.bar_runs);
    drawn.insert(drawn.end(), out.compare_runs.begin(), out.compare_runs.end());
    for (const auto& series : out.point_runs) drawn.insert(drawn.end(), series.begin(), series.end());
    std::string dates = measured_dates(store, drawn);
    if (!dates.empty()) out.figure.caption = plot::caption_of({out.figure.caption, "measured " + dates});
    // [stopwatch] and by what: figures of two stopwatches are not comparable (model/stopwatch_label.h).
    std::vector<const RunRecord*> records;
    for (const StoredRun* run : drawn)
        if (run) records.push_back(&run->record);
    out.figure.caption = plot::caption_of({out.figure.caption, stopwatch_caption(records)});
    return out;
}

// [SECTION] Export

namespace {
// The most drawable points of any line of a sweep.
size_t longest_line(const plot::Figure& f) {
    size_t most = 0;
    for (const auto& s : f.series) {
        if (s.kind != plot::SeriesKind::Line && s.kind != plot::SeriesKind::Scatter) continue;
        size_t n = std::count_if(s.points.begin(), s.points.end(),
                                 [](const plot::Point& p) { return std::isfinite(p.x) && std::isfinite(p.y); });
        most = std::max(most, n);
    }
    return most;
}
}  // namespace

void drop_unmeasured_categories(BuiltFigure& b) {
    plot::Figure& f = b.figure;
    const size_t n = f.x.categories.size();
    if (n == 0) return;
    std::vector<bool> keep(n, false);
    for (const auto& s : f.series) {
        if (s.kind != plot::SeriesKind::Bars) continue;
        for (const auto& p : s.points)
            if (std::isfinite(p.y) && p.x >= 0 && p.x < double(n) && p.x == std::floor(p.x)) keep[size_t(p.x)] = true;
    }
    for (const auto& a : f.annotations)  // "exact" marks stand for a value a log axis cannot show
        if (a.x >= 0 && a.x < double(n) && a.x == std::floor(a.x)) keep[size_t(a.x)] = true;
    if (std::count(keep.begin(), keep.end(), true) == 0 || std::count(keep.begin(), keep.end(), false) == 0) return;
    std::vector<double> index(n, -1);
    size_t next = 0;
    for (size_t i = 0; i < n; ++i)
        if (keep[i]) index[i] = double(next++);
    auto kept = [&](auto& v) {  // a per-category vector, narrowed to the kept categories
        if (v.size() != n) return;
        size_t k = 0;
        for (size_t i = 0; i < n; ++i)
            if (keep[i]) v[k++] = v[i];
        v.resize(k);
    };
    kept(f.x.categories);
    kept(b.bar_runs);
    kept(b.bar_colors);
    kept(b.compare_runs);
    for (auto& s : f.series) {
        if (s.kind != plot::SeriesKind::Bars && s.kind != plot::SeriesKind::BarMarks) continue;
        std::vector<plot::Point> pts;
        std::vector<int> colors;
        for (size_t j = 0; j < s.points.size(); ++j) {
            const plot::Point& p = s.points[j];
            if (!(p.x >= 0 && p.x < double(n) && p.x == std::floor(p.x)) || !keep[size_t(p.x)]) continue;
            pts.push_back(p);
            pts.back().x = index[size_t(p.x)];
            if (j < s.point_colors.size()) colors.push_back(s.point_colors[j]);
        }
        s.points = pts;
        if (!s.point_colors.empty()) s.point_colors = colors;
    }
    for (auto& a : f.annotations)
        if (a.x >= 0 && a.x < double(n) && a.x == std::floor(a.x)) a.x = index[size_t(a.x)];
}

ExportFigure build_export_figure(const LoadedResults& results, const std::vector<Ladder>& ladders,
                                 const FigureRequest& req, bool caption) {
    const Ladder& L = pick_ladder(results, ladders, req.ladder);
    const Rung* rung = pick_rung(results, L, req.rung);
    ExportFigure out;
    out.context = resolve_context(results, L, rung, req);
    const PlotContext& ctx = out.context;
    check_request(req, ctx);
    out.built = build_figure(results.store, ctx, req);
    if (!out.built.empty_reason.empty())
        throw InputError(results.path + ": no data for the " + plot_kind_name(req.plot) + " plot of ladder '" + L.id +
                         "' at " + describe_problem(ctx) +
                         (req.plot == PlotKind::Sweep ? " over " + req.axis : std::string()) + " (" +
                         out.built.empty_reason + ")");
    if (req.plot == PlotKind::Sweep && longest_line(out.built.figure) < 2)
        throw InputError(results.path + ": no data for the sweep of ladder '" + L.id + "' at " + describe_problem(ctx) +
                         " over " + req.axis + " (one point measured: a sweep needs two)");
    if (!caption) out.built.figure.caption.clear();
    return out;
}

}  // namespace kl::report
