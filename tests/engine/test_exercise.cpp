// Live exercises: goals parsed and judged against run records (met / not met with the measured
// figure, hidden sizes part of `correct`), and `[step.exercise]` validated at lesson load.
#include <gtest/gtest.h>

#include <sstream>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "course/exercise.h"
#include "course/lesson.h"
#include "model/manifest_load.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_exercise {

using namespace kl;

namespace {

RunRecord run(double ms, double gbps, bool passed, std::map<std::string, int64_t> sizes = {{"n", 1 << 20}}) {
    RunRecord r;
    r.sizes = std::move(sizes);
    TimingStats t;
    t.median_ms = ms;
    r.timing = t;
    r.values.set(tag::gbps, gbps);
    Correctness c;
    c.passed = passed;
    c.elements = 100;
    c.mismatches = passed ? 0 : 7;
    c.rel_l2 = passed ? 1e-7 : 0.5;
    r.correctness = c;
    return r;
}

Calibration calibration(double copy_gbps) {
    Calibration c;
    c.copy_gbps = copy_gbps;
    c.bf16_tflops = 700;
    return c;
}

std::vector<Ladder> shipped_ladders() {
    std::vector<std::string> errors;
    return load_all_ladders(kernels_dir(), &errors);
}

// A lesson whose one step runs elementwise/vector_add and carries `exercise` (TOML lines).
std::string exercise_error(const std::string& exercise) {
    TempTree t;
    t.write("l/s.md", "# Step\n");
    t.write("l/starter.cu", "extern \"C\" __global__ void vector_add() {}\n");
    t.write("l/lesson.toml",
            "[lesson]\nid = \"t\"\nnumber = 1\ntitle = \"T\"\n\n[[step]]\ntitle = \"S\"\ntext = "
            "\"s.md\"\nladder = \"elementwise\"\nrung = \"vector_add\"\nno_predict = \"test\"\n"
            "  [step.exercise]\n" +
                exercise);
    return input_error_of([&] { load_lesson(t.path("l/lesson.toml"), shipped_ladders()); });
}

}  // namespace

TEST(Exercise, GoalAgainstTheDeviceCopyBandwidthIsMetOrNotWithTheFigure) {
    Goal g = parse_goal("correct and gbps >= 0.8 * device.copy_gbps");
    ASSERT_EQ(g.clauses.size(), 2u);
    RunRecord fast = run(1.0, 2500, true), slow = run(2.0, 2000, true);
    GoalContext ctx;
    ctx.calibration = calibration(3000);
    ctx.mine = &fast;
    GoalVerdict v = evaluate_goal(g, ctx);
    EXPECT_TRUE(v.met) << v.summary;
    EXPECT_EQ(v.summary, "goal met");
    EXPECT_EQ(v.lines[1], "gbps 2500 GB/s >= 0.8 x device.copy_gbps 3000 = 2400: met");
    ctx.mine = &slow;
    v = evaluate_goal(g, ctx);
    EXPECT_FALSE(v.met);
    EXPECT_EQ(v.summary, "goal not met: gbps 2000 GB/s >= 0.8 x device.copy_gbps 3000 = 2400: not met");
}

TEST(Exercise, AFailedHiddenSizeMakesCorrectFail) {
    Goal g = parse_goal("correct");
    RunRecord mine = run(1.0, 2500, true), odd = run(0, 0, false, {{"n", 1000003}});
    GoalContext ctx;
    ctx.mine = &mine;
    ctx.hidden.push_back(&odd);
    GoalVerdict v = evaluate_goal(g, ctx);
    EXPECT_FALSE(v.met);
    EXPECT_NE(v.summary.find("at n=1000003"), std::string::npos) << v.summary;
    odd.error_kind = "fault";
    odd.error = "an illegal memory access was encountered";
    v = evaluate_goal(g, ctx);
    EXPECT_NE(v.summary.find("fault: an illegal memory access"), std::string::npos) << v.summary;
    ctx.hidden.clear();
    EXPECT_TRUE(evaluate_goal(g, ctx).met);
}

TEST(Exercise, GoalRelativeToTheStarterAndBoundsOnError) {
    Goal g = parse_goal("correct and us <= 0.75 * like.us and rel_l2 <= 0.01");
    RunRecord like = run(4.0, 100, true), mine = run(2.9, 100, true), close = run(3.1, 100, true);
    GoalContext ctx;
    ctx.like = &like;
    ctx.mine = &mine;
    EXPECT_TRUE(evaluate_goal(g, ctx).met);
    ctx.mine = &close;
    GoalVerdict v = evaluate_goal(g, ctx);
    EXPECT_FALSE(v.met);
    EXPECT_EQ(v.lines[1], "us 3100 µs <= 0.75 x like.us 4000 = 3000: not met");
    // Without the starter's run there is no measurement to compare with: not met, and it says so.
    ctx.like = nullptr;
    ctx.mine = &mine;
    v = evaluate_goal(g, ctx);
    EXPECT_FALSE(v.met);
    EXPECT_NE(v.summary.find("no measurement (like.us)"), std::string::npos) << v.summary;
}

TEST(Exercise, NoCalibrationMeansNotMet) {
    RunRecord mine = run(1.0, 2500, true);
    GoalContext ctx;
    ctx.mine = &mine;
    EXPECT_FALSE(evaluate_goal(parse_goal("gbps >= 0.8 * device.copy_gbps"), ctx).met);
    EXPECT_TRUE(evaluate_goal(parse_goal("gbps > 2000"), ctx).met);
    EXPECT_FALSE(evaluate_goal(parse_goal("gbps < 2000"), ctx).met);
}

TEST(Exercise, MalformedGoalsAreRefusedNamingTheClause) {
    auto refusal = [](const std::string& goal) { return input_error_of([&] { parse_goal(goal); }); };
    EXPECT_NE(refusal("").find("goal: empty"), std::string::npos);
    EXPECT_NE(refusal("fast").find("'fast': expected 'correct'"), std::string::npos);
    EXPECT_NE(refusal("speed >= 3").find("unknown metric 'speed'"), std::string::npos);
    EXPECT_NE(refusal("gbps >= lots").find("unknown reference 'lots'"), std::string::npos);
    EXPECT_NE(refusal("gbps >= x * device.copy_gbps").find("'x' is not a number"), std::string::npos);
    EXPECT_NE(refusal("gbps >= 0.8 * device.hbm").find("unknown reference 'device.hbm'"), std::string::npos);
    EXPECT_NE(refusal("correct and us <= 2 * like.speed").find("like.speed"), std::string::npos);
    EXPECT_NE(refusal(std::string(500, 'x')).find("longer than 400"), std::string::npos);
}

TEST(Exercise, ShippedLessonsCarryAnExerciseForEveryLessonWithALiveLadder) {
    std::vector<LessonLoadError> errors;
    auto lessons = load_all_lessons(lessons_dir(), shipped_ladders(), &errors);
    for (const auto& e : errors) ADD_FAILURE() << e.folder << ": " << e.message;
    for (const auto& l : lessons) {
        // Measuring, the roofline primer and resource accounting teach on paper, and profiling
        // teaches reading the tools (its exercise is a profile of the learner's own, no goal); the
        // appendix's steps share the exercises of the core lessons they extend.
        if (l.id == "measuring" || l.id == "roofline" || l.id == "resources" || l.id == "profiling" || l.appendix())
            continue;
        int exercises = 0;
        for (const auto& s : l.steps) exercises += s.exercise.has_value();
        EXPECT_GE(exercises, 1) << l.id;
    }
}

TEST(Exercise, StepExerciseLoadsAndIsValidated) {
    EXPECT_EQ(exercise_error("title = \"E\"\ngoal = \"correct\"\nhidden_sizes = [{ n = 1000003 }]\n"), "");
    EXPECT_EQ(exercise_error("title = \"E\"\ngoal = \"correct\"\nstarter_file = \"starter.cu\"\n"), "");
    EXPECT_NE(exercise_error("title = \"E\"\ngoal = \"fast\"\n").find("step[0].exercise.goal"), std::string::npos);
    EXPECT_NE(exercise_error("title = \"E\"\ngoal = \"correct\"\nstarter = \"nope\"\n").find("has no rung 'nope'"),
              std::string::npos);
    EXPECT_NE(exercise_error("title = \"E\"\ngoal = \"correct\"\nstarter_file = \"../../etc/passwd\"\n")
                  .find("exercise.starter_file"),
              std::string::npos);
    EXPECT_NE(exercise_error("title = \"E\"\ngoal = \"correct\"\nstarter_file = \"missing.cu\"\n")
                  .find("exercise.starter_file"),
              std::string::npos);
    EXPECT_NE(exercise_error("title = \"E\"\ngoal = \"correct\"\nhidden_sizes = [{ m = 3 }]\n")
                  .find("hidden_sizes[0].m: not a size axis"),
              std::string::npos);
    EXPECT_NE(exercise_error("title = \"E\"\ngoal = \"correct\"\nhidden_sizes = [{ n = 0 }]\n").find("1..2^34"),
              std::string::npos);
    EXPECT_NE(exercise_error("title = \"E\"\ngoal = \"correct\"\nfrobnicate = 1\n").find("unknown field"),
              std::string::npos);
    EXPECT_NE(exercise_error("goal = \"correct\"\n").find("exercise.title: missing"), std::string::npos);
}

// Issue 39: exercises from an empty body, each with a rung to beat, hints and a reference solution.

TEST(Exercise, AGoalCanNameARungToBeat) {
    Goal g = parse_goal("correct and us < rung.transpose_smem.us");
    EXPECT_EQ(goal_rungs(g), std::vector<std::string>{"transpose_smem"});
    EXPECT_EQ(goal_rungs(parse_goal("correct and us < rung.a.us and gbps > rung.b.gbps and us < rung.a.us")),
              (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(goal_rungs(parse_goal("correct and us <= like.us")).empty());
    RunRecord rival = run(3.0, 100, true), mine = run(2.0, 150, true), slow = run(3.5, 90, true);
    rival.rung = "transpose_smem";
    GoalContext ctx;
    ctx.mine = &mine;
    ctx.rungs["transpose_smem"] = &rival;
    GoalVerdict v = evaluate_goal(g, ctx);
    EXPECT_TRUE(v.met) << v.summary;
    EXPECT_EQ(v.lines[1], "us 2000 µs < rung.transpose_smem.us 3000 = 3000: met");
    ctx.mine = &slow;
    v = evaluate_goal(g, ctx);
    EXPECT_FALSE(v.met);
    EXPECT_EQ(v.summary, "goal not met: us 3500 µs < rung.transpose_smem.us 3000 = 3000: not met");
    // The rung to beat did not run, or failed: nothing to beat, so not met, and it says which.
    ctx.mine = &mine;
    ctx.rungs.clear();
    v = evaluate_goal(g, ctx);
    EXPECT_FALSE(v.met);
    EXPECT_NE(v.summary.find("no measurement (rung.transpose_smem.us)"), std::string::npos) << v.summary;
    rival.error = "launch failed";
    ctx.rungs["transpose_smem"] = &rival;
    EXPECT_FALSE(evaluate_goal(g, ctx).met);
}

TEST(Exercise, MalformedRungReferencesAreRefused) {
    auto refusal = [](const std::string& goal) { return input_error_of([&] { parse_goal(goal); }); };
    EXPECT_NE(refusal("us < rung.us").find("unknown reference 'rung.us'"), std::string::npos);
    EXPECT_NE(refusal("us < rung..us").find("unknown reference"), std::string::npos);
    EXPECT_NE(refusal("us < rung.a-b.us").find("unknown reference"), std::string::npos);
    EXPECT_NE(refusal("us < rung.naive.speed").find("unknown reference"), std::string::npos);
    EXPECT_EQ(refusal("us < rung.naive_2.us"), "");
}

TEST(Exercise, HintsSolutionAndTheRungToBeatAreValidatedAtLoad) {
    const std::string base = "title = \"E\"\nstarter_file = \"starter.cu\"\n";
    EXPECT_EQ(exercise_error(base + "goal = \"correct and us < rung.vector_add.us\"\nhints = [\"a\", \"b\"]\n"), "");
    EXPECT_NE(exercise_error(base + "goal = \"correct and us < rung.nope.us\"\n").find("has no rung 'nope' to beat"),
              std::string::npos);
    EXPECT_NE(exercise_error(base + "goal = \"correct and us < rung.gelu_fused.us\"\n")
                  .find("rung 'gelu_fused' computes gelu, the starter vector_add"),
              std::string::npos);
    EXPECT_NE(exercise_error(base + "goal = \"correct\"\nhints = []\n").find("exercise.hints: expected 1 to 8"),
              std::string::npos);
    EXPECT_NE(exercise_error(base + "goal = \"correct\"\nhints = \"one\"\n").find("exercise.hints"), std::string::npos);
    EXPECT_NE(exercise_error(base + "goal = \"correct\"\nhints = [\"a\", 3]\n").find("hints[1]: expected a string"),
              std::string::npos);
    EXPECT_NE(exercise_error(base + "goal = \"correct\"\nhints = [\"a\", \"  \"]\n").find("hints[1]: empty"),
              std::string::npos);
    EXPECT_NE(exercise_error(base + "goal = \"correct\"\nhints = [\"" + std::string(1001, 'x') + "\"]\n")
                  .find("hints[0]: longer than 1000"),
              std::string::npos);
    EXPECT_NE(
        exercise_error(base + "goal = \"correct\"\nhints = [\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]\n")
            .find("expected 1 to 8"),
        std::string::npos);
    EXPECT_EQ(exercise_error(base + "goal = \"correct\"\nsolution = \"starter.cu\"\n"), "");
    EXPECT_EQ(exercise_error(base + "goal = \"correct\"\ndtype = \"bf16\"\n"), "");
    EXPECT_NE(exercise_error(base + "goal = \"correct\"\ndtype = \"fp64\"\n")
                  .find("exercise.dtype: 'fp64' is not a data type the starter 'vector_add' takes"),
              std::string::npos);
    EXPECT_NE(exercise_error(base + "goal = \"correct\"\nsolution = \"../../etc/passwd\"\n").find("exercise.solution"),
              std::string::npos);
    EXPECT_NE(
        exercise_error(base + "goal = \"correct\"\nsolution = \"solutions/missing.cu\"\n").find("exercise.solution"),
        std::string::npos);
}

// The set of issue 39: each starts from the starter file (an empty body), has a rung to beat that
// is another rung of its ladder computing the same operation, hints in order and a solution that
// the lesson's steps do not show (a file under solutions/, never a step's text or starter).
TEST(Exercise, TheEmptyBodyExercisesAreComplete) {
    const std::map<std::string, std::string> expected = {
        {"coalescing/9", "transpose_smem"}, {"softmax/11", "naive_multi"},
        {"softmax/12", "warp_shuffle"},     {"matmul/5", "reg_1d"},
        {"matmul/9", "double_buffer"},      {"attention/10", "fused_rowblock"}};
    std::vector<LessonLoadError> errors;
    const auto ladders = shipped_ladders();
    auto lessons = load_all_lessons(lessons_dir(), ladders, &errors);
    for (const auto& e : errors) ADD_FAILURE() << e.folder << ": " << e.message;
    int found = 0;
    for (const auto& l : lessons)
        for (size_t i = 0; i < l.steps.size(); ++i) {
            const std::string id = l.id + "/" + std::to_string(i + 1);
            const auto it = expected.find(id);
            if (it == expected.end()) continue;
            ++found;
            const StepExercise& ex = l.steps[i].exercise.value();
            EXPECT_EQ(ex.beat, std::vector<std::string>{it->second}) << id;
            EXPECT_FALSE(ex.starter_path.empty()) << id;
            EXPECT_NE(ex.solution_path.find("/solutions/"), std::string::npos) << id;
            EXPECT_GE(ex.hints.size(), 3u) << id;
            EXPECT_GE(ex.hidden_sizes.size(), 3u) << id;
            for (const auto& s : l.steps) EXPECT_EQ(s.text_path.find("solutions/"), std::string::npos) << id;
            const Ladder* L = nullptr;
            for (const auto& each : ladders) L = each.id == l.steps[i].ladder ? &each : L;
            ASSERT_NE(L, nullptr) << id;
            ASSERT_NE(L->find_rung(it->second), nullptr) << id;
            EXPECT_EQ(L->find_rung(it->second)->operation, L->find_rung(ex.starter_rung)->operation) << id;
            // The starter is an empty body: it has the entry's signature and a TODO, no statement.
            const std::string starter = read_file(ex.starter_path);
            EXPECT_NE(starter.find("// TODO"), std::string::npos) << id;
            std::string code;  // the body without its comments
            std::istringstream body(starter.substr(starter.rfind('{') + 1));
            for (std::string line; std::getline(body, line);)
                if (line.find("//") == std::string::npos) code += line;
            EXPECT_EQ(code.find(';'), std::string::npos) << id << ": the starter's body is not empty";
        }
    EXPECT_EQ(found, 6);
}

}  // namespace kl_test_exercise
