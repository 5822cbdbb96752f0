// Lessons as data (lessons/<NN_id>/lesson.toml plus Markdown files; format in
// docs/formats.md). Every reference to a ladder, rung, parameter or size axis is validated
// against the loaded ladders, so a renamed rung breaks loudly at load, not in a lecture.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "course/figure_vocabulary.h"
#include "model/manifest.h"

namespace kl {

struct RunnerPreset {  // a step may demonstrate measuring mistakes
    std::optional<int> warmup, reps;
    std::optional<bool> cold_l2;
    std::string mode;  // [modes] a measuring mistake measured beside the right figure (run_modes.h)
};

// A live exercise (course/exercise.h, docs/formats.md `[step.exercise]`): the learner forks the
// starter, makes it meet the goal; every check also runs the hidden sizes (odd shapes).
struct StepExercise {
    std::string title, text;   // text: the task in words (bindings allowed)
    std::string starter_rung;  // the rung of the step's ladder to fork and run beside (default: the step's rung)
    std::string starter_file;  // or a starter .cu in the lesson folder, as written ...
    std::string starter_path;  // ... and resolved (confined to the lesson folder); "" when none
    std::string goal;          // parsed at load (parse_goal)
    std::string dtype;         // the data type it runs in: its own `dtype`, else the step's ("" for neither)
    std::map<std::string, int64_t> sizes;                      // the main run's size (default: the step's sizes)
    std::vector<std::map<std::string, int64_t>> hidden_sizes;  // size axes of the ladder, checked too
    std::vector<std::string> hints;                            // revealed one at a time, in this order (`kladder hint`)
    std::string solution_file;      // a reference solution in the lesson folder, shown only when asked ...
    std::string solution_path;      // ... and resolved (confined); "" when none
    std::vector<std::string> beat;  // the ladder's rungs the goal names (rung.ID.METRIC), run beside
    int line = 0;
};

// `trace = { rung = "transpose_smem", params = { TILE = 32 } }`: the address view (kladder trace)
// of that rung of the step's ladder at those parameters; rung defaults to the step's.
struct StepTrace {
    std::string rung;
    std::map<std::string, int64_t> params;
};

struct LessonStep {
    std::string title, text_path, text;  // text: the Markdown, read at load
    std::string ladder, rung, dtype, plot, sweep_axis, look_at, question, answer;
    std::string metric;  // what the plot shows: time|rate|pct (bars), time|rate|memory (sweep),
                         // bytes|sectors|conflicts|threads (traffic)
    // `plot` and `metric` in the figure vocabulary (figure_vocabulary.h), checked at load:
    // nullopt when the step names none (the metric: the kind's default).
    std::optional<PlotKind> plot_kind;
    std::optional<Metric> plot_metric;
    // Which recorded GPU the step's numbers come from: a part of the device's name ("H200");
    // "" for the first recorded device. Live runs always show.
    std::string device;
    std::map<std::string, int64_t> params, sizes;
    std::vector<int64_t> sweep_values;   // the step's sweep values (sweep_spec.h); empty: the window's choice
    std::vector<std::string> sweep_tie;  // size axes that follow sweep_axis (M = N = K)
    // Predict, then reveal (prediction.h): the run metric the learner predicts, the relative
    // tolerance that counts as right, and the short why shown beside the result (empty: the
    // step's answer); or why the step asks for no prediction.
    std::string predict_metric, predict_why, no_predict;
    // What the learner is asked to predict, in words ("vector_add's bandwidth at TPB = 128");
    // empty: the window names the rung, metric and run itself.
    std::string predict_ask;
    // The run the prediction is judged against: the step's rung at the step's sizes and
    // parameters, overridden by these (a parameter or size axis each), so a step that shows
    // TPB = 32 can ask about TPB = 128 (prediction_binding() in prediction.h).
    std::map<std::string, int64_t> predict_at;
    double predict_tolerance = 0;
    // Where the Markdown's `<!-- reveal -->` line stood (the marker itself is removed): the window
    // folds the text from here until a prediction is kept. npos: nothing folded.
    size_t reveal_at = std::string::npos;
    RunnerPreset runner;
    // `tool = "calculator"`: the step opens lesson 12's calculator (calculator.h) in the plot area.
    std::string tool;
    std::optional<StepExercise> exercise;
    std::optional<StepTrace> trace;
    int line = 0;
};

struct CheckQuestion {
    std::string question, answer;
    std::vector<std::string> choices;
    int correct = -1;  // index into choices, -1 for open questions
};

struct Flashcard {
    std::string front, back;
};

struct Lesson {
    std::string id, title, summary, dir, manifest_path;
    int number = 0;
    // The course's two tracks: "core" lessons run live on any sm_75+ GPU; an "appendix" lesson
    // needs a newer GPU for its live steps (`needs`, an architecture such as "sm_90") and is listed
    // apart, after the core.
    std::string track = "core";
    std::string needs;  // "" for the core
    bool appendix() const { return track == "appendix"; }
    std::vector<LessonStep> steps;
    std::vector<CheckQuestion> checks;
    std::vector<Flashcard> cards;
    std::string exercise_title, exercise_text;
};

// Throws InputError "<file>:<line>: <field>: <problem>".
Lesson load_lesson(const std::string& manifest_path, const std::vector<Ladder>& ladders);

struct LessonLoadError {
    std::string folder, message;
};

// Every lessons/*/lesson.toml, the core first, each track ordered by number then folder. Failures are returned as
// errors (the GUI lists them as error entries) and the rest load.
std::vector<Lesson> load_all_lessons(const std::string& lessons_root, const std::vector<Ladder>& ladders,
                                     std::vector<LessonLoadError>* errors);

// The sweep a lesson defines for `ladder` along `axis` (a step with that ladder and axis and
// values; one on `rung` preferred), or nullptr.
const LessonStep* find_lesson_sweep(const std::vector<Lesson>& lessons, const std::string& ladder,
                                    const std::string& rung, const std::string& axis);

}  // namespace kl
