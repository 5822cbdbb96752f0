// Predict, then reveal across steps, as the window draws runs: for every step of every core lesson
// (recorded results of each recorded device, nothing predicted yet), the ladder strip's runs and
// the figures the window builds (bars by rate and by time, the step's sweep, traffic, the
// roofline), once withheld by the lesson's gate (course/reveal.h, LessonRevealGate;
// report/figure_withhold.h), must not draw the run or the figure that this step or any later
// predict step asks the learner to predict. The same walk with the gate of the current step only
// (how the window gated before) must find leaks: lesson 6 step 2 drew steps 3-9's rates.
#include <gtest/gtest.h>

#include <cmath>

#include "base/paths.h"
#include "course/bindings.h"
#include "course/lesson.h"
#include "course/prediction.h"
#include "course/reveal.h"
#include "base/errors.h"
#include "model/manifest_load.h"
#include "model/results_json.h"
#include "report/figure_request.h"
#include "report/figure_withhold.h"
#include "report/results_store.h"

using namespace kl;
using namespace kl::report;

namespace {

struct RevealWalkCourse {
    std::vector<Ladder> ladders;
    std::vector<Lesson> lessons;
    ResultsStore store;
    std::unique_ptr<NumberSources> sources;
};

RevealWalkCourse& reveal_walk_course() {
    static RevealWalkCourse c = [] {
        RevealWalkCourse c;
        std::vector<std::string> errors;
        c.ladders = load_all_ladders(kernels_dir(), &errors);
        std::vector<LessonLoadError> lesson_errors;
        c.lessons = load_all_lessons(lessons_dir(), c.ladders, &lesson_errors);
        c.store.load_recorded_dir(assets_dir() + "/recorded", &errors);
        c.sources = std::make_unique<NumberSources>(&c.ladders);
        c.sources->load_recorded(assets_dir() + "/recorded", &errors);
        return c;
    }();
    return c;
}

// What a later (or the current) predict step asks for: its run, and its figures in the units
// the figures draw them (rate, time in ms and µs), on the device shown.
struct AskedFigure {
    size_t step;
    std::string target;  // "ladder/rung"
    std::optional<WantedRun> run;
    std::vector<double> values;
};

std::vector<AskedFigure> asked_from(const Lesson& lesson, size_t from, NumberSources& sources) {
    std::vector<AskedFigure> out;
    for (size_t j = from; j < lesson.steps.size(); ++j) {
        const LessonStep& st = lesson.steps[j];
        if (st.predict_metric.empty()) continue;
        AskedFigure a{j, st.ladder + "/" + st.rung, std::nullopt, {}};
        std::string why;
        const Binding judged = prediction_binding(st);
        a.target = judged.target;
        a.run = wanted_run(judged, reveal_walk_course().ladders, &why);
        for (const char* metric : {"tflops", "gbps", "ms", "us"}) {
            Binding b = judged;
            b.metric = metric;
            BoundValue v = sources.resolve(b);
            if (v.ok && v.value > 0) a.values.push_back(v.value);
        }
        out.push_back(a);
    }
    return out;
}

bool is_asked_run(const AskedFigure& a, const RunRecord& r) {
    if (!a.run) return r.ladder + "/" + r.rung == a.target;  // no loadable run named: the rung's all wait
    WantedRun any_l2 = *a.run;                               // warm or cold, the same kernel at the same size
    any_l2.l2 = r.l2;
    return any_l2.identifies(r);
}

// The window's plot context for a step (its ladder's default sizes with the step's, the step's
// rung, parameters and dtype), as report::build_export_figure and the selection make it.
PlotContext step_context(const LessonStep& st, const ResultsStore& store) {
    PlotContext ctx;
    const auto& c = reveal_walk_course();
    for (const Ladder& l : c.ladders)
        if (l.id == st.ladder) ctx.ladder = &l;
    if (!ctx.ladder) return ctx;
    for (const auto& [axis, v] : ctx.ladder->default_sizes) ctx.sizes[axis] = v;
    for (const auto& [axis, v] : st.sizes) ctx.sizes[axis] = v;
    ctx.rung = ctx.ladder->find_rung(st.rung);
    if (ctx.rung) {
        for (const auto& p : ctx.rung->params) ctx.params[p.name] = p.default_value;
        for (const auto& [k, v] : st.params) ctx.params[k] = v;
    }
    ctx.dtype = !st.dtype.empty()                       ? st.dtype
                : ctx.rung && !ctx.rung->dtypes.empty() ? to_string(ctx.rung->dtypes.front())
                                                        : "fp32";
    ctx.tie = st.sweep_tie;
    ctx.calibration = store.calibration();
    ctx.device = store.preferred_device();
    return ctx;
}

struct RevealWalk {
    int steps_walked = 0, figures_checked = 0, hidden = 0;
    std::vector<std::string> leaks;
};

// One step of one lesson on the device shown: what the strip and the figures would show.
void walk_step(const Lesson& lesson, size_t i, bool current_step_only, NumberSources& sources, RevealWalk& walk) {
    ResultsStore& store = reveal_walk_course().store;
    const LessonStep& st = lesson.steps[i];
    const PlotContext ctx = step_context(st, store);
    if (!ctx.ladder) return;
    ++walk.steps_walked;
    // Nothing kept yet: a new learner. The planted leak gates the current step alone.
    const LessonRevealGate gate(lesson, i, reveal_walk_course().ladders,
                                [&](size_t j) { return current_step_only && j != i; });
    const auto why = [&](const RunRecord& r) { return gate.placeholder(r); };
    const std::vector<AskedFigure> asked = asked_from(lesson, i, sources);
    const std::string where = lesson.id + " step " + std::to_string(i + 1) + " (" + store.preferred_device() + ")";
    auto leak = [&](const std::string& what, const AskedFigure& a) {
        walk.leaks.push_back(where + ": " + what + " shows what step " + std::to_string(a.step + 1) + " asks");
    };
    // The strip: each rung's newest run at the step's settings, its parameters preferred.
    for (const Rung& r : ctx.ladder->rungs) {
        ParamValues preferred;
        for (const auto& p : r.params) preferred[p.name] = p.default_value;
        if (ctx.rung && r.id == ctx.rung->id) preferred = ctx.params;
        const StoredRun* run = store.latest(ctx.ladder->id, r.id, ctx.sizes, ctx.dtype, &preferred);
        if (!run || !why(run->record).empty()) {
            walk.hidden += run != nullptr;
            continue;
        }
        for (const AskedFigure& a : asked)
            if (is_asked_run(a, run->record)) leak("the strip card of " + r.id, a);
    }
    // The figures, withheld as the window withholds them.
    std::vector<FigureRequest> requests;
    auto ask = [&](PlotKind kind, std::optional<Metric> metric, const std::string& axis) {
        FigureRequest req;
        req.plot = kind;
        req.metric = metric;
        req.axis = axis;
        requests.push_back(req);
    };
    for (PlotKind kind : {PlotKind::Bars, PlotKind::Traffic, PlotKind::Roofline}) ask(kind, std::nullopt, "");
    ask(PlotKind::Bars, Metric::Time, "");
    if (!st.sweep_axis.empty()) ask(PlotKind::Sweep, std::nullopt, st.sweep_axis);
    for (const FigureRequest& req : requests) {
        BuiltFigure built = build_figure(store, ctx, req);
        withhold_runs(built, why);
        ++walk.figures_checked;
        std::vector<const StoredRun*> drawn(built.bar_runs);
        drawn.insert(drawn.end(), built.compare_runs.begin(), built.compare_runs.end());
        for (const auto& series : built.point_runs) drawn.insert(drawn.end(), series.begin(), series.end());
        const std::string figure = std::string(plot_kind_name(req.plot)) + " figure";
        for (const AskedFigure& a : asked) {
            for (const StoredRun* r : drawn)
                if (r && is_asked_run(a, r->record)) leak("the " + figure + " (run " + r->record.rung + ")", a);
            for (double v : drawn_values(built))
                for (double w : a.values)
                    if (std::fabs(v - w) <= 1e-9 * std::fabs(w)) leak("the " + figure + " (value)", a);
        }
    }
}

RevealWalk walk_core_course(bool current_step_only) {
    RevealWalkCourse& c = reveal_walk_course();
    RevealWalk walk;
    for (const std::string& device : c.store.recorded_devices()) {
        c.store.set_preferred_device(device);
        c.sources->set_preferred_device(device);
        for (const Lesson& lesson : c.lessons) {
            if (lesson.appendix()) continue;
            for (size_t i = 0; i < lesson.steps.size(); ++i) {
                // A step that names its device shows that one (the window switches to it).
                if (!lesson.steps[i].device.empty() && device.find(lesson.steps[i].device) == std::string::npos)
                    continue;
                walk_step(lesson, i, current_step_only, *c.sources, walk);
            }
        }
    }
    return walk;
}

}  // namespace

TEST(RevealWindow, NoStepOfTheCoreDrawsAFigureAStepStillAsksFor) {
    const RevealWalk walk = walk_core_course(false);
    EXPECT_GT(walk.steps_walked, 50);
    EXPECT_GT(walk.hidden, 20);  // the strip has something to hide
    std::string leaks;
    for (size_t i = 0; i < walk.leaks.size() && i < 20; ++i) leaks += "\n  " + walk.leaks[i];
    EXPECT_TRUE(walk.leaks.empty()) << walk.leaks.size() << " leaks:" << leaks;
}

TEST(RevealWindow, AGateOfTheCurrentStepAloneLeaksLaterPredictions) {
    // The planted leak: the window's gate before it spanned the lesson.
    const RevealWalk walk = walk_core_course(true);
    bool matmul_step_2 = false;
    for (const std::string& l : walk.leaks) matmul_step_2 |= l.rfind("matmul step 2 ", 0) == 0;
    EXPECT_TRUE(matmul_step_2) << walk.leaks.size() << " leaks, none at matmul step 2";
}

TEST(RevealWindow, WithheldBarsLoseTheirValuesAndRunsAndTheCaptionSaysWhy) {
    BuiltFigure built;
    StoredRun shown, hidden;
    shown.record.rung = "naive";
    hidden.record.rung = "coalesced";
    built.bar_runs = {&shown, &hidden};
    plot::Series bars;
    bars.kind = plot::SeriesKind::Bars;
    bars.points = {{0, 1.5, 1.4, 1.6}, {1, 6.0, 5.9, 6.1}};
    built.figure.series.push_back(bars);
    built.figure.series.push_back(plot::make_hline("copy roof", 9.0));
    const int n = withhold_runs(built, [](const RunRecord& r) {
        return r.rung == "coalesced" ? std::string("until step 3's prediction") : std::string();
    });
    EXPECT_EQ(n, 1);
    EXPECT_EQ(built.bar_runs[0], &shown);
    EXPECT_EQ(built.bar_runs[1], nullptr);
    EXPECT_TRUE(std::isnan(built.figure.series[0].points[1].y));
    EXPECT_TRUE(std::isnan(built.figure.series[0].points[1].y_high));
    EXPECT_EQ(drawn_values(built), (std::vector<double>{1.5, 1.4, 1.6}));
    EXPECT_NE(built.figure.caption.find("coalesced (step 3)"), std::string::npos) << built.figure.caption;
}

// The results copy beside such a figure (the window's Export): the withheld runs are left out and
// named, and a kept run's share of a left-out reference goes (its time over it is the reference's).
TEST(RevealWindow, TheResultsCopyBesideAWithheldFigureLeavesTheWithheldRunsOut) {
    auto run = [](const std::string& rung, int64_t n, bool reference) {
        RunRecord r;
        r.ladder = "matmul";
        r.rung = rung;
        r.reference = reference;
        r.dtype = DType::F32;
        r.sizes = {{"M", n}, {"N", n}, {"K", n}};
        r.values.set(tag::tflops, 51.6);
        if (!reference) r.values.set(tag::pct_reference, 0.97);
        return r;
    };
    ResultsFile file;
    file.runs = {run("cublas_fp32", 4096, true), run("naive", 4096, false), run("naive", 512, false),
                 run("cublas_fp32", 512, true), run("coalesced", 4096, false)};
    const int left_out = withhold_results(file, [](const RunRecord& r) {
        if (r.sizes.at("M") != 4096) return std::string();
        return r.rung == "naive"         ? std::string(kHiddenUntilPredicted)
               : r.rung == "cublas_fp32" ? std::string("until step 1's prediction")
                                         : std::string();
    });
    EXPECT_EQ(left_out, 2);
    ASSERT_EQ(file.runs.size(), 3u);
    EXPECT_EQ(file.withheld,
              (std::vector<std::string>{"matmul/cublas_fp32 fp32 K=4096 M=4096 N=4096: until step 1's prediction",
                                        "matmul/naive fp32 K=4096 M=4096 N=4096: until your prediction"}));
    for (const RunRecord& r : file.runs) {
        const bool at_4096 = r.sizes.at("M") == 4096;
        EXPECT_FALSE(at_4096 && (r.rung == "naive" || r.rung == "cublas_fp32")) << r.rung;
        // coalesced at 4096 loses its share of the left-out cuBLAS run; naive at 512 keeps its own.
        if (r.rung == "coalesced" || r.rung == "naive") {
            EXPECT_EQ(r.values.has(tag::pct_reference), r.rung == "naive") << r.rung;
        }
        EXPECT_TRUE(r.values.has(tag::tflops)) << r.rung;
    }
    // Written and read back; a file with nothing withheld has no such field.
    const std::string text = results_to_text(file);
    EXPECT_EQ(results_from_json(nlohmann::json::parse(text), "copy").withheld, file.withheld);
    file.withheld.clear();
    EXPECT_EQ(results_to_text(file).find("\"withheld\""), std::string::npos);
    // Untrusted: a `withheld` of another shape is one line naming the field.
    try {
        results_from_json(nlohmann::json::parse(R"({"schema": "kernel-ladder/results", "version": 3,
                                                    "runs": [], "withheld": [3]})"),
                          "f.json");
        ADD_FAILURE() << "a number in `withheld` was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("withheld[0]"), std::string::npos) << e.what();
    }
}
