// Predict, then reveal (verdicts, the per-learner store) and lesson-defined sweeps (values,
// ranges, tied axes), as the lesson loader reads them.
#include <gtest/gtest.h>

#include "course/lesson.h"
#include "course/lesson_check.h"
#include "course/prediction.h"
#include "course/sweep_spec.h"
#include "model/manifest.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_prediction_sweep {

using namespace kl;

namespace {

std::string lesson_with(const TempTree& t, const std::string& step_fields) {
    t.write("lessons/01_l/s.md", "# S\n");
    return t.write("lessons/01_l/lesson.toml",
                   "[lesson]\nid = \"l\"\nnumber = 1\ntitle = \"L\"\n\n[[step]]\ntitle = \"S\"\n"
                   "text = \"s.md\"\nladder = \"tiny\"\nrung = \"one\"\n" +
                       step_fields);
}

}  // namespace

TEST(Prediction, VerdictSaysHowFarAndWhetherWithinTolerance) {
    PredictionVerdict v = judge_prediction(1500, 1276, 0.25, "GB/s");
    EXPECT_TRUE(v.within);
    EXPECT_EQ(v.line, "You predicted 1,500 GB/s; measured 1,276 GB/s: 18% high, within 25%.");
    PredictionVerdict w = judge_prediction(2800, 1276, 0.25, "GB/s");
    EXPECT_FALSE(w.within);
    EXPECT_NE(w.line.find("119% high, outside 25%"), std::string::npos);
}

TEST(Prediction, StoreKeepsPredictionsPerLessonAndResets) {
    TempTree t;
    std::string path = t.path("data/kernel-ladder/progress.json");
    {
        PredictionStore s(path);
        s.load(nullptr);
        s.set("first_kernel", 3, 1500);
        s.set("fusion", 1, 0.9);
        s.save();
    }
    PredictionStore s(path);
    std::string warning;
    s.load(&warning);
    EXPECT_TRUE(warning.empty());
    EXPECT_EQ(s.get("first_kernel", 3), 1500);
    s.reset("first_kernel");
    EXPECT_FALSE(s.get("first_kernel", 3));
    EXPECT_EQ(s.get("fusion", 1), 0.9);
    t.write("data/kernel-ladder/progress.json", "{ not json");
    s.load(&warning);
    EXPECT_NE(warning.find("ignored"), std::string::npos);
    EXPECT_FALSE(s.get("fusion", 1));
}

TEST(Prediction, LessonStepDeclaresMetricToleranceAndWhy) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    Lesson l = load_lesson(
        lesson_with(t, "predict = { metric = \"gbps\", tolerance = 0.2, why = \"blocks cost time\" }\n"), ladders);
    EXPECT_EQ(l.steps[0].predict_metric, "gbps");
    EXPECT_DOUBLE_EQ(l.steps[0].predict_tolerance, 0.2);
    EXPECT_EQ(l.steps[0].predict_why, "blocks cost time");
    EXPECT_NE(input_error_of([&] {
                  load_lesson(lesson_with(t, "predict = { metric = \"speed\", tolerance = 0.2 }\n"), ladders);
              }).find("step[0].predict.metric: 'speed' is not one of"),
              std::string::npos);
    EXPECT_NE(input_error_of([&] {
                  load_lesson(lesson_with(t, "predict = { metric = \"ms\", tolerance = 2.0 }\n"), ladders);
              }).find("step[0].predict.tolerance"),
              std::string::npos);
}

TEST(Prediction, AtNamesTheJudgedRunAndAskSaysWhatToPredict) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    Lesson l = load_lesson(lesson_with(t,
                                       "params = { TPB = 32 }\nrunner = { l2 = \"warm\" }\n"
                                       "predict = { metric = \"gbps\", tolerance = 0.25, at = { TPB = 128 }, "
                                       "ask = \"Predict TPB = 128.\" }\n"),
                           ladders);
    const LessonStep& st = l.steps[0];
    EXPECT_EQ(st.predict_ask, "Predict TPB = 128.");
    EXPECT_EQ(prediction_at_text(st), "TPB = 128");
    Binding b = prediction_binding(st);
    EXPECT_EQ(b.target, "tiny/one");
    EXPECT_EQ(b.metric, "gbps");
    // The step shows TPB = 32; the prediction is about TPB = 128, measured warm like the step.
    std::vector<std::pair<std::string, std::string>> want = {{"TPB", "128"}, {"l2", "warm"}};
    EXPECT_EQ(b.keys, want);
}

TEST(Prediction, AtRefusesWhatIsNeitherAParameterNorASize) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    EXPECT_NE(input_error_of([&] {
                  load_lesson(lesson_with(t, "predict = { metric = \"ms\", tolerance = 0.2, at = { EPT = 2 } }\n"),
                              ladders);
              }).find("step[0].predict.at.EPT: 'EPT' is neither a parameter of rung 'one' nor a size of ladder 'tiny'"),
              std::string::npos);
    EXPECT_NE(input_error_of([&] {
                  load_lesson(lesson_with(t, "predict = { metric = \"ms\", tolerance = 0.2, at = { n = \"big\" } }\n"),
                              ladders);
              }).find("step[0].predict.at.n: expected an integer"),
              std::string::npos);
}

TEST(Prediction, RevealMarkerFoldsTheTextAfterItAndIsTakenOut) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    std::string path = lesson_with(t, "predict = { metric = \"gbps\", tolerance = 0.25 }\n");
    t.write("lessons/01_l/s.md", "# S\nPredict first.\n<!-- reveal -->\nIt ran at this speed.\n");
    Lesson l = load_lesson(path, ladders);
    EXPECT_EQ(l.steps[0].text, "# S\nPredict first.\nIt ran at this speed.\n");
    EXPECT_EQ(l.steps[0].text.substr(0, l.steps[0].reveal_at), "# S\nPredict first.\n");

    t.write("lessons/01_l/s.md", "# S\ntext <!-- reveal -->\n");
    EXPECT_NE(input_error_of([&] {
                  load_lesson(path, ladders);
              }).find("step[0].text: '<!-- reveal -->' must stand alone at the start of a line, once"),
              std::string::npos);
    t.write("lessons/01_l/s.md", "# S\n<!-- reveal -->\n");
    std::string no_prediction = lesson_with(t, "no_predict = \"nothing to predict\"\n");
    t.write("lessons/01_l/s.md", "# S\n<!-- reveal -->\n");
    EXPECT_NE(input_error_of([&] {
                  load_lesson(no_prediction, ladders);
              }).find("step[0].text: '<!-- reveal -->' needs a step with predict"),
              std::string::npos);
}

TEST(Prediction, CheckLessonsRefusesAPredictionNoRecordingAnswers) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    std::string path = lesson_with(t,
                                   "predict = { metric = \"gbps\", tolerance = 0.25, at = { TPB = 128 }, why = "
                                   "\"Bytes: {{ tiny/one gbps TPB=128 }}.\" }\n");
    t.write("lessons/01_l/s.md", "# S\n<!-- reveal -->\nIt ran.\n");
    std::vector<Lesson> lessons = {load_lesson(path, ladders)};
    RunRecord r;
    r.ladder = "tiny";
    r.rung = "one";
    r.sizes = {{"n", 1000}};
    r.params = {{"TPB", 256}};
    r.values.set(tag::gbps, 900);
    r.timing = TimingStats{};
    r.timing->median_ms = 1;
    ResultsFile f;
    f.created = "2026-01-01T00:00:00Z";
    f.device = DeviceInfo{};
    f.device->name = "Test GPU";
    f.runs = {r};
    NumberSources only_256(&ladders);
    only_256.add_recorded(f, "rec/one.json");
    std::vector<std::string> offences = check_lessons(lessons, only_256, {});
    ASSERT_EQ(offences.size(), 2u);  // and the why's binding of that run resolves to nothing
    EXPECT_NE(offences[1].find("predict.why: `{{ tiny/one gbps TPB=128 }}` resolves to nothing"), std::string::npos)
        << offences[1];
    EXPECT_NE(offences[0].find("step[0].predict: no recording answers it"), std::string::npos) << offences[0];
    EXPECT_NE(offences[0].find("TPB=128"), std::string::npos) << offences[0];

    f.runs[0].params = {{"TPB", 128}};  // the judged run recorded: nothing to refuse
    NumberSources with_128(&ladders);
    with_128.add_recorded(f, "rec/one.json");
    EXPECT_TRUE(check_lessons(lessons, with_128, {}).empty());
}

// One prediction per step, with its own why, and its figure nowhere above the marker.
TEST(Prediction, CheckLessonsRefusesASecondPredictionAMissingWhyAndAFigureAboveTheMarker) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    RunRecord r;
    r.ladder = "tiny";
    r.rung = "one";
    r.sizes = {{"n", 1000}};
    r.params = {{"TPB", 256}};
    r.values.set(tag::gbps, 912);
    r.timing = TimingStats{};
    r.timing->median_ms = 1;
    ResultsFile f;
    f.created = "2026-01-01T00:00:00Z";
    f.device = DeviceInfo{};
    f.device->name = "Test GPU";
    f.runs = {r};
    NumberSources sources(&ladders);
    sources.add_recorded(f, "rec/one.json");
    auto offences_of = [&](const std::string& md, const std::string& fields) {
        std::string path = lesson_with(t, fields);
        t.write("lessons/01_l/s.md", md);
        std::vector<Lesson> lessons = {load_lesson(path, ladders)};
        std::string all;
        for (const auto& o : check_lessons(lessons, sources, {})) all += o + "\n";
        return all;
    };
    const std::string predict =
        "predict = { metric = \"gbps\", tolerance = 0.25, why = \"Bytes: {{ tiny/one gbps }}.\" }\n";
    EXPECT_EQ(offences_of("# S\n<!-- reveal -->\nIt ran at {{ tiny/one gbps }}.\n", predict), "");
    EXPECT_NE(offences_of("# S\n", "predict = { metric = \"gbps\", tolerance = 0.25 }\n").find("no why of its own"),
              std::string::npos);
    EXPECT_NE(offences_of("# S\n", predict + "question = \"Predict the time too.\"\n").find("second prediction"),
              std::string::npos);
    // A why that only restates the model explains no miss: it must quote what the rung measured.
    std::string model_only = offences_of("# S\n<!-- reveal -->\nIt ran.\n",
                                         "predict = { metric = \"gbps\", tolerance = 0.25, why = \"Bytes.\" }\n");
    EXPECT_NE(model_only.find("step[0].predict.why: quotes no measurement of tiny/one"), std::string::npos)
        << model_only;
    EXPECT_EQ(
        offences_of("# S\n<!-- reveal -->\nIt ran.\n",
                    "predict = { metric = \"gbps\", tolerance = 0.25, why = \"{{ = tiny/one gbps / 2 | .0 }}.\" }\n"),
        "");
    std::string above = offences_of("# S\nIt took {{ tiny/one ms TPB=256 }}.\n<!-- reveal -->\n", predict);
    EXPECT_NE(above.find("s.md:2: `{{ tiny/one ms TPB=256 }}` shows the predicted figure"), std::string::npos) << above;
    EXPECT_NE(offences_of("# S\n", predict + "look_at = \"Near {{ tiny/one gbps }}.\"\n").find("look_at"),
              std::string::npos);
    EXPECT_NE(offences_of("# S\nAbout 912 GB/s.\n<!-- reveal -->\n", predict).find("types the predicted figure 912"),
              std::string::npos);
    // Another run's figure, or another kind of figure of the same run, may stand above it.
    EXPECT_EQ(offences_of("# S\n{{ tiny/one gbps TPB=128 }}\n<!-- reveal -->\n", predict).find("predicted figure"),
              std::string::npos);
}

// Every predict step folds its discussion of the measurement: no marker, or nothing after it, is
// refused with one line naming the step's file, number and title.
TEST(Prediction, CheckLessonsRefusesAPredictStepWithoutARevealMarker) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    RunRecord r;
    r.ladder = "tiny";
    r.rung = "one";
    r.sizes = {{"n", 1000}};
    r.params = {{"TPB", 256}};
    r.values.set(tag::gbps, 912);
    r.timing = TimingStats{};
    r.timing->median_ms = 1;
    ResultsFile f;
    f.created = "2026-01-01T00:00:00Z";
    f.device = DeviceInfo{};
    f.device->name = "Test GPU";
    f.runs = {r};
    NumberSources sources(&ladders);
    sources.add_recorded(f, "rec/one.json");
    const std::string path =
        lesson_with(t, "predict = { metric = \"gbps\", tolerance = 0.25, why = \"Bytes: {{ tiny/one gbps }}.\" }\n");
    auto offences_of = [&](const std::string& md) {
        t.write("lessons/01_l/s.md", md);
        std::vector<Lesson> lessons = {load_lesson(path, ladders)};
        return check_lessons(lessons, sources, {});
    };
    EXPECT_TRUE(offences_of("# S\nCount the bytes.\n<!-- reveal -->\nIt ran at {{ tiny/one gbps }}.\n").empty());
    std::vector<std::string> none = offences_of("# S\nCount the bytes. It ran at the copy line.\n");
    ASSERT_EQ(none.size(), 1u);
    EXPECT_NE(none[0].find("s.md: step 1 (\"S\") predicts one gbps but has no `<!-- reveal -->` line"),
              std::string::npos)
        << none[0];
    std::vector<std::string> empty_after = offences_of("# S\nCount the bytes.\n<!-- reveal -->\n  \n");
    ASSERT_EQ(empty_after.size(), 1u);
    EXPECT_NE(empty_after[0].find("s.md: step 1 (\"S\"): nothing after `<!-- reveal -->`"), std::string::npos)
        << empty_after[0];
    // The marker does not excuse the figure above it.
    std::vector<std::string> above = offences_of("# S\n{{ tiny/one gbps }}\n<!-- reveal -->\nIt ran.\n");
    ASSERT_EQ(above.size(), 1u);
    EXPECT_NE(above[0].find("s.md:2: `{{ tiny/one gbps }}` shows the predicted figure"), std::string::npos) << above[0];
}

// Predict, then reveal across steps: what a later step asks to predict is not quoted by an earlier
// step (its text, past its own marker too, or its fields); another run, or the same kernel with
// the other L2 state, may be.
TEST(Prediction, CheckLessonsRefusesAnEarlierStepQuotingALaterPrediction) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    ResultsFile f;
    f.created = "2026-01-01T00:00:00Z";
    f.device = DeviceInfo{};
    f.device->name = "Test GPU";
    for (int tpb : {128, 256})
        for (const char* l2 : {"cold", "warm"}) {
            RunRecord r;
            r.ladder = "tiny";
            r.rung = "one";
            r.sizes = {{"n", 1000}};
            r.params = {{"TPB", tpb}};
            r.l2 = l2;
            r.values.set(tag::gbps, tpb * (r.l2 == "warm" ? 5.0 : 4.0));
            r.timing = TimingStats{};
            r.timing->median_ms = 1;
            f.runs.push_back(r);
        }
    NumberSources sources(&ladders);
    sources.add_recorded(f, "rec/one.json");
    t.write("lessons/01_l/b.md", "# B\nCount.\n<!-- reveal -->\nIt ran at {{ tiny/one gbps TPB=128 }}.\n");
    auto offences_of = [&](const std::string& first_md, const std::string& first_fields) {
        t.write("lessons/01_l/a.md", first_md);
        std::string path =
            t.write("lessons/01_l/lesson.toml",
                    "[lesson]\nid = \"l\"\nnumber = 1\ntitle = \"L\"\n\n[[step]]\ntitle = \"A\"\ntext = \"a.md\"\n" +
                        first_fields +
                        "\n[[step]]\ntitle = \"B\"\ntext = \"b.md\"\nladder = \"tiny\"\nrung = \"one\"\n"
                        "predict = { metric = \"gbps\", tolerance = 0.25, at = { TPB = 128 }, why = \"{{ tiny/one gbps "
                        "TPB=128 }}.\" }\n");
        std::vector<Lesson> lessons = {load_lesson(path, ladders)};
        std::string all;
        for (const auto& o : check_lessons(lessons, sources, {})) all += o + "\n";
        return all;
    };
    EXPECT_EQ(
        offences_of("# A\nAt 256: {{ tiny/one gbps TPB=256 }}; warm at 128: {{ tiny/one ms TPB=128 l2=warm }}.\n", ""),
        "");
    std::string text = offences_of("# A\nAt 128 it took {{ tiny/one ms TPB=128 }}.\n", "");
    EXPECT_NE(text.find("a.md: `{{ tiny/one ms TPB=128 }}` gives away step 2's prediction (one gbps)"),
              std::string::npos)
        << text;
    std::string answer = offences_of("# A\n", "answer = \"{{ = tiny/one gbps TPB=128 / 2 | .0 }}\"\n");
    EXPECT_NE(answer.find("step[0].answer: `{{ = tiny/one gbps TPB=128 / 2 | .0 }}` gives away step 2's"),
              std::string::npos)
        << answer;
}

TEST(SweepSpec, RangesExpandLinearlyOrGeometrically) {
    EXPECT_EQ(expand_sweep_range(256, 1024, 0, 2), (std::vector<int64_t>{256, 512, 1024}));
    EXPECT_EQ(expand_sweep_range(1, 10, 4, 0), (std::vector<int64_t>{1, 5, 9}));
    EXPECT_THROW(expand_sweep_range(1, 10, 4, 2), InputError);
    EXPECT_THROW(expand_sweep_range(1, 1 << 20, 1, 0), InputError);  // more than 64 values
}

TEST(SweepSpec, LessonStepNamesValuesAndTiesSizeAxes) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    Lesson l = load_lesson(lesson_with(t, "sweep = { axis = \"n\", from = 1024, to = 4096, times = 2 }\n"), ladders);
    EXPECT_EQ(l.steps[0].sweep_values, (std::vector<int64_t>{1024, 2048, 4096}));
    Lesson p = load_lesson(lesson_with(t, "sweep = { axis = \"TPB\", values = [32, 64] }\n"), ladders);
    EXPECT_EQ(p.steps[0].sweep_values, (std::vector<int64_t>{32, 64}));
    EXPECT_NE(input_error_of([&] {
                  load_lesson(lesson_with(t, "sweep = { axis = \"TPB\", values = [32], tie = [\"n\"] }\n"), ladders);
              }).find("only size axes can be tied"),
              std::string::npos);
    EXPECT_NE(input_error_of([&] {
                  load_lesson(lesson_with(t, "sweep = { axis = \"n\", values = [64, 32] }\n"), ladders);
              }).find("must increase"),
              std::string::npos);
    std::vector<Lesson> all = {l};
    EXPECT_EQ(find_lesson_sweep(all, "tiny", "one", "n"), &all[0].steps[0]);
    EXPECT_EQ(find_lesson_sweep(all, "tiny", "one", "TPB"), nullptr);
}

}  // namespace kl_test_prediction_sweep
