// Predict, then reveal: a step with `predict` asks for the learner's number before the run,
// keeps it (PredictionStore, XDG data folder), and once a result of the step's rung is on
// screen (live, or recorded when there is no GPU) sets the two side by side with the step's why.
#include <imgui.h>

#include <algorithm>

#include "base/errors.h"
#include "base/paths.h"
#include "course/bindings.h"
#include "course/prediction.h"
#include "gui/widgets.h"
#include "gui/workbook.h"
#include "report/figure_withhold.h"

namespace kl::gui {

PredictionStore& Workbook::predictions() {
    if (!predict_.store) {
        predict_.store = std::make_shared<PredictionStore>(PredictionStore::default_path());
        std::string warning;
        predict_.store->load(&warning);
        if (!warning.empty()) log("predictions: " + warning);
    }
    return *predict_.store;
}

const LessonRevealGate& Workbook::reveal_gate() {
    RevealCache& c = reveal_;
    const Lesson* l = lesson();
    // Which predict steps are committed: a few map look-ups a frame; the gate is built again
    // only when they, the lesson or the step change.
    std::vector<bool> committed;
    if (l) {
        committed.assign(l->steps.size(), true);
        for (size_t i = 0; i < l->steps.size(); ++i)
            if (!l->steps[i].predict_metric.empty())
                committed[i] = predict_.revealed == &l->steps[i] || predictions().get(l->id, int(i)).has_value();
    }
    if (c.lesson == lesson_ && c.step == step_ && c.committed == committed) return c.gate;
    c.lesson = lesson_;
    c.step = step_;
    c.committed = committed;
    const bool planted = c.current_step_only;  // --plant-reveal-leak: later steps count as committed
    c.gate = l ? LessonRevealGate(*l, size_t(std::max(step_, 0)), ladders_,
                                  [&](size_t i) { return committed[i] || (planted && int(i) != step_); })
               : LessonRevealGate();
    ++c.generation;
    return c.gate;
}

// For the reveal walk (tests/gui/reveal_walk.sh): what the plot drew, and each figure a prediction
// not yet kept waits for (this step's and later ones'), resolved as the bindings resolve it, so that
// the test can look for it in what the strip and the plot printed.
nlohmann::json Workbook::reveal_report() const {
    nlohmann::json waiting = nlohmann::json::array();
    const Lesson* l = lesson();
    // From the steps and what was committed, not from the gate: a gate that forgets a step
    // (--plant-reveal-leak) must not make the walk forget it too.
    for (size_t index = size_t(std::max(step_, 0)); l && bound_.numbers && index < l->steps.size(); ++index) {
        if (l->steps[index].predict_metric.empty() || (index < reveal_.committed.size() && reveal_.committed[index]))
            continue;
        nlohmann::json figures = nlohmann::json::object();
        for (const char* metric : {"ms", "gbps", "tflops"}) {
            Binding b = prediction_binding(l->steps[index]);
            b.metric = metric;
            BoundValue v = bound_.numbers->resolve(b);
            if (v.ok) figures[metric] = v.value;
        }
        waiting.push_back({{"step", index + 1},
                           {"target", l->steps[index].ladder + "/" + l->steps[index].rung},
                           {"figures", figures}});
    }
    // The plot as last drawn, when it is drawn for what is on screen now (not folded, not stale).
    const bool drawn = !reveal_.gate.current().withholds_plot() && plots_.built_for.view_version == view_.version &&
                       plots_.request.plot != PlotKind::Occupancy;
    return {{"waiting", waiting},
            {"plot_drawn", drawn},
            {"plot_caption", drawn ? plots_.built.figure.caption : ""},
            {"plot_values", drawn ? report::drawn_values(plots_.built) : std::vector<double>{}}};
}

// Unfolds the step's measurements without a prediction (nullptr: folds them again); the step
// text is parsed again, with or without the part past `<!-- reveal -->`.
void Workbook::reveal_measurements(const LessonStep* st) {
    predict_.revealed = st;
    text_.parsed_for = nullptr;
}

bool Workbook::draw_plot_fold() {
    if (!measurements_folded()) return false;
    const float s = fonts_.scale;
    ImGui::Dummy(ImVec2(0, 40 * s));
    text_centered("The plot shows the measurements this step asks you to predict.", palette().muted);
    text_centered("Keep your prediction under the step's text first.", palette().faint);
    ImGui::Dummy(ImVec2(0, 8 * s));
    const char* label = "Show the measurements without predicting##plot";
    float w = ImGui::CalcTextSize("Show the measurements without predicting").x + 2 * ImGui::GetStyle().FramePadding.x;
    ImGui::SetCursorPosX(std::max(0.0f, (ImGui::GetWindowContentRegionMax().x - w) * 0.5f));
    if (ImGui::SmallButton(label)) { reveal_measurements(step()); }
    test_target("button:reveal_plot");
    return true;
}

// The kept prediction against the judged run (live first, else the recording), with the why.
void Workbook::draw_prediction_verdict(const LessonStep& st, double kept, const std::string& unit,
                                       const std::string& at) {
    const Palette& pal = palette();
    BoundValue measured = numbers().resolve(prediction_binding(st));
    if (!measured.ok) {
        ImGui::TextWrapped("You predicted %s. Run %s%s to see the measurement.",
                           format_bound(kept, unit, -1, false).c_str(), st.rung.c_str(),
                           at.empty() ? "" : (" with " + at).c_str());
    } else {
        PredictionVerdict verdict = judge_prediction(kept, measured.value, st.predict_tolerance, unit);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(verdict.within ? pal.good : pal.bad));
        ImGui::TextWrapped("%s", verdict.line.c_str());
        ImGui::PopStyleColor();
        std::string where = measured.live ? "your run in this session" : measured.source_line();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.muted));
        ImGui::TextWrapped("Measurement: %s.", where.c_str());
        ImGui::PopStyleColor();
        const std::string& why = bound(st.predict_why.empty() ? st.answer : st.predict_why);
        if (!why.empty()) ImGui::TextWrapped("Why: %s", why.c_str());
    }
}

void Workbook::draw_prediction(const LessonStep& st) {
    const Lesson* l = lesson();
    if (!l) return;
    const Palette& pal = palette();
    float s = fonts_.scale;
    if (st.predict_metric.empty()) {
        if (!st.no_predict.empty()) {
            ImGui::Dummy(ImVec2(0, 4 * s));
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.muted));
            ImGui::TextWrapped("No prediction on this step: %s", bound(st.no_predict).c_str());
            ImGui::PopStyleColor();
        }
        return;
    }
    std::string unit = run_metric_unit(st.predict_metric);
    PredictionStore& store = predictions();
    std::optional<double> kept = store.get(l->id, step_);
    ImGui::Dummy(ImVec2(0, 4 * s));
    begin_callout("##prediction");
    ImGui::PushFont(fonts_.bold);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.accent));
    ImGui::TextUnformatted("Your prediction");
    ImGui::PopStyleColor();
    ImGui::PopFont();
    // What is predicted, and of which run: the step's own unless predict.at moves it.
    std::string at = prediction_at_text(st);
    std::string ask = reveal_gate().current().render(numbers(), prediction_prompt(st));
    ImGui::TextWrapped("%s", ask.c_str());
    if (!at.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.muted));
        ImGui::TextWrapped("Judged against %s at %s (the step shows another setting).", st.rung.c_str(), at.c_str());
        ImGui::PopStyleColor();
    }
    auto save = [&] {
        try {
            store.save();
        } catch (const Error& e) { log(std::string("predictions: ") + e.what()); }
    };
    if (!kept || predict_.changing) {
        if (predict_.input_for != &st) {
            predict_.input = kept.value_or(0);
            predict_.input_for = &st;
        }
        ImGui::TextWrapped("Within %.0f%% of the measurement counts as right.", st.predict_tolerance * 100);
        ImGui::SetNextItemWidth(140 * s);
        ImGui::InputDouble(("##predict_value" + unit).c_str(), &predict_.input, 0, 0, "%.4g");
        test_target("input:prediction");
        ImGui::SameLine();
        ImGui::TextUnformatted(unit.c_str());
        ImGui::SameLine();
        if (ImGui::Button("Keep") && predict_.input > 0) {
            store.set(l->id, step_, predict_.input);
            predict_.changing = false;
            save();
            text_.parsed_for = nullptr;  // unfold the text past `<!-- reveal -->`
        }
        test_target("button:keep_prediction");
        if (predict_.revealed != &st) {
            if (ImGui::SmallButton("Show the measurements without predicting")) { reveal_measurements(&st); }
            item_tooltip("Unfold the rest of the step's text without keeping a prediction.");
            test_target("button:reveal");
        }
    } else {
        draw_prediction_verdict(st, *kept, unit, at);
        if (ImGui::SmallButton("Change my prediction")) predict_.changing = true;
        ImGui::SameLine();
        if (ImGui::SmallButton("Reset this lesson's progress")) {
            // Predictions (data folder) and self-check answers (saved with the settings).
            store.reset(l->id);
            save();
            reveal_measurements(nullptr);  // folded again
            progress().answers.clear();
            settings_dirty_ = true;
        }
        item_tooltip("Forget your predictions and self-check answers in this lesson.");
        test_target("button:reset_predictions");
    }
    end_callout(pal.accent, with_alpha(pal.accent, 0.08f));
}

}  // namespace kl::gui
