#include "model/tuner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace kl {

namespace {

// The screen and the refining stop at this share of the budget: the rest is the confirmation's.
constexpr double kScreenShare = 0.6;
constexpr size_t kMaxRefusals = 5;

struct Axis {
    std::string name;
    std::vector<int64_t> values;  // every declared value
    size_t def = 0;               // the default's index
};

using Point = std::vector<size_t>;  // an index into each axis's values

std::vector<Axis> axes_of(const Rung& rung) {
    std::vector<Axis> axes;
    for (const auto& p : rung.params) {
        Axis a{p.name, p.allowed(), 0};
        auto it = std::find(a.values.begin(), a.values.end(), p.default_value);
        if (it == a.values.end()) {
            a.values.insert(std::lower_bound(a.values.begin(), a.values.end(), p.default_value), p.default_value);
            it = std::find(a.values.begin(), a.values.end(), p.default_value);
        }
        a.def = static_cast<size_t>(it - a.values.begin());
        axes.push_back(std::move(a));
    }
    return axes;
}

ParamValues params_at(const std::vector<Axis>& axes, const Point& p) {
    ParamValues out;
    for (size_t i = 0; i < axes.size(); ++i) out[axes[i].name] = axes[i].values[p[i]];
    return out;
}

size_t steps_from_default(const std::vector<Axis>& axes, const Point& p) {
    size_t d = 0;
    for (size_t i = 0; i < axes.size(); ++i) d += p[i] > axes[i].def ? p[i] - axes[i].def : axes[i].def - p[i];
    return d;
}

// `per_param` indices spread evenly over the axis, its default among them.
std::vector<size_t> spread(const Axis& a, size_t per_param) {
    const size_t n = a.values.size();
    std::set<size_t> picks{a.def};
    if (n <= per_param || per_param < 2) {
        for (size_t i = 0; i < n && n <= per_param; ++i) picks.insert(i);
        return {picks.begin(), picks.end()};
    }
    for (size_t i = 0; i < per_param; ++i) picks.insert((i * (n - 1) + (per_param - 1) / 2) / (per_param - 1));
    return {picks.begin(), picks.end()};
}

double product(const std::vector<std::vector<size_t>>& picks) {
    double p = 1;
    for (const auto& v : picks) p *= double(v.size());
    return p;
}

std::vector<Point> coarse_points(const std::vector<Axis>& axes, size_t per_param, size_t max_points) {
    std::vector<std::vector<size_t>> picks;
    for (const auto& a : axes) picks.push_back(spread(a, per_param));
    while (product(picks) > double(std::max<size_t>(max_points, 1))) {
        size_t widest = 0;
        for (size_t i = 1; i < picks.size(); ++i)
            if (picks[i].size() > picks[widest].size()) widest = i;
        if (picks[widest].size() <= 1) break;
        std::vector<size_t> kept;  // every other pick, and the default
        for (size_t j = 0; j < picks[widest].size(); ++j)
            if (j % 2 == 0 || picks[widest][j] == axes[widest].def) kept.push_back(picks[widest][j]);
        if (kept.size() == picks[widest].size()) kept = {axes[widest].def};
        picks[widest] = kept;
    }
    std::vector<Point> points{Point{}};
    for (const auto& axis_picks : picks) {
        std::vector<Point> next;
        for (const auto& p : points)
            for (size_t idx : axis_picks) {
                next.push_back(p);
                next.back().push_back(idx);
            }
        points = std::move(next);
    }
    std::stable_sort(points.begin(), points.end(), [&](const Point& a, const Point& b) {
        return steps_from_default(axes, a) < steps_from_default(axes, b);
    });
    return points;
}

// One search: the state the three stages share.
class Search {
  public:
    Search(const TuneRequest& req, const MeasurePoint& measure) : req_(req), measure_(measure) {
        axes_ = axes_of(*req.rung);
        def_.resize(axes_.size());
        for (size_t i = 0; i < axes_.size(); ++i) def_[i] = axes_[i].def;
        out_.defaults = params_at(axes_, def_);
        out_.points_total = tune_space_size(*req.rung);
    }

    TuneOutcome run() {
        std::vector<Point> grid = coarse_points(axes_, 8, 48);
        planned_ = int(grid.size()) + req_.finalists + 1;
        if (!screen(grid) || !refine() || !confirm()) return out_;
        choose();
        return out_;
    }

  private:
    struct Tried {
        Point at;
        double screen_ms = 0;
        std::optional<double> confirm_ms;
        bool failed = false;
    };

    bool cancelled() const { return req_.cancel && req_.cancel->load(); }

    // False when no measurement estimated to cost `estimate` fits under `limit` any more.
    bool fits(double limit, double estimate) const {
        return out_.spent_s < limit && out_.spent_s + estimate <= limit + 1e-9;
    }

    void refuse(const std::string& why) {
        ++out_.points_refused;
        if (out_.refusals.size() < kMaxRefusals &&
            std::find(out_.refusals.begin(), out_.refusals.end(), why) == out_.refusals.end())
            out_.refusals.push_back(why);
    }

    void report() {
        if (!req_.progress) return;
        TuneProgress p{req_.rung->id, done_, std::max(planned_, done_), out_.spent_s, 0};
        const double per_point = done_ ? out_.spent_s / done_ : 0;
        p.left_s = std::max(0.0, std::min(req_.budget_s - out_.spent_s, (p.planned - done_) * per_point));
        req_.progress(p);
    }

    // Resolves and measures one point. nullopt when it was refused or failed; sets out_.stopped on Stop.
    std::optional<PointResult> measure(const Point& at, TuneProtocol how) {
        RunOptions o = req_.options;
        o.params = params_at(axes_, at);
        LadderRung lr;
        try {
            lr = resolve_ladder_rung(*req_.ladder, *req_.rung, o, req_.num_sms);
        } catch (const ManifestError&) {
            throw;  // the manifest's fault, not this setting's
        } catch (const InputError& e) { lr.unfit = e.what(); }
        if (!lr.unfit.empty()) {  // refused unmeasured: no longer part of the plan
            refuse(lr.unfit);
            --planned_;
            return std::nullopt;
        }
        PointResult r = measure_(lr.run, how);
        out_.spent_s += r.cost_s;
        ++done_;
        (how == TuneProtocol::Screen ? screen_cost_ : confirm_cost_) =
            std::max(how == TuneProtocol::Screen ? screen_cost_ : confirm_cost_, r.cost_s);
        report();
        switch (r.kind) {
            case PointResult::Kind::Measured: return r;
            case PointResult::Kind::Refused: refuse(r.why); return std::nullopt;
            case PointResult::Kind::Failed: ++out_.points_failed; return std::nullopt;
            case PointResult::Kind::Stop: out_.stopped = r.why.empty() ? "stopped" : r.why; return std::nullopt;
        }
        return std::nullopt;
    }

    // Times each point briefly, within the screen's share of the budget. False when stopped.
    bool screen(const std::vector<Point>& points) {
        const double limit = req_.budget_s * kScreenShare;
        for (const Point& at : points) {
            if (!visited_.insert(at).second) continue;
            if (cancelled()) return out_.cancelled = out_.partial = true;
            if (!fits(limit, screen_cost_)) return out_.partial = true;
            std::optional<PointResult> r = measure(at, TuneProtocol::Screen);
            if (!out_.stopped.empty()) return false;
            if (r) {
                tried_.push_back({at, r->median_ms, std::nullopt, false});
                ++out_.points_tried;
            }
        }
        return true;
    }

    std::vector<Tried*> ranked() {
        std::vector<Tried*> order;
        for (auto& t : tried_)
            if (!t.failed) order.push_back(&t);
        std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->screen_ms < b->screen_ms; });
        return order;
    }

    // The untried neighbours of the best two: one step along one parameter's declared values.
    bool refine() {
        if (out_.cancelled || out_.partial) return true;
        std::vector<Point> next;
        std::vector<Tried*> order = ranked();
        for (size_t k = 0; k < order.size() && k < 2; ++k)
            for (size_t i = 0; i < axes_.size(); ++i)
                for (int step : {-1, 1}) {
                    Point p = order[k]->at;
                    if ((step < 0 && p[i] == 0) || (step > 0 && p[i] + 1 >= axes_[i].values.size())) continue;
                    p[i] += step;
                    if (!visited_.count(p) && std::find(next.begin(), next.end(), p) == next.end()) next.push_back(p);
                }
        planned_ += int(next.size());
        return screen(next);
    }

    // False when the confirmation must end here (a cancel, the budget, a stop).
    bool confirm_one(Tried& t) {
        if (cancelled()) return !(out_.cancelled = out_.partial = true);
        if (!fits(req_.budget_s, std::max(confirm_cost_, screen_cost_))) return !(out_.partial = true);
        std::optional<PointResult> r = measure(t.at, TuneProtocol::Confirm);
        if (r && r->checked) t.confirm_ms = r->median_ms;
        if (!r) t.failed = true;
        if (r && !r->checked) {
            t.failed = true;
            ++out_.points_failed;
        }
        return out_.stopped.empty();
    }

    // The best few and the defaults, re-timed with the full protocol and checked.
    bool confirm() {
        if (out_.cancelled) return true;
        std::vector<Tried*> order = ranked();
        if (order.size() > size_t(req_.finalists)) order.resize(size_t(std::max(req_.finalists, 1)));
        Tried* defaults = nullptr;
        for (auto& t : tried_)
            if (t.at == def_) defaults = &t;
        if (defaults && std::find(order.begin(), order.end(), defaults) == order.end())
            order.insert(order.begin() + (order.empty() ? 0 : 1), defaults);
        planned_ = done_ + int(order.size());
        for (Tried* t : order)
            if (!confirm_one(*t)) break;
        return out_.stopped.empty();
    }

    // The fastest confirmed setting; the defaults when none beats them. Unconfirmed (a cancel,
    // the budget): the fastest screened one, marked unchecked.
    void choose() {
        const Tried* best = nullptr;
        for (const auto& t : tried_) {
            if (t.at == def_ && t.confirm_ms) out_.default_ms = t.confirm_ms;
            if (t.confirm_ms && (!best || *t.confirm_ms < *best->confirm_ms)) best = &t;
        }
        if (best) {
            out_.best = params_at(axes_, best->at);
            out_.best_ms = best->confirm_ms;
            out_.checked = true;
            return;
        }
        std::vector<Tried*> order = ranked();
        if (!order.empty() && (out_.cancelled || out_.partial)) {
            out_.best = params_at(axes_, order.front()->at);
            out_.best_ms = order.front()->screen_ms;
            return;
        }
        if (out_.stopped.empty())
            out_.stopped = tried_.empty() ? "no setting could be measured" : "no setting passed its check";
    }

    const TuneRequest& req_;
    const MeasurePoint& measure_;
    std::vector<Axis> axes_;
    Point def_;
    TuneOutcome out_;
    std::vector<Tried> tried_;
    std::set<Point> visited_;
    double screen_cost_ = 0, confirm_cost_ = 0;
    int done_ = 0, planned_ = 0;
};

}  // namespace

TuneOutcome tune_rung(const TuneRequest& req, const MeasurePoint& measure) {
    if (!req.ladder || !req.rung) throw std::logic_error("tune_rung: no ladder or rung");
    return Search(req, measure).run();
}

int64_t tune_space_size(const Rung& rung) {
    int64_t n = 1;
    for (const auto& a : axes_of(rung)) {
        const auto count = static_cast<int64_t>(a.values.size());
        if (count && n > std::numeric_limits<int64_t>::max() / count) return std::numeric_limits<int64_t>::max();
        n *= std::max<int64_t>(count, 1);
    }
    return n;
}

std::vector<ParamValues> coarse_grid(const Rung& rung, size_t per_param, size_t max_points) {
    const std::vector<Axis> axes = axes_of(rung);
    std::vector<ParamValues> out;
    for (const Point& p : coarse_points(axes, per_param, max_points)) out.push_back(params_at(axes, p));
    return out;
}

double rung_share(double budget_left_s, double weight, double weights_left) {
    if (budget_left_s <= 0 || weights_left <= 0) return 0;
    return budget_left_s * std::min(1.0, weight / weights_left);
}

double tune_weight(const Rung& rung) { return double(coarse_grid(rung).size()) + 3; }

}  // namespace kl
