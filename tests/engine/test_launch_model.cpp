// The launch ladder and the measuring-mistake modes without a GPU: `repeat` and `graph` in
// manifests, the modes' names in lessons, the runner protocol and results files, and the
// bindings that quote them (us_per_step, mode_us).
#include <gtest/gtest.h>

#include "base/paths.h"
#include "course/bindings.h"
#include "course/lesson.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "model/results.h"
#include "model/results_json.h"
#include "model/run_modes.h"
#include "model/serve_protocol.h"
#include "temp_tree.h"

using namespace kl;

namespace {

Binding one(const std::string& text) {
    std::vector<std::string> errors;
    auto bs = find_bindings(text, &errors);
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
    return bs.empty() ? Binding{} : bs[0];
}

RunRecord launch_run(const std::string& rung, int64_t steps, double ms) {
    RunRecord r;
    r.ladder = "launch";
    r.rung = rung;
    r.params = {{"TPB", 256}};
    r.sizes = {{"n", 32768}, {"steps", steps}};
    r.timing = TimingStats{};
    // A whole measurement, as a run records it: the results reader refuses a timed run with a
    // time of zero or no repetitions (results_values.cpp).
    r.timing->median_ms = r.timing->min_ms = r.timing->max_ms = r.timing->mean_ms = ms;
    r.timing->reps = 10;
    return r;
}

}  // namespace

TEST(RunModes, NamesRoundTripAndUnknownOnesAreRefused) {
    for (RunMode m : {RunMode::NoWarmup, RunMode::HostClockNoSync, RunMode::WarmL2, RunMode::ShortBurst})
        EXPECT_EQ(parse_run_mode(to_string(m)), m);
    EXPECT_EQ(parse_run_mode(""), RunMode::Normal);
    EXPECT_FALSE(parse_run_mode("warm"));
    EXPECT_NE(describe_run_mode(RunMode::HostClockNoSync).find("without synchronising"), std::string::npos);
    EXPECT_NE(describe_run_mode(RunMode::ShortBurst).find("power cap"), std::string::npos);
    EXPECT_NE(run_mode_names().find("short_burst"), std::string::npos);
}

TEST(LaunchLadder, ShippedManifestHasRepeatAndGraph) {
    const Ladder L = load_ladder(kernels_dir() + "/launch/ladder.toml");
    const Rung* sep = L.find_rung("separate");
    const Rung* graph = L.find_rung("graph");
    ASSERT_TRUE(sep && graph && L.find_rung("persistent") && L.find_rung("fused"));
    EXPECT_FALSE(sep->graph);
    EXPECT_TRUE(graph->graph);
    ASSERT_EQ(sep->launches.size(), 2u);
    EXPECT_TRUE(sep->launches[0].repeat.empty());
    Scope s = make_scope({{"n", 1000}, {"steps", 7}}, {{"TPB", 256}}, DType::F32, 0);
    EXPECT_EQ(sep->launches[1].repeat.eval(s), 6);
}

TEST(LaunchLadder, RepeatWithAnUnknownNameIsRefusedWithLineAndField) {
    TempTree t;
    t.write("tiny/01_one.cu", "extern \"C\" __global__ void one() {}\n");
    t.write("tiny/ladder.toml", kTinyLadderHead + R"TOML(  [[rung.launch]]
  entry = "one"
  repeat = "times"
  grid = ["1"]
  block = ["32"]
  args = []
)TOML");
    const std::string e = input_error_of([&] { load_ladder(t.path("tiny/ladder.toml")); });
    EXPECT_NE(e.find("launch.repeat"), std::string::npos) << e;
    EXPECT_NE(e.find("unknown name 'times'"), std::string::npos) << e;
}

TEST(RunModes, ResultsCarryTheModesFigureAndRefuseAnUnknownMode) {
    ResultsFile f;
    RunRecord r = launch_run("separate", 256, 0.5);
    r.mode = "host_clock_no_sync";
    r.mode_timing = TimingStats{};
    r.mode_timing->median_ms = r.mode_timing->min_ms = r.mode_timing->max_ms = r.mode_timing->mean_ms = 0.25;
    r.mode_timing->reps = 10;
    f.runs.push_back(r);
    nlohmann::json j = to_json(f);
    ResultsFile back = results_from_json(j, "mem.json");
    ASSERT_EQ(back.runs.size(), 1u);
    EXPECT_EQ(back.runs[0].mode, "host_clock_no_sync");
    ASSERT_TRUE(back.runs[0].mode_timing);
    EXPECT_DOUBLE_EQ(back.runs[0].mode_timing->median_ms, 0.25);
    j["runs"][0]["mode"]["name"] = "sloppy";
    const std::string e = input_error_of([&] { results_from_json(j, "mem.json"); });
    EXPECT_NE(e.find("mem.json"), std::string::npos) << e;
    EXPECT_NE(e.find("mode.name"), std::string::npos) << e;
    // A normal run writes no "mode" at all (additive: older readers see nothing new).
    EXPECT_FALSE(to_json(launch_run("fused", 256, 0.1)).contains("mode"));
}

TEST(RunModes, RunnerProtocolCarriesTheModeAndRefusesAnUnknownOne) {
    RunRequest req;
    req.ladder = "elementwise";
    req.rung = "vector_add";
    req.mode = "no_warmup";
    const std::string line = encode_line(req);
    EXPECT_NE(line.find("\"mode\":\"no_warmup\""), std::string::npos) << line;
    DecodedRequest parsed = decode_request_line(line);
    ASSERT_TRUE(parsed.problem.empty()) << parsed.problem;
    ASSERT_TRUE(parsed.request);
    EXPECT_EQ(run_options_of(parsed.request->run).mode, RunMode::NoWarmup);
    std::string bad = line;
    bad.replace(bad.find("no_warmup"), 9, "sometimes");
    EXPECT_NE(decode_request_line(bad).problem.find("options.mode"), std::string::npos);
}

TEST(LaunchBindings, TimePerStepAndTheModesFigure) {
    std::vector<Ladder> ladders{load_ladder(kernels_dir() + "/launch/ladder.toml")};
    NumberSources s(&ladders);
    ResultsFile f;
    f.created = "2026-11-24T00:00:00Z";
    f.device = DeviceInfo{};
    f.device->name = "Test GPU";
    f.runs.push_back(launch_run("separate", 256, 0.512));  // 512 us over 256 steps
    RunRecord m = launch_run("fused", 256, 0.004);
    m.mode = "host_clock_no_sync";
    m.clock = make_clock_report(1980, 1980, 1680);
    add_repetition_clocks(*m.clock, {0.004, 0.004, 0.004, 0.004, 0.004, 0.005}, {1980, 1980, 1980, 1980, 1980, 1680});
    m.mode_timing = TimingStats{};
    m.mode_timing->median_ms = m.mode_timing->min_ms = m.mode_timing->max_ms = 0.003;
    f.runs.push_back(m);
    s.add_recorded(f, "rec/h100_launch.json");
    BoundValue v = s.resolve(one("{{ launch/separate us_per_step }}"));
    ASSERT_TRUE(v.ok) << v.error;
    EXPECT_DOUBLE_EQ(v.value, 2.0);
    BoundValue w = s.resolve(one("{{ launch/fused mode_us mode=host_clock_no_sync }}"));
    ASSERT_TRUE(w.ok) << w.error;
    EXPECT_DOUBLE_EQ(w.value, 3.0);
    EXPECT_FALSE(s.resolve(one("{{ launch/fused mode_us mode=warm_l2 }}")).ok);  // no such run
    EXPECT_FALSE(s.resolve(one("{{ launch/separate clock_mhz }}")).ok);          // recorded without a clock
    BoundValue c = s.resolve(one("{{ launch/fused clock_mhz mode=host_clock_no_sync }}"));
    ASSERT_TRUE(c.ok) << c.error;
    EXPECT_DOUBLE_EQ(c.value, 1680.0);  // the clock after timing, not the rated one
    EXPECT_DOUBLE_EQ(s.resolve(one("{{ launch/fused burst_us mode=host_clock_no_sync }}")).value, 4.0);
    EXPECT_DOUBLE_EQ(s.resolve(one("{{ launch/fused clock_min_mhz mode=host_clock_no_sync }}")).value, 1680.0);
    EXPECT_FALSE(s.resolve(one("{{ launch/separate burst_us }}")).ok);  // no clock through its repetitions
    EXPECT_NE(s.resolve(one("{{ launch/fused us mode=often }}")).error.find("mode must be"), std::string::npos);
}

TEST(RunModes, LessonRunnerPresetTakesAModeAndRefusesAnUnknownOne) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    const std::string head = R"TOML([lesson]
id = "demo"
number = 1
title = "Demo"
summary = "s"

[[step]]
title = "Step"
text = "a.md"
ladder = "tiny"
rung = "one"
no_predict = "a demo"
)TOML";
    t.write("lessons/01_demo/a.md", "text\n");
    t.write("lessons/01_demo/lesson.toml", head + "runner = { mode = \"host_clock_no_sync\" }\n");
    Lesson l = load_lesson(t.path("lessons/01_demo/lesson.toml"), ladders);
    EXPECT_EQ(l.steps.at(0).runner.mode, "host_clock_no_sync");
    t.write("lessons/01_demo/lesson.toml", head + "runner = { mode = \"fast\" }\n");
    const std::string e = input_error_of([&] { load_lesson(t.path("lessons/01_demo/lesson.toml"), ladders); });
    EXPECT_NE(e.find("runner.mode"), std::string::npos) << e;
}

TEST(Timeline, GapsSumAndSpanFromKernelSpans) {
    // Three kernels: 0-10, 12-20 and an overlapping 15-25 (concurrent), starting at 100 us.
    Timeline t = make_timeline({{"b", 112, 120}, {"a", 100, 110}, {"c", 115, 125}}, 0.03);
    ASSERT_EQ(t.kernels.size(), 3u);
    EXPECT_EQ(t.kernels[0].name, "a");  // sorted by start, rebased on the first
    EXPECT_DOUBLE_EQ(t.kernels[0].start_us, 0);
    EXPECT_DOUBLE_EQ(t.kernel_sum_ms, (10 + 8 + 10) / 1e3);
    EXPECT_DOUBLE_EQ(t.span_ms, 25 / 1e3);
    EXPECT_NEAR(t.gap_ms, 2 / 1e3, 1e-12);  // covered: 0-10 and 12-25
    EXPECT_EQ(t.launches, 3);
    Timeline kept = make_timeline({{"a", 0, 1}, {"b", 2, 3}, {"c", 4, 5}}, 0.01, 2);
    EXPECT_EQ(kept.kernels.size(), 2u);  // drawn: the first two; counted: all three
    EXPECT_EQ(kept.launches, 3);
    EXPECT_DOUBLE_EQ(kept.kernel_sum_ms, 3 / 1e3);
}

TEST(Timeline, ClockIsFlaggedWhenItDropsAndRecordsRoundTrip) {
    EXPECT_FALSE(make_clock_report(1980, 1995, 1990).throttled);
    EXPECT_TRUE(make_clock_report(1980, 1995, 1400).throttled);  // below 75% of rated
    EXPECT_TRUE(make_clock_report(1980, 1995, 1700).throttled);  // 15% below the clock before timing
    ResultsFile f;
    RunRecord r = launch_run("separate", 4, 0.02);
    r.timeline = make_timeline({{"chain_first", 0, 2}, {"chain_step", 5, 7}}, 0.009);
    r.clock = make_clock_report(1980, 1995, 1995);
    f.runs.push_back(r);
    nlohmann::json j = to_json(f);
    ResultsFile back = results_from_json(j, "mem.json");
    ASSERT_TRUE(back.runs[0].timeline && back.runs[0].clock);
    EXPECT_EQ(back.runs[0].timeline->kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(back.runs[0].timeline->gap_ms, 3 / 1e3);
    EXPECT_DOUBLE_EQ(back.runs[0].clock->after_mhz, 1995);
    EXPECT_EQ(back.runs[0].timeline->mode, "kernel");  // the serialized kind is the default
    {
        nlohmann::json old = j;  // written before the kind was recorded: the concurrent kind
        old["runs"][0]["timeline"].erase("mode");
        EXPECT_EQ(results_from_json(old, "old.json").runs[0].timeline->mode, "concurrent");
        old["runs"][0]["timeline"]["mode"] = "sampled";
        const std::string bad = input_error_of([&] { results_from_json(old, "old.json"); });
        EXPECT_NE(bad.find("runs[0].timeline.mode"), std::string::npos) << bad;
    }
    j["runs"][0]["timeline"]["kernels"][1]["end_us"] = 1.0;  // ends before it starts
    const std::string e = input_error_of([&] { results_from_json(j, "mem.json"); });
    EXPECT_NE(e.find("runs[0].timeline.kernels[1]"), std::string::npos) << e;
}

// [clock] The clock through the repetitions: a repetition below 98% of the rated clock is slow;
// the burst figure is the median of the others, given at least five; a reader refuses a burst
// that the samples do not account for.
TEST(Timeline, RepetitionClocksGiveSustainedAndBurst) {
    ClockReport c = make_clock_report(1980, 1980, 1960);
    const std::vector<double> ms = {1.0, 1.0, 1.0, 1.0, 1.0, 1.2, 1.2, 1.3, 1.0};
    const std::vector<double> mhz = {1980, 1975, 1990, 1960, 1945, 1755, 1740, 1700, 0};  // last: no sample
    add_repetition_clocks(c, ms, mhz);
    EXPECT_EQ(c.sampled_reps, 8);
    EXPECT_EQ(c.slow_reps, 3);  // 1945 is above 0.98 x 1980 = 1940.4: at full clock
    EXPECT_DOUBLE_EQ(c.during_min_mhz, 1700);
    EXPECT_DOUBLE_EQ(c.during_max_mhz, 1990);
    ASSERT_TRUE(c.burst.has_value());  // five full-clock repetitions
    EXPECT_EQ(c.burst->reps, 5);
    EXPECT_DOUBLE_EQ(c.burst->median_ms, 1.0);
    add_repetition_clocks(c, {1.0, 1.0, 1.0, 1.0, 1.2}, {1980, 1975, 1990, 1960, 1755});
    EXPECT_FALSE(c.burst.has_value());  // four are not enough
    EXPECT_FALSE(c.throttled);          // slow, but nothing below 75% of rated
    add_repetition_clocks(c, {1.0}, {1400});
    EXPECT_TRUE(c.throttled);  // a repetition below 75% of rated

    ResultsFile f;
    RunRecord r = launch_run("separate", 4, 0.02);
    r.clock = make_clock_report(1980, 1980, 1980);
    add_repetition_clocks(*r.clock, {1.0, 1.0, 1.0, 1.0, 1.1, 1.5}, {1980, 1980, 1980, 1980, 1980, 1700});
    f.runs.push_back(r);
    nlohmann::json j = to_json(f);
    const RunRecord back = results_from_json(j, "mem.json").runs[0];
    ASSERT_TRUE(back.clock && back.clock->burst);
    EXPECT_EQ(back.clock->slow_reps, 1);
    EXPECT_EQ(back.clock->burst->reps, 5);
    EXPECT_DOUBLE_EQ(back.clock->during_min_mhz, 1700);
    j["runs"][0]["clock"]["burst"]["reps"] = 6;  // more full-clock repetitions than were sampled
    std::string e = input_error_of([&] { results_from_json(j, "mem.json"); });
    EXPECT_NE(e.find("runs[0].clock.burst.reps"), std::string::npos) << e;
    j["runs"][0]["clock"]["burst"]["reps"] = 5;
    j["runs"][0]["clock"]["during"]["min_mhz"] = 2500;  // above the median
    e = input_error_of([&] { results_from_json(j, "mem.json"); });
    EXPECT_NE(e.find("runs[0].clock.during"), std::string::npos) << e;
}

// [hold] The hold a run gave its repetitions travels in results; a reader refuses one that is not a
// wait the runner could have made (negative, or past KL_HOLD_US's 100 ms), naming the field.
TEST(Timeline, TheHoldRoundTripsAndAnImpossibleOneIsRefused) {
    ResultsFile f;
    RunRecord r = launch_run("separate", 4, 0.02);
    r.clock = make_clock_report(1980, 1980, 1980);
    r.clock->hold_us = 412.5;
    f.runs.push_back(r);
    nlohmann::json j = to_json(f);
    EXPECT_DOUBLE_EQ(results_from_json(j, "mem.json").runs[0].clock->hold_us, 412.5);
    j["runs"][0]["clock"].erase("hold_us");  // files before the hold was recorded
    EXPECT_DOUBLE_EQ(results_from_json(j, "mem.json").runs[0].clock->hold_us, 0.0);
    for (double bad : {-1.0, 100'001.0}) {
        j["runs"][0]["clock"]["hold_us"] = bad;
        const std::string e = input_error_of([&] { results_from_json(j, "mem.json"); });
        EXPECT_NE(e.find("runs[0].clock.hold_us"), std::string::npos) << e;
    }
    j["runs"][0]["clock"]["hold_us"] = "long";
    EXPECT_NE(input_error_of([&] { results_from_json(j, "mem.json"); }).find("hold_us"), std::string::npos);
}
