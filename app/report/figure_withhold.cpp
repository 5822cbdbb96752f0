#include "report/figure_withhold.h"

#include <cmath>
#include <set>

namespace kl::report {

namespace {

void blank_point(plot::Point& p) {
    p.y = plot::kNoValue;
    p.y_low = plot::kNoValue;
    p.y_high = plot::kNoValue;
}

// Series drawn one point per category of a bar chart (the bars, a compared device's, the traffic
// kinds, per-rung marks): point i belongs to the run of category i.
bool per_category(const plot::Series& s, size_t categories) {
    return (s.kind == plot::SeriesKind::Bars || s.kind == plot::SeriesKind::BarMarks) && s.points.size() == categories;
}

}  // namespace

int withhold_runs(BuiltFigure& built, const std::function<std::string(const RunRecord&)>& why) {
    int withheld = 0;
    std::vector<std::string> named;  // once per rung
    std::set<std::string> seen;
    auto check = [&](const StoredRun*& run) {
        if (!run) return false;
        const std::string placeholder = why(run->record);
        if (placeholder.empty()) return false;
        // "coalesced (step 3)", or "(this step)": the caption is one line under the plot.
        const size_t at = placeholder.find("step ");
        const std::string step =
            at == std::string::npos ? "this step" : placeholder.substr(at, placeholder.find('\'', at) - at);
        if (seen.insert(run->record.rung).second) named.push_back(run->record.rung + " (" + step + ")");
        run = nullptr;  // no tooltip describes it
        return true;
    };
    // Bars: a category waits when its run, or the compared device's, does.
    const size_t categories = built.bar_runs.size();
    std::vector<bool> waits(categories, false);
    for (size_t i = 0; i < categories; ++i) {
        bool w = check(built.bar_runs[i]);
        if (i < built.compare_runs.size()) w = check(built.compare_runs[i]) || w;
        waits[i] = w;
    }
    for (plot::Series& s : built.figure.series) {
        if (!per_category(s, categories)) continue;
        for (size_t i = 0; i < categories; ++i)
            if (waits[i]) blank_point(s.points[i]);
    }
    for (bool w : waits) withheld += w;
    // Lines and points (sweeps, the roofline): each point has its run.
    for (size_t si = 0; si < built.point_runs.size() && si < built.figure.series.size(); ++si) {
        auto& runs = built.point_runs[si];
        auto& points = built.figure.series[si].points;
        for (size_t pi = 0; pi < runs.size() && pi < points.size(); ++pi)
            if (check(runs[pi])) {
                blank_point(points[pi]);
                ++withheld;
            }
    }
    if (!named.empty()) {
        std::string list;
        for (const std::string& n : named) list += (list.empty() ? "" : ", ") + n;
        built.figure.caption = plot::caption_of({built.figure.caption, "hidden until predicted: " + list});
    }
    return withheld;
}

int withhold_results(ResultsFile& file, const std::function<std::string(const RunRecord&)>& why) {
    std::vector<RunRecord> kept, references_left_out;
    for (RunRecord& r : file.runs) {
        const std::string placeholder = why(r);
        if (placeholder.empty()) {
            kept.push_back(std::move(r));
            continue;
        }
        std::string sizes;
        for (const auto& [axis, value] : r.sizes) sizes += " " + axis + "=" + std::to_string(value);
        file.withheld.push_back(r.ladder + "/" + r.rung + " " + to_string(r.dtype) + sizes + ": " + placeholder);
        if (r.reference) references_left_out.push_back(std::move(r));
    }
    const int left_out = int(file.runs.size() - kept.size());
    for (RunRecord& r : kept)
        for (const RunRecord& ref : references_left_out)
            if (ref.ladder == r.ladder && ref.sizes == r.sizes && ref.dtype == r.dtype)
                r.values.set(tag::pct_reference, std::optional<double>());
    file.runs = std::move(kept);
    return left_out;
}

std::vector<double> drawn_values(const BuiltFigure& built) {
    std::vector<double> out;
    for (const plot::Series& s : built.figure.series) {
        if (s.kind == plot::SeriesKind::HLine || s.kind == plot::SeriesKind::VLine ||
            s.kind == plot::SeriesKind::Roofline)
            continue;
        for (const plot::Point& p : s.points)
            for (double v : {p.y, p.y_low, p.y_high})
                if (std::isfinite(v)) out.push_back(v);
    }
    return out;
}

}  // namespace kl::report
