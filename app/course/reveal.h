// Predict, then reveal, as a property of the course rather than of a panel: until the learner
// keeps a prediction (or asks to see the measurements), a step shows nothing that gives the
// predicted figure away. The gate says what is withheld: every binding of the judged run in the
// predicted metric or one derived from it (a time and every rate or percentage of that run; peak
// memory in GiB or MiB), the run itself wherever runs are drawn (the step's plot, the ladder
// strip and their tooltips), the Markdown past `<!-- reveal -->`, and the measured numbers typed
// in rung sources. The window and the handout export both ask it instead of deciding. No UI.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "course/bindings.h"
#include "course/lesson.h"
#include "model/manifest.h"
#include "model/results.h"

namespace kl {

class RevealGate {
  public:
    RevealGate() = default;  // open: withholds nothing (a step without predict, or once it is kept)
    // `committed`: the learner kept a prediction for `step`, or asked to see the measurements.
    RevealGate(const LessonStep& step, const std::vector<Ladder>& ladders, bool committed);

    bool closed() const { return closed_; }
    const std::string& target() const { return target_; }  // "ladder/rung" of the judged run while closed
    // A binding that quotes the judged run in the predicted metric's family (run_metric_family),
    // with a warm or a cold L2.
    bool withholds(const Binding& b) const;
    // A run of the judged identity (any file, any mode, either L2 state): its figures wait.
    bool withholds(const RunRecord& r) const;
    // The step's own figure is drawn from its rung's runs, so it waits whole.
    bool withholds_plot() const { return closed_; }

    // The step's Markdown as it may show: while closed, the part above `<!-- reveal -->` and a
    // line saying the rest waits; the whole text once open.
    std::string step_text(const LessonStep& step) const;
    // `text` with its bindings filled in from `sources`, the withheld ones as kWithheldShown.
    std::string render(const NumberSources& sources, const std::string& text, std::vector<BoundValue>* values = nullptr,
                       const std::function<std::string(const BoundValue&)>& wrap = nullptr) const;
    // A line of a rung's source with its measured numbers ("320 TFLOP/s", "78%", "0.92 ms")
    // masked while closed: rung headers still quote figures a step may ask for.
    std::string source_line(const std::string& line) const;

  private:
    bool closed_ = false;
    std::string target_, family_;      // "ladder/rung" and the predicted metric's family
    std::optional<WantedRun> judged_;  // nullopt: the prediction names no loadable run; its rung waits
    const std::vector<Ladder>* ladders_ = nullptr;
};

// Predict, then reveal across a lesson: the window draws runs of every rung (strip, bars, sweeps,
// tooltips), so a run that a later step asks the learner to predict would answer that step on an
// earlier one. This asks the gates of the current step and of every later predict step not yet
// committed, together: built once per step or commit change, asked per card and per bar.
class LessonRevealGate {
  public:
    LessonRevealGate() = default;  // open
    // `committed(i)`: step i's prediction is kept, or its measurements were asked for.
    LessonRevealGate(const Lesson& lesson, size_t current, const std::vector<Ladder>& ladders,
                     const std::function<bool(size_t)>& committed);
    const RevealGate& current() const { return current_; }
    // The step (index) whose prediction waits on `r`'s figures, the current step first; -1: none.
    int withholding_step(const RunRecord& r) const;
    // Why `r`'s figures are hidden: "" (they show), kHiddenUntilPredicted (the current step's
    // prediction), or "until step N's prediction" (a later step's, numbered from 1).
    std::string placeholder(const RunRecord& r) const;
    // The gate for measured numbers typed in `ladder/rung`'s source: the current step's while it
    // is closed, else a closed later step's on that rung, else an open one.
    const RevealGate& source_gate(const std::string& ladder, const std::string& rung) const;
    const std::vector<std::pair<size_t, RevealGate>>& closed() const { return closed_; }

  private:
    size_t current_index_ = 0;
    RevealGate current_;
    std::vector<std::pair<size_t, RevealGate>> closed_;  // step index and its closed gate, current first
};

extern const char* const kHiddenUntilPredicted;

// What the window and handouts put where the text past `<!-- reveal -->` waits.
extern const char* const kRevealWaits;

}  // namespace kl
