#include "course/reveal.h"

#include <regex>

#include "course/prediction.h"

namespace kl {

const char* const kRevealWaits =
    "*The rest of this page discusses the measurement: keep your prediction first, or show the measurements "
    "without one.*";

RevealGate::RevealGate(const LessonStep& step, const std::vector<Ladder>& ladders, bool committed)
    : closed_(!committed && !step.predict_metric.empty()), ladders_(&ladders) {
    if (!closed_) return;
    Binding judged = prediction_binding(step);
    target_ = judged.target;
    family_ = run_metric_family(judged.metric);
    std::string why;
    judged_ = wanted_run(judged, ladders, &why);
}

bool RevealGate::withholds(const Binding& b) const {
    if (!closed_ || b.target != target_ || run_metric_family(b.metric) != family_) return false;
    if (!judged_) return true;  // the judged run is unknown: every such figure of its rung waits
    std::string why;
    std::optional<WantedRun> want = wanted_run(b, *ladders_, &why);
    if (!want) return true;
    want->l2 = judged_->l2;  // warm or cold, the same kernel at the same size: a large run times alike
    return judged_->same_run(*want);
}

bool RevealGate::withholds(const RunRecord& r) const {
    if (!closed_) return false;
    if (!judged_) return r.ladder + "/" + r.rung == target_;
    WantedRun any_l2 = *judged_;  // the strip shows the newest recording, warm or cold
    any_l2.l2 = r.l2;
    return any_l2.identifies(r);
}

std::string RevealGate::step_text(const LessonStep& step) const {
    if (!closed_ || step.reveal_at > step.text.size()) return step.text;
    return step.text.substr(0, step.reveal_at) + "\n" + kRevealWaits + "\n";
}

std::string RevealGate::render(const NumberSources& sources, const std::string& text, std::vector<BoundValue>* values,
                               const std::function<std::string(const BoundValue&)>& wrap) const {
    if (!closed_) return sources.render(text, values, wrap);
    return sources.render(text, values, wrap, [this](const Binding& b) { return withholds(b); });
}

std::string RevealGate::source_line(const std::string& line) const {
    if (!closed_) return line;
    // A number with a unit of time, rate, share or memory, not part of a name ("sm_90", "x2ms").
    static const std::regex measured(
        "(^|[^A-Za-z0-9_.])([0-9][0-9,]*(\\.[0-9]+)?( ?(ms|µs|us|ns|GB/s|TB/s|GiB/s|TFLOP/s|GFLOP/s|TFLOPS|GiB|MiB)|%))"
        "(?![A-Za-z0-9/])");
    return std::regex_replace(line, measured, std::string("$1") + kWithheldShown);
}

const char* const kHiddenUntilPredicted = "until your prediction";

LessonRevealGate::LessonRevealGate(const Lesson& lesson, size_t current, const std::vector<Ladder>& ladders,
                                   const std::function<bool(size_t)>& committed)
    : current_index_(current) {
    // Earlier steps are behind the learner: what they asked is answered or was passed by.
    for (size_t i = current; i < lesson.steps.size(); ++i) {
        const LessonStep& st = lesson.steps[i];
        if (st.predict_metric.empty()) continue;
        RevealGate gate(st, ladders, committed(i));
        if (i == current) current_ = gate;
        if (gate.closed()) closed_.emplace_back(i, std::move(gate));
    }
}

int LessonRevealGate::withholding_step(const RunRecord& r) const {
    for (const auto& [index, gate] : closed_)
        if (gate.withholds(r)) return int(index);
    return -1;
}

std::string LessonRevealGate::placeholder(const RunRecord& r) const {
    const int step = withholding_step(r);
    if (step < 0) return "";
    if (size_t(step) == current_index_) return kHiddenUntilPredicted;
    return "until step " + std::to_string(step + 1) + "'s prediction";
}

const RevealGate& LessonRevealGate::source_gate(const std::string& ladder, const std::string& rung) const {
    static const RevealGate open;
    if (current_.closed()) return current_;
    for (const auto& [index, gate] : closed_)
        if (gate.target() == ladder + "/" + rung) return gate;
    return open;
}

}  // namespace kl
