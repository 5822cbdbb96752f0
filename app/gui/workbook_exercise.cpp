// A lesson step's live exercise (course/exercise.h, `[step.exercise]`) on the learner's rung:
// "Make it mine" forks the exercise's starter; each run then sends the learner's rung at the
// exercise's size, at every hidden size (odd shapes), and the starter's rung and the rungs its goal
// names to beat (rung.ID.METRIC) beside it at the same size; the goal is judged against those records and shown as met
// or not, clause by clause, with the measured figures.
#include <imgui.h>

#include <algorithm>

#include "base/errors.h"
#include "course/exercise.h"
#include "gui/class_window.h"
#include "gui/widgets.h"
#include "gui/workbook.h"

namespace kl::gui {

namespace {
Sizes with(const Sizes& base, const std::map<std::string, int64_t>& over) {
    Sizes s = base;
    for (const auto& [k, v] : over) s[k] = v;
    return s;
}

// A rung to beat runs in the exercise's data type when it has it, else in its own (an fp32 rung
// beside a bf16 tensor-core exercise), as `kladder try` and `kladder submit` run it.
std::string rival_dtype(const Rung& rival, DType exercise_dtype) {
    for (DType d : rival.dtypes)
        if (d == exercise_dtype) return to_string(d);
    return rival.dtypes.empty() ? to_string(exercise_dtype) : to_string(rival.dtypes.front());
}
// The hints revealed so far, and a button for the next one; after the last, where the reference
// solution is (a file no step shows).
void draw_exercise_hints(const StepExercise& ex, int& shown) {
    if (ex.hints.empty()) return;
    shown = std::min<int>(shown, static_cast<int>(ex.hints.size()));
    for (int i = 0; i < shown; ++i) ImGui::BulletText("Hint %d: %s", i + 1, ex.hints[size_t(i)].c_str());
    if (shown < static_cast<int>(ex.hints.size())) {
        const std::string label = "Hint " + std::to_string(shown + 1) + " of " + std::to_string(ex.hints.size());
        if (ImGui::SmallButton(label.c_str())) ++shown;
        test_target("button:exercise_hint");
    } else if (!ex.solution_path.empty()) {
        ImGui::TextDisabled("That was the last hint. The reference solution: %s", ex.solution_path.c_str());
    }
}

}  // namespace

void Workbook::start_exercise(const StepExercise& ex) {
    const LessonStep* st = step();
    std::string from = !ex.starter_rung.empty() ? ex.starter_rung : st ? st->rung : "";
    const Rung* r = ladder_ ? ladder_->find_rung(from) : nullptr;
    if (!r) {
        learner_.message = "this exercise's starter rung '" + from + "' is not on the ladder";
        learner_.message_error = true;
        return;
    }
    Sizes main = with(sizes_, ex.sizes);
    make_it_mine(*r, ex.starter_path);
    if (learner_.forked_from != from) return;  // the fork failed; the panel says why
    learner_.exercise = ex;
    learner_.exercise_sizes = main;
    learner_.exercise_hints_shown = 0;
}

// The learner's rung at the exercise's size and hidden sizes, and the starter beside it.
bool Workbook::submit_exercise_runs(const Rung& mine) {
    if (!learner_.exercise || !runner_.client || runner_.job) return false;
    const StepExercise& ex = *learner_.exercise;
    Job job;
    job.kind = Job::Kind::Rung;
    job.label = mine.title + " (exercise: " + std::to_string(1 + ex.hidden_sizes.size()) + " sizes and the starter)";
    job.started = std::chrono::steady_clock::now();
    ParamValues params = params_for(mine);
    submit_to(job, mine, params, learner_.exercise_sizes);
    for (const auto& h : ex.hidden_sizes) submit_to(job, mine, params, with(learner_.exercise_sizes, h));
    if (const Rung* like = ladder_->find_rung(learner_.forked_from))
        submit_to(job, *like, params_for(*like), learner_.exercise_sizes);
    for (const std::string& id : ex.beat) {  // the rungs the goal names to beat, timed beside
        const Rung* rival = ladder_->find_rung(id);
        if (!rival || id == learner_.forked_from) continue;
        RunRequest req = make_request(*rival, params_for(*rival), learner_.exercise_sizes);
        req.dtype = parse_dtype(rival_dtype(*rival, dtype_)).value_or(dtype_);
        const uint64_t rid = runner_.client->submit(req);
        job.requests.push_back(rid);
        job.open.insert(rid);
    }
    for (uint64_t id : job.requests) learner_.requests.insert(id);
    start_job(std::move(job), "");
    log("exercise run of " + ladder_->id + "/" + mine.id + " at " + format_sizes(learner_.exercise_sizes) + " and " +
        std::to_string(ex.hidden_sizes.size()) + " hidden sizes");
    return true;
}

// The goal against the newest records at the exercise's sizes (nullopt until they all exist).
std::optional<GoalVerdict> Workbook::exercise_verdict() const {
    if (!learner_.exercise || !ladder_) return std::nullopt;
    const StepExercise& ex = *learner_.exercise;
    GoalContext ctx;
    const StoredRun* mine = store_.latest(ladder_->id, learner_.rung, learner_.exercise_sizes, to_string(dtype_));
    if (!mine) return std::nullopt;
    ctx.mine = &mine->record;
    if (const StoredRun* like =
            store_.latest(ladder_->id, learner_.forked_from, learner_.exercise_sizes, to_string(dtype_)))
        ctx.like = &like->record;
    for (const std::string& id : ex.beat)
        if (const Rung* rival = ladder_->find_rung(id))
            if (const StoredRun* run =
                    store_.latest(ladder_->id, id, learner_.exercise_sizes, rival_dtype(*rival, dtype_)))
                ctx.rungs[id] = &run->record;
    for (const auto& h : ex.hidden_sizes) {
        const StoredRun* run =
            store_.latest(ladder_->id, learner_.rung, with(learner_.exercise_sizes, h), to_string(dtype_));
        if (!run) return std::nullopt;
        ctx.hidden.push_back(&run->record);
    }
    ctx.calibration = runner_.calibration;
    try {
        return evaluate_goal(parse_goal(ex.goal), ctx);
    } catch (const Error& e) {
        GoalVerdict v;
        v.summary = e.what();
        return v;
    }
}

// The exercise's task and goal; the verdict once the runs are in.
void Workbook::draw_exercise_goal() {
    if (!learner_.exercise) return;
    const StepExercise& ex = *learner_.exercise;
    const Palette& pal = palette();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("Exercise: %s. Goal: %s (checked at %s and %zu hidden sizes)", ex.title.c_str(),
                        ex.goal.c_str(), format_sizes(learner_.exercise_sizes).c_str(), ex.hidden_sizes.size());
    std::optional<GoalVerdict> v = exercise_verdict();
    if (!v) {
        ImGui::TextDisabled("Run it (Ctrl+S) to check the goal.");
    } else {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(v->met ? pal.good : pal.bad), "%s", v->summary.c_str());
        for (const auto& line : v->lines) ImGui::BulletText("%s", line.c_str());
    }
    draw_exercise_hints(ex, learner_.exercise_hints_shown);
    ImGui::PopTextWrapPos();
    learner_.goal_summary = v ? v->summary : "";
    // Submit: the same judged submission as `kladder submit`, for the step's exercise when the
    // learner's open rung was forked for it.
    SubmitContext ctx;
    const LessonStep* st = step();
    if (lesson() && st && st->exercise && st->exercise->starter_rung == ex.starter_rung)
        ctx.exercise = exercise_spec(*lesson(), step_);
    ctx.source = learner_.path;
    ctx.modified = learner_.editor.modified();
    ctx.gpu = runner_.gpu;
    ctx.no_gpu = runner_.gpu                      ? ""
                 : !runner_.no_gpu_reason.empty() ? runner_.no_gpu_reason
                 : !runner_.unavailable.empty()   ? runner_.unavailable
                 : options_.no_runner             ? "live runs are off (--no-runner)"
                                                  : "";
    draw_submit_panel(class_, ctx, settings_, &settings_dirty_);
}

// The step's exercise, where the learner has not started it yet (the Mine tab).
void Workbook::draw_step_exercise_offer() {
    const LessonStep* st = step();
    if (!st || !st->exercise || !ladder_ || ladder_->id != st->ladder) return;
    const StepExercise& ex = *st->exercise;
    section_label("THIS STEP'S EXERCISE");
    ImGui::PushFont(fonts_.bold);
    ImGui::TextWrapped("%s", ex.title.c_str());
    ImGui::PopFont();
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(bound(ex.text).c_str());
    ImGui::TextDisabled("Goal: %s", ex.goal.c_str());
    ImGui::PopTextWrapPos();
    if (primary_button("Make the starter mine")) start_exercise(ex);
    test_target("button:exercise_starter");
    ImGui::Spacing();
}

}  // namespace kl::gui
