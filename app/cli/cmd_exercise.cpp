// `kladder hint LESSON/STEP [N]`: an exercise's hints 1..N, one more each time the learner asks
//   (the hints go from a nudge to the last step before the answer; N past the last is one line,
//   exit 2). Nothing is remembered: asking for hint 3 shows 1, 2 and 3.
// `kladder solution LESSON/STEP`: the exercise's reference solution (its `solution` file, kept in
//   the lesson's solutions/ folder, which no lesson step shows), printed only when asked.
// `kladder exercises`: every live exercise, one line each (id, ladder, starter, rungs to beat,
//   hints, solution), for scripts such as tests/cli/exercises_gpu.sh.
// compile_exercise_files (for `kladder check-kernels`): every exercise's starter file and
//   reference solution NVRTC-compiled as its starter rung would be (the same staging as `kladder
//   try`), each required to define the starter's kernels: no GPU needed, so CI compiles them.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "cli_common.h"
#include "commands.h"
#include "course/lesson.h"
#include "gpu/compiler.h"
#include "gpu/runner.h"
#include "model/arch.h"
#include "model/device_profile.h"
#include "model/try_staging.h"

namespace kl::cli {

namespace {

struct HintOptions {
    std::string exercise;
    int count = 1;
};

int hint_main(const HintOptions& o) {
    auto ladders = load_ladders_or_throw();
    Lesson lesson;
    const LessonStep* step = find_exercise(o.exercise, ladders, &lesson);
    const StepExercise& ex = *step->exercise;
    const int total = static_cast<int>(ex.hints.size());
    if (total == 0) throw InputError(o.exercise + ": this exercise has no hints");
    if (o.count < 1 || o.count > total)
        throw InputError("hint " + std::to_string(o.count) + ": " + o.exercise + " has hints 1.." +
                         std::to_string(total));
    std::printf("%s: %s\n", printable(o.exercise).c_str(), printable(ex.title).c_str());
    for (int i = 0; i < o.count; ++i)
        std::printf("hint %d of %d: %s\n", i + 1, total, printable(ex.hints[size_t(i)]).c_str());
    if (o.count < total)
        std::printf("(next: kladder hint %s %d)\n", printable(o.exercise).c_str(), o.count + 1);
    else if (!ex.solution_path.empty())
        std::printf("(that was the last hint; the reference solution: kladder solution %s)\n",
                    printable(o.exercise).c_str());
    return 0;
}

int solution_main(const std::string& spec) {
    auto ladders = load_ladders_or_throw();
    Lesson lesson;
    const LessonStep* step = find_exercise(spec, ladders, &lesson);
    if (step->exercise->solution_path.empty()) throw InputError(spec + ": this exercise has no reference solution");
    std::printf("%s", read_file(step->exercise->solution_path).c_str());
    return 0;
}

int exercises_main() {
    auto ladders = load_ladders_or_throw();
    std::vector<LessonLoadError> errors;
    std::vector<Lesson> lessons = load_all_lessons(lessons_dir(), ladders, &errors);
    for (const auto& e : errors) std::fprintf(stderr, "kladder: %s\n", printable(e.message, kMessageChars).c_str());
    for (const Lesson& l : lessons)
        for (size_t i = 0; i < l.steps.size(); ++i) {
            const auto& ex = l.steps[i].exercise;
            if (!ex) continue;
            std::string beat;
            for (const auto& b : ex->beat) beat += (beat.empty() ? "" : ",") + b;
            const std::string folder = std::filesystem::path(l.dir).filename().string();  // as submit takes it
            std::printf("%s/%zu ladder=%s starter=%s beat=%s hints=%zu solution=%s\n", folder.c_str(), i + 1,
                        l.steps[i].ladder.c_str(), ex->starter_rung.c_str(), beat.empty() ? "-" : beat.c_str(),
                        ex->hints.size(), ex->solution_file.empty() ? "-" : printable(ex->solution_file).c_str());
        }
    return errors.empty() ? 0 : static_cast<int>(ExitCode::BadInput);
}

// One exercise file compiled as `starter` at its default parameters; "" when it compiled and
// defines every kernel the starter launches, else what went wrong.
std::string compile_exercise_file(const Rung& starter, const std::string& path, DType dtype, const std::string& arch) {
    const TryStaging staging(path, "exercise_file.cu", std::filesystem::path(starter.source_path).parent_path());
    Rung r = starter;
    r.source_path = staging.source();
    CompileRequest req;
    req.source_path = r.source_path;
    req.defines = compile_defines(r, resolve_params(r, {}), dtype);
    req.arch = rung_arch(r, arch);
    req.label = "exercise " + path;
    try {
        const CompiledCode c = compile_kernel(req);
        for (const auto& l : r.launches)
            if (!l.entry.empty() && c.code.find(".text." + l.entry + std::string(1, '\0')) == std::string::npos)
                return "no kernel '" + l.entry + "' (the starter's launch entry)";
    } catch (const CompileError& e) { return printable_lines(e.log()); }
    return "";
}

}  // namespace

ExerciseCompileCounts compile_exercise_files(const std::vector<Ladder>& ladders, const std::string& arch,
                                             const std::string& only_ladder, bool verbose) {
    ExerciseCompileCounts n;
    std::vector<LessonLoadError> errors;  // check-lessons reports these; a lesson that fails has no exercise here
    const int cc = parse_arch(arch).cc;
    for (const Lesson& l : load_all_lessons(lessons_dir(), ladders, &errors))
        for (size_t i = 0; i < l.steps.size(); ++i) {
            const LessonStep& s = l.steps[i];
            if (!s.exercise || (!only_ladder.empty() && s.ladder != only_ladder)) continue;
            const Ladder* L = nullptr;
            for (const Ladder& each : ladders) L = each.id == s.ladder ? &each : L;
            const Rung* starter = L ? L->find_rung(s.exercise->starter_rung) : nullptr;
            if (!starter || starter->is_triton() || !rung_arch_refusal(*starter, cc).empty()) continue;
            const DType dtype = parse_dtype(s.exercise->dtype).value_or(starter->dtypes.front());
            const std::string id = std::filesystem::path(l.dir).filename().string() + "/" + std::to_string(i + 1);
            for (const std::string* path : {&s.exercise->starter_path, &s.exercise->solution_path}) {
                if (path->empty()) continue;
                const std::string why = compile_exercise_file(*starter, *path, dtype, arch);
                const char* what = path == &s.exercise->starter_path ? "starter" : "solution";
                if (why.empty()) {
                    ++n.compiled;
                    if (verbose) std::printf("ok    exercise %s %s %s\n", id.c_str(), what, arch.c_str());
                } else {
                    ++n.failed;
                    std::printf("FAIL  exercise %s %s (%s) %s\n%s\n", id.c_str(), what, printable(*path).c_str(),
                                arch.c_str(), why.c_str());
                }
            }
        }
    return n;
}

Action add_hint_command(CLI::App& app) {
    auto opt = std::make_shared<HintOptions>();
    app.add_option("exercise", opt->exercise, "the exercise, LESSON/STEP, e.g. 05_softmax/11")->required();
    app.add_option("n", opt->count, "show hints 1..N (default 1: ask again with 2 for the next)");
    return [opt] { return hint_main(*opt); };
}

Action add_solution_command(CLI::App& app) {
    auto spec = std::make_shared<std::string>();
    app.add_option("exercise", *spec, "the exercise, LESSON/STEP, e.g. 05_softmax/11")->required();
    return [spec] { return solution_main(*spec); };
}

Action add_exercises_command(CLI::App&) {
    return [] { return exercises_main(); };
}

}  // namespace kl::cli
