// Predict, then reveal, over the shipped course: every predict step of every lesson, rendered as
// the window and the handout render it before the learner keeps a prediction (course/reveal.h),
// must not show the predicted figure or a figure derived from it (the same run's time, rates and
// percentages; its peak memory in either unit), and the plot and ladder strip must not be given
// the judged run. Leaks planted in copies of a step show that the walk catches them.
#include <gtest/gtest.h>

#include <cctype>

#include "base/paths.h"
#include "course/bindings.h"
#include "course/lesson.h"
#include "course/prediction.h"
#include "course/reveal.h"
#include "model/dtype.h"
#include "model/manifest_load.h"
#include "model/run_metrics.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_reveal {

using namespace kl;

namespace {

struct Course {
    std::vector<Ladder> ladders;
    std::vector<Lesson> lessons;
    std::unique_ptr<NumberSources> sources;
};

const Course& course() {
    static const Course c = [] {
        Course c;
        std::vector<std::string> errors;
        c.ladders = load_all_ladders(kernels_dir(), &errors);
        std::vector<LessonLoadError> lesson_errors;
        c.lessons = load_all_lessons(lessons_dir(), c.ladders, &lesson_errors);
        c.sources = std::make_unique<NumberSources>(&c.ladders);
        c.sources->load_recorded(assets_dir() + "/recorded", &errors);
        return c;
    }();
    return c;
}

// `figure` in `text` as a number of its own ("24.1" in "24.1 GiB", not in "124.1" or "24.15").
bool shows(const std::string& text, const std::string& figure) {
    auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    for (size_t at = text.find(figure); at != std::string::npos; at = text.find(figure, at + 1)) {
        size_t end = at + figure.size();
        bool starts = at == 0 || !(digit(text[at - 1]) || text[at - 1] == '.' || text[at - 1] == ',');
        bool ends = end >= text.size() || !(digit(text[end]) || ((text[end] == '.' || text[end] == ',') &&
                                                                 end + 1 < text.size() && digit(text[end + 1])));
        if (starts && ends) return true;
    }
    return false;
}

// The ways the text could print the predicted figure or one derived from it: each metric of the
// predicted metric's family, of the judged run, as bindings format it.
// Forms with fewer than two significant digits ("1 ms", "3 TB/s") would match by accident.
std::vector<std::string> figures_of(const LessonStep& step, const NumberSources& sources) {
    static const char* const kFamily[] = {"ms",       "us",       "min_ms",   "gbps",     "tbps",
                                          "tflops",   "gflops",   "pct_copy", "pct_gemm", "pct_reference",
                                          "peak_gib", "peak_mib", "traced_ms"};
    std::vector<std::string> out;
    const Binding judged = prediction_binding(step);
    for (const char* metric : kFamily) {
        if (run_metric_family(metric) != run_metric_family(judged.metric)) continue;
        Binding b = judged;
        b.metric = metric;
        BoundValue v = sources.resolve(b);
        if (!v.ok || v.value == 0) continue;
        // Bare, as a table prints it: "2,327", "0.923", "24.1" (a small integer such as 256 is a setting).
        std::string bare = format_bound(v.value, v.unit, -1, true);
        if (bare.find_first_of(".,") != std::string::npos) out.push_back(bare + "\t" + metric);
        for (int d : {0, 1, 2}) {  // "78%", "2,327 GB/s", "24.10 GiB"
            std::string f = format_bound(v.value, v.unit, d, false);
            size_t digits = 0;
            bool leading = true;
            for (char ch : f) {
                leading = leading && (ch == '0' || ch == '.' || ch == ',');
                digits += !leading && std::isdigit(static_cast<unsigned char>(ch));
            }
            if (digits >= 2) out.push_back(f + "\t" + metric);
        }
    }
    return out;
}

// Everything step `i` would show through `gate`, and what it gives the plot and the strip; one
// line per leak.
std::vector<std::string> leaks(const LessonStep& step, const RevealGate& gate, const NumberSources& sources) {
    std::vector<std::string> out;
    const std::string text = gate.render(sources, gate.step_text(step)) + "\n" + gate.render(sources, step.look_at) +
                             "\n" + gate.render(sources, step.question) + "\n" + gate.render(sources, step.answer) +
                             "\n" + gate.render(sources, prediction_prompt(step));
    for (const std::string& form : figures_of(step, sources)) {
        const std::string f = form.substr(0, form.find('\t')), metric = form.substr(form.find('\t') + 1);
        if (shows(text, f)) out.push_back("the text shows " + f + " (" + metric + ")");
    }
    if (!gate.withholds_plot()) out.push_back("the plot is drawn");
    // The strip and the plot draw runs: every recorded run of the judged rung, sizes, parameters
    // and dtype waits, whichever recording, L2 state or measuring mode it came from (the strip
    // shows the newest, which need not be the run the binding picks).
    std::map<std::string, int64_t> sizes, params, unlisted;  // unlisted: a run recorded before a parameter existed
    std::string dtype = step.dtype;
    for (const Ladder& l : course().ladders)
        if (l.id == step.ladder) {
            sizes.insert(l.default_sizes.begin(), l.default_sizes.end());
            if (const Rung* rung = l.find_rung(step.rung)) {
                for (const auto& p : rung->params) params[p.name] = p.default_value;
                for (const auto& p : rung->params) unlisted[p.name] = p.before.value_or(p.default_value);
                const std::vector<DType>& dts = rung->dtypes.empty() ? l.dtypes : rung->dtypes;
                if (dtype.empty()) dtype = dts.empty() ? "fp32" : to_string(dts.front());
            }
        }
    for (const auto& [k, v] : step.sizes) sizes[k] = v;
    for (const auto& [k, v] : step.params) params[k] = v;
    for (const auto& [k, v] : step.predict_at) (sizes.count(k) ? sizes : params)[k] = v;
    auto judged_run = [&](const RunRecord& r) {
        if (r.ladder != step.ladder || r.rung != step.rung || to_string(r.dtype) != dtype) return false;
        for (const auto& [k, v] : sizes)
            if (r.sizes.count(k) && r.sizes.at(k) != v) return false;
        for (const auto& [k, v] : params)
            if ((r.params.count(k) ? r.params.at(k) : unlisted[k]) != v) return false;
        return true;
    };
    for (const auto& [origin, file] : sources.recorded())
        for (const RunRecord& r : file.runs)
            if (judged_run(r) && !gate.withholds(r))
                out.push_back("the strip is given the judged run of " + origin + " (L2 " + r.l2 + ")");
    return out;
}

std::string name_of(const Lesson& l, size_t i) { return l.id + " step " + std::to_string(i + 1); }

}  // namespace

TEST(RevealGate, NoPredictStepShowsItsFigureBeforeThePrediction) {
    const Course& c = course();
    ASSERT_GE(c.lessons.size(), 10u);
    size_t steps = 0;
    for (const Lesson& l : c.lessons)
        for (size_t i = 0; i < l.steps.size(); ++i) {
            const LessonStep& st = l.steps[i];
            if (st.predict_metric.empty()) continue;
            ++steps;
            ASSERT_TRUE(c.sources->resolve(prediction_binding(st)).ok) << name_of(l, i);
            for (const std::string& leak : leaks(st, RevealGate(st, c.ladders, false), *c.sources))
                ADD_FAILURE() << name_of(l, i) << ": " << leak;
        }
    EXPECT_GE(steps, 80u);
}

TEST(RevealGate, PlantedLeaksAreCaught) {
    const Course& c = course();
    // Lesson 4's fused GeLU (it quotes its own bandwidth past the marker), planted in copies.
    const LessonStep* fused = nullptr;
    for (const Lesson& l : c.lessons)
        for (const LessonStep& st : l.steps)
            if (st.rung == "gelu_fused" && st.predict_metric == "gbps" && st.reveal_at != std::string::npos && !fused)
                fused = &st;
    ASSERT_TRUE(fused);
    const RevealGate closed(*fused, c.ladders, false);
    ASSERT_TRUE(leaks(*fused, closed, *c.sources).empty());
    auto caught = [](const std::vector<std::string>& found, const std::string& what) {
        for (const auto& l : found)
            if (l.find(what) != std::string::npos) return true;
        return false;
    };
    // A bound figure of the judged run above the marker is withheld, whatever its unit.
    LessonStep bound = *fused;
    bound.text =
        "Measured: {{ elementwise/gelu_fused ms TPB=256 n=2^28 }}, {{ elementwise/gelu_fused pct_copy | .0 }}.\n" +
        bound.text;
    bound.reveal_at += bound.text.size() - fused->text.size();
    EXPECT_TRUE(leaks(bound, RevealGate(bound, c.ladders, false), *c.sources).empty());
    // The figure typed past the marker waits with it; the marker lost, it shows.
    LessonStep typed_below = *fused;
    typed_below.text +=
        "\nIt measured " + c.sources->render("{{ elementwise/gelu_fused gbps TPB=256 n=2^28 }}") + ".\n";
    EXPECT_TRUE(leaks(typed_below, closed, *c.sources).empty());
    typed_below.reveal_at = std::string::npos;
    EXPECT_TRUE(caught(leaks(typed_below, RevealGate(typed_below, c.ladders, false), *c.sources), "the text shows"));
    // A derived figure typed out (not bound) in look_at: the gate cannot withhold it.
    LessonStep typed = *fused;
    typed.look_at += " About " + c.sources->render("{{ elementwise/gelu_fused pct_copy | .0 }}") + " of the line.";
    EXPECT_TRUE(caught(leaks(typed, closed, *c.sources), "the text shows"));
    // A gate that lets everything through: the bound figures, the plot and the strip leak.
    std::vector<std::string> open = leaks(bound, RevealGate(bound, c.ladders, true), *c.sources);
    EXPECT_TRUE(caught(open, "the text shows")) << ::testing::PrintToString(open);
    EXPECT_TRUE(caught(open, "the plot is drawn"));
    EXPECT_TRUE(caught(open, "the strip is given"));
}

TEST(RevealGate, WithholdsTheJudgedRunInEveryUnitAndNothingElse) {
    const Course& c = course();
    const LessonStep* fused = nullptr;
    for (const Lesson& l : c.lessons)
        for (const LessonStep& st : l.steps)
            if (st.rung == "gelu_fused" && st.predict_metric == "gbps" && !fused) fused = &st;
    ASSERT_TRUE(fused);
    const RevealGate gate(*fused, c.ladders, false);
    auto withheld = [&](const std::string& text) {
        std::vector<Binding> bs = find_bindings(text, nullptr);
        return bs.size() == 1 && gate.withholds(bs[0]);
    };
    EXPECT_TRUE(withheld("{{ elementwise/gelu_fused gbps TPB=256 n=2^28 }}"));
    EXPECT_TRUE(withheld("{{ elementwise/gelu_fused ms }}"));  // the defaults are the step's run
    EXPECT_TRUE(withheld("{{ elementwise/gelu_fused pct_copy | .0 }}"));
    EXPECT_TRUE(withheld("{{ elementwise/gelu_fused us n=268435456 from=h100_elementwise }}"));
    EXPECT_TRUE(withheld("{{ elementwise/gelu_fused ms l2=warm }}"));    // at 2^28 warm times like cold
    EXPECT_FALSE(withheld("{{ elementwise/gelu_fused gbps n=2^20 }}"));  // another run
    EXPECT_FALSE(withheld("{{ elementwise/gelu_unfused gbps }}"));       // another rung
    EXPECT_FALSE(withheld("{{ elementwise/gelu_fused rel_l2 }}"));       // not derived from the time
    EXPECT_FALSE(withheld("{{ device copy_gbps }}"));
    EXPECT_EQ(c.sources->render("{{ elementwise/gelu_fused gbps }}", nullptr, nullptr,
                                [&](const Binding& b) { return gate.withholds(b); }),
              kWithheldShown);
    EXPECT_FALSE(RevealGate(*fused, c.ladders, true).closed());
    // Rung sources quote measured figures in their headers: masked while closed.
    EXPECT_EQ(gate.source_line("// H100: 320 TFLOP/s at d = 64, 78% of the copy line"),
              std::string("// H100: ") + kWithheldShown + " at d = 64, " + kWithheldShown + " of the copy line");
    EXPECT_EQ(gate.source_line("float v = x[i] * 0.5f;  // sm_90"), "float v = x[i] * 0.5f;  // sm_90");
}

}  // namespace kl_test_reveal
