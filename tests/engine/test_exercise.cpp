// Live exercises: goals parsed and judged against run records (met / not met with the measured
// figure, hidden sizes part of `correct`), and `[step.exercise]` validated at lesson load.
#include <gtest/gtest.h>

#include "base/errors.h"
#include "base/paths.h"
#include "course/exercise.h"
#include "course/lesson.h"
#include "model/manifest_load.h"
#include "temp_tree.h"

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
        // Measuring, the roofline primer and resource accounting teach on paper; the appendix's
        // steps share the exercises of the core lessons they extend.
        if (l.id == "measuring" || l.id == "roofline" || l.id == "resources" || l.appendix()) continue;
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
