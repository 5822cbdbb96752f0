// Handouts of issue 17's additions: a calculator step prints the calculator's table, a traced
// step its kernels (Markdown table and CSV), with the sums and the SM clock.
#include <gtest/gtest.h>

#include "report/handout.h"
#include "report/timeline_table.h"

namespace {

kl::RunRecord traced_run() {
    kl::RunRecord r;
    r.ladder = "launch";
    r.rung = "separate";
    r.timeline = kl::make_timeline({{"chain_first", 10, 12}, {"chain_step", 15, 16}, {"a,\"b\"", 20, 21}}, 0.012);
    r.clock = kl::make_clock_report(1980, 1980, 1400);
    return r;
}

}  // namespace

TEST(LaunchReport, TimelineTableShowsKernelsGapsSumsAndTheClock) {
    const std::string md = kl::report::timeline_markdown(traced_run());
    EXPECT_NE(md.find("| 2 | `chain_step` | 5.00 | 1.00 | 3.00 |"), std::string::npos) << md;
    EXPECT_NE(md.find("Kernels' own time 4.00 µs, events 12.00 µs, span 11.00 µs, gaps 7.00 µs"), std::string::npos)
        << md;
    EXPECT_NE(md.find("**throttled**"), std::string::npos) << md;
    const std::string csv = kl::report::timeline_csv(traced_run());
    EXPECT_NE(csv.find("\"a,\"\"b\"\"\",10.000,11.000,1.000"), std::string::npos) << csv;
    EXPECT_EQ(kl::report::timeline_markdown(kl::RunRecord{}), "");
}

TEST(LaunchReport, HandoutPrintsTheCalculatorAndTheTracedKernels) {
    kl::Lesson lesson;
    lesson.number = 10;
    lesson.title = "Roofline";
    kl::LessonStep calc, traced;
    calc.title = "The calculator";
    calc.tool = "calculator";
    traced.title = "Launch overhead";
    lesson.steps = {calc, traced};
    kl::report::HandoutInput in;
    in.lesson = &lesson;
    in.results_name = "results.json";
    in.step_figures.resize(2);
    in.step_timelines = {"", kl::report::timeline_markdown(traced_run())};
    in.step_timeline_csv = {"", "step2_timeline.csv"};
    const std::string md = kl::report::handout_markdown(in);
    EXPECT_NE(md.find("| part | what | value | how |"), std::string::npos);
    EXPECT_NE(md.find("6 N D"), std::string::npos);
    EXPECT_NE(md.find("[CSV](step2_timeline.csv)"), std::string::npos);
    EXPECT_LT(md.find("| part | what"), md.find("[CSV]"));  // in step order
}

// A predict step's traced kernels sum to the predicted time: the handout prints them with its
// measurements after all the steps, not beside the question.
TEST(LaunchReport, HandoutHoldsAPredictStepsKernelsUntilTheReveals) {
    kl::Lesson lesson;
    lesson.number = 10;
    lesson.title = "Backward";
    kl::LessonStep traced;
    traced.title = "Naive";
    traced.predict_metric = "ms";
    traced.question = "Give the time.";
    lesson.steps = {traced};
    kl::report::HandoutInput in;
    in.lesson = &lesson;
    in.results_name = "results.json";
    in.step_figures.resize(1);
    in.step_timelines = {kl::report::timeline_markdown(traced_run())};
    in.step_timeline_csv = {"step1_timeline.csv"};
    const std::string md = kl::report::handout_markdown(in);
    const size_t reveals = md.find("## The measurements, after your predictions");
    ASSERT_NE(reveals, std::string::npos) << md;
    EXPECT_GT(md.find("[CSV](step1_timeline.csv)"), reveals) << md;
}
