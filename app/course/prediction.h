// Predict, then reveal: a lesson step may ask for the learner's number before the run
// (`predict = { metric = "gbps", tolerance = 0.25, why = "..." }`, docs/formats.md), keep it,
// and after a result set it against the measurement. Predictions are kept per learner in the
// XDG data folder ($XDG_DATA_HOME/kernel-ladder/progress.json), never in the repository.
// No CUDA, no UI.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "course/bindings.h"
#include "course/lesson.h"
#include "model/results.h"
#include "model/run_metrics.h"

namespace kl {

// The number a step's prediction is judged against, as a binding: the step's rung and predicted
// metric at the step's sizes, parameters and dtype, overridden by `predict.at`. It resolves like
// any bound number (the learner's live run first, else the recordings), so `kladder
// check-lessons` can refuse a prediction that no recording answers. Only for a step with predict.
Binding prediction_binding(const LessonStep& step);
// "TPB = 128, n = 2^28": the judged run's settings that differ from what the step shows
// (`predict.at`), for the window's prompt; "" when the step's own run is judged.
std::string prediction_at_text(const LessonStep& step);
// What the learner is asked, before bindings are filled in: `predict.ask`, else "Predict what
// RUNG measures, in UNIT, at AT." (the window's prompt, the handout's).
std::string prediction_prompt(const LessonStep& step);

struct PredictionVerdict {
    double ratio = 0;     // measured / predicted
    bool within = false;  // |measured - predicted| <= tolerance x |measured|
    std::string line;     // "You predicted 1,500 GB/s; measured 1,276 GB/s: 18% high, within 25%."
};
PredictionVerdict judge_prediction(double predicted, double measured, double tolerance, const std::string& unit);

// Predictions by lesson id, then step index. Loading a missing file gives none; a damaged one
// gives none and a warning (the file is left for the learner to inspect).
class PredictionStore {
  public:
    explicit PredictionStore(std::string path) : path_(std::move(path)) {}
    static std::string default_path();  // data_dir()/progress.json
    void load(std::string* warning);
    void save() const;  // atomic; throws InputError naming the path
    std::optional<double> get(const std::string& lesson, int step) const;
    void set(const std::string& lesson, int step, double value);
    void reset(const std::string& lesson);  // every prediction of the lesson
    const std::string& path() const { return path_; }

  private:
    std::string path_;
    std::map<std::string, std::map<int, double>> values_;
};

}  // namespace kl
