// Bound numbers: parsing `{{ ... }}`, formatting, and which run a binding resolves to (live
// before recorded, newest recording first, `from=` pins a file, defaults fill unnamed keys, a
// parameter a recorded run does not list matches its default only).
#include <gtest/gtest.h>

#include "base/paths.h"
#include "course/bindings.h"
#include "course/lesson_check.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_bindings {

using namespace kl;

namespace {

RunRecord run(int64_t tpb, double gbps, double ms) {
    RunRecord r;
    r.ladder = "tiny";
    r.rung = "one";
    r.params = {{"TPB", tpb}};
    r.sizes = {{"n", 1000}};
    r.values.set(tag::gbps, gbps);
    r.timing = TimingStats{};
    r.timing->median_ms = ms;
    return r;
}

ResultsFile file(const std::string& created, std::vector<RunRecord> runs) {
    ResultsFile f;
    f.created = created;
    f.device = DeviceInfo{};
    f.device->name = "Test GPU";
    f.runs = std::move(runs);
    return f;
}

Binding one(const std::string& text) {
    std::vector<std::string> errors;
    auto bs = find_bindings(text, &errors);
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
    EXPECT_EQ(bs.size(), 1u);
    return bs.empty() ? Binding{} : bs[0];
}

}  // namespace

TEST(Bindings, ParsesTargetMetricKeysAndFormat) {
    Binding b = one("at {{ elementwise/vector_add gbps TPB=32 n=2^28 | .1 }} GB/s");
    EXPECT_EQ(b.target, "elementwise/vector_add");
    EXPECT_EQ(b.metric, "gbps");
    ASSERT_EQ(b.keys.size(), 2u);
    EXPECT_EQ(b.keys[1].first, "n");
    EXPECT_EQ(parse_bound_int(b.keys[1].second), int64_t(1) << 28);
    EXPECT_EQ(b.decimals, 1);
    EXPECT_EQ(b.begin, 3u);
}

TEST(Bindings, MalformedBindingsAreReportedNotReturned) {
    std::vector<std::string> errors;
    EXPECT_TRUE(
        find_bindings("{{ vector_add }} and {{ a/b gbps TPB }} and {{ a/b ms | huge }} {{ open", &errors).empty());
    ASSERT_EQ(errors.size(), 4u);
    EXPECT_NE(errors[0].find("expected TARGET METRIC"), std::string::npos);
    EXPECT_NE(errors[1].find("'TPB' is not KEY=VALUE"), std::string::npos);
    EXPECT_NE(errors[2].find("unknown format 'huge'"), std::string::npos);
    EXPECT_NE(errors[3].find("without a closing"), std::string::npos);
}

TEST(Bindings, FormatsWithThreeSignificantDigitsAndThousands) {
    EXPECT_EQ(format_bound(2777.4, "GB/s", -1, false), "2,777 GB/s");
    EXPECT_EQ(format_bound(33.28, "TFLOP/s", -1, false), "33.3 TFLOP/s");
    EXPECT_EQ(format_bound(0.9226, "ms", -1, false), "0.923 ms");
    EXPECT_EQ(format_bound(92.54, "%", 1, false), "92.5%");
    EXPECT_EQ(format_bound(4.06e-6, "", -1, false), "4.1e-06");
    EXPECT_EQ(format_bound(1276.0, "GB/s", -1, true), "1,276");
}

TEST(Bindings, NewestRecordingWinsAndFromPinsAFile) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(256, 100, 1)}), "rec/old.json");
    s.add_recorded(file("2026-02-01T00:00:00Z", {run(256, 200, 1), run(32, 50, 4)}), "rec/new.json");
    BoundValue v = s.resolve(one("{{ tiny/one gbps }}"));  // TPB defaults to 256
    ASSERT_TRUE(v.ok) << v.error;
    EXPECT_EQ(v.value, 200);
    EXPECT_EQ(v.origin, "rec/new.json");
    EXPECT_EQ(v.date, "2026-02-01");
    EXPECT_EQ(v.device, "Test GPU");
    EXPECT_EQ(s.resolve(one("{{ tiny/one gbps from=old }}")).value, 100);
    EXPECT_EQ(s.resolve(one("{{ tiny/one ms TPB=32 }}")).shown, "4.00 ms");
}

// A parameter whose default changed after runs were recorded without it names what they ran with
// (`before`): those runs stand for that value, not for the new default.
TEST(Bindings, BeforeNamesWhatRunsWithoutTheParameterRanWith) {
    TempTree t;
    std::vector<Ladder> ladders = tiny_ladder_with_tpb(t, "  before  = 32\n");
    EXPECT_EQ(ladders[0].rungs[0].params[0].before, 32);
    NumberSources s(&ladders);
    RunRecord old_run = run(32, 100, 1);
    old_run.params.clear();  // recorded before the rung had TPB: it ran as TPB = 32
    s.add_recorded(file("2026-01-01T00:00:00Z", {old_run}), "rec/old.json");
    EXPECT_FALSE(s.resolve(one("{{ tiny/one gbps }}")).ok);  // the default, 256, was never run
    EXPECT_EQ(s.resolve(one("{{ tiny/one gbps TPB=32 }}")).value, 100);
}

// A run traced with --timeline offers its first kernel's own time and its kernels' summed time;
// a run without a timeline does not resolve them.
TEST(Bindings, TimelineMetricsComeFromTheTracedRepetition) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    RunRecord traced = run(256, 100, 3);
    traced.timeline = make_timeline({{"first", 0, 1400}, {"second", 1410, 2760}}, 2.8);
    s.add_recorded(file("2026-01-01T00:00:00Z", {traced}), "rec/traced.json");
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(32, 100, 3)}), "rec/plain.json");
    EXPECT_DOUBLE_EQ(s.resolve(one("{{ tiny/one kernel1_ms }}")).value, 1.4);
    EXPECT_DOUBLE_EQ(s.resolve(one("{{ tiny/one traced_ms }}")).value, 2.75);
    EXPECT_EQ(s.resolve(one("{{ tiny/one kernel1_ms }}")).shown, "1.40 ms");
    EXPECT_FALSE(s.resolve(one("{{ tiny/one kernel1_ms TPB=32 }}")).ok);
}

// A run recorded before its rung had a parameter does not list it: it stands for the default
// (the old behaviour), and for no other value.
TEST(Bindings, ARunWithoutANewerParameterMatchesOnlyItsDefault) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    RunRecord old_run = run(256, 100, 1);
    old_run.params.clear();  // recorded before the rung had TPB
    s.add_recorded(file("2026-01-01T00:00:00Z", {old_run}), "rec/old.json");
    BoundValue v = s.resolve(one("{{ tiny/one gbps }}"));  // TPB's default, 256
    ASSERT_TRUE(v.ok) << v.error;
    EXPECT_EQ(v.value, 100);
    EXPECT_TRUE(s.resolve(one("{{ tiny/one gbps TPB=256 }}")).ok);
    EXPECT_FALSE(s.resolve(one("{{ tiny/one gbps TPB=32 }}")).ok);
}

TEST(Bindings, ASecondDevicesNewerRecordingsDoNotChangeTheLessonsDevice) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(256, 100, 1)}), "rec/h100_one.json");  // first file: preferred
    ResultsFile other = file("2026-02-01T00:00:00Z", {run(256, 200, 1), run(32, 50, 4)});
    other.device->name = "Other GPU";
    s.add_recorded(std::move(other), "rec/h200_one.json");
    BoundValue v = s.resolve(one("{{ tiny/one gbps }}"));
    ASSERT_TRUE(v.ok) << v.error;
    EXPECT_EQ(v.value, 100);  // the preferred device's, although the other device's run is newer
    EXPECT_EQ(v.device, "Test GPU");
    // What only the other device recorded still resolves, and says which device it came from.
    BoundValue w = s.resolve(one("{{ tiny/one gbps TPB=32 }}"));
    ASSERT_TRUE(w.ok) << w.error;
    EXPECT_EQ(w.device, "Other GPU");
    EXPECT_EQ(s.resolve(one("{{ tiny/one gbps from=h200_one }}")).value, 200);
}

TEST(Bindings, LiveRunComesBeforeRecordings) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-02-01T00:00:00Z", {run(256, 200, 1)}), "rec/new.json");
    s.add_live(run(256, 321, 1), "My GPU", "2026-03-03");
    BoundValue v = s.resolve(one("{{ tiny/one gbps }}"));
    ASSERT_TRUE(v.ok);
    EXPECT_TRUE(v.live);
    EXPECT_EQ(v.value, 321);
    EXPECT_NE(v.source_line().find("your run"), std::string::npos);
}

TEST(Bindings, UnresolvedBindingSaysWhy) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-02-01T00:00:00Z", {run(256, 200, 1)}), "rec/new.json");
    EXPECT_NE(s.resolve(one("{{ tiny/one gbps TPB=64 }}")).error.find("no successful run of tiny/one with TPB=64"),
              std::string::npos);
    EXPECT_NE(s.resolve(one("{{ tiny/two gbps }}")).error.find("has no rung 'two'"), std::string::npos);
    EXPECT_NE(s.resolve(one("{{ tiny/one speed }}")).error.find("unknown metric 'speed'"), std::string::npos);
    EXPECT_NE(s.resolve(one("{{ tiny/one gbps Q=1 }}")).error.find("neither a size axis"), std::string::npos);
    EXPECT_NE(s.resolve(one("{{ device copy_gbps }}")).error.find("no device card"), std::string::npos);
    std::vector<BoundValue> values;
    EXPECT_EQ(s.render("x {{ tiny/one gbps TPB=64 }} y", &values), "x [unresolved: tiny/one gbps TPB=64] y");
    ASSERT_EQ(values.size(), 1u);
    EXPECT_FALSE(values[0].ok);
}

// A table quotes its unit once, in a header cell or in the caption above it; its bare cells are
// measured numbers all the same.
TEST(LessonCheck, FindsBareNumbersInTablesWhoseHeaderOrCaptionNamesTheUnit) {
    std::string header =
        "| N | naive ms | memory |\n|---|---|---|\n| 1,024 | 0.119 | 104 MiB |\n| 2,048 | refused | x |\n";
    auto h = kl::find_table_unit_numbers(header);
    ASSERT_EQ(h.size(), 1u);
    EXPECT_EQ(h[0].text, "0.119 ms");
    EXPECT_EQ(header.substr(h[0].pos, 5), "0.119");
    std::string caption =
        "Measured, in TFLOP/s:\n\n| rung | 1792 | 1793 |\n|---|---|---|\n| cublas | 435 | {{ x }} |\n";
    auto c = kl::find_table_unit_numbers(caption);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].text, "435 TFLOP/s");
    // No unit named anywhere: counts, sizes and ratios are not measurements of time or rate.
    EXPECT_TRUE(kl::find_table_unit_numbers("| TPB | blocks |\n|---|---|\n| 32 | 1,024 |\n").empty());
    // The first column labels the row; a table without a header separator is not a table.
    EXPECT_TRUE(kl::find_table_unit_numbers("| 0.5 ms | 3 |\n| 1 | 2 |\n").empty());
}

// The texts of the numbers found, in order (one comparison shows every miss at once).
template <class Found>
std::vector<std::string> unit_number_texts(const std::vector<Found>& nums) {
    std::vector<std::string> texts;
    for (const auto& n : nums) texts.push_back(n.text);
    return texts;
}

TEST(LessonCheck, FindsNumbersWithUnitsOfTimeBandwidthAndRate) {
    auto nums =
        find_unit_numbers("ran 2,777 GB/s in 1.16 ms (3.3 TFLOP/s), 5 us, 12 bytes, sm_90 s, 3 steps, 1s, 0.1 s");
    EXPECT_EQ(unit_number_texts(nums),
              (std::vector<std::string>{"2,777 GB/s", "1.16 ms", "3.3 TFLOP/s", "5 us", "0.1 s"}));
    // A unit wrapped to the next line is still typed, and reads as on one line.
    auto wrapped = find_unit_numbers("a kernel reported at 51\nregisters takes 56, and\n12 bytes");
    ASSERT_EQ(wrapped.size(), 1u);
    EXPECT_EQ(wrapped[0].text, "51 registers");
}

// A memory size in binary units is a figure like any other ("24 GiB" of a run's peak, "80 GiB" of
// a GPU): typed, it is caught. Decimal GB and MB count the bytes a kernel moves and stay free; a
// rate in GiB/s stays one rate, and a cache size keeps its cache.
TEST(LessonCheck, FindsMemorySizesInBinaryUnits) {
    auto nums = find_unit_numbers(
        "the naive rung holds 24 GiB, no GPU holds 1 TiB, a 64 x 64 tile 16 KiB, the array 512"
        "\nMiB, then 1.5 MiB; it moves 537 MB (4.8 GB in all) at 2,600 GiB/s through a 50 MB L2; 8 GiBs, x2GiB");
    EXPECT_EQ(unit_number_texts(nums),
              (std::vector<std::string>{"24 GiB", "1 TiB", "16 KiB", "512 MiB", "1.5 MiB", "2,600 GiB/s", "50 MB L2"}));
}

// [tuned] settings=tuned binds the rung's tuned figure, whatever parameters the search chose;
// settings=default its figure at the defaults, never a tuned run's, even a newer one.
TEST(Bindings, SettingsPickTheTunedOrTheDefaultFigure) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    RunRecord tuned = run(64, 300, 1);
    tuned.settings = {"tuned", "2026-11-29T12:00:00Z", 4, 4, false};
    RunRecord tuned_at_default = run(256, 250, 1);  // a later tuning that kept the defaults
    tuned_at_default.settings = tuned.settings;
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(256, 200, 1)}), "rec/defaults.json");
    s.add_recorded(file("2026-02-01T00:00:00Z", {tuned}), "rec/tuned.json");
    EXPECT_EQ(s.resolve(one("{{ tiny/one gbps settings=tuned }}")).value, 300);
    EXPECT_EQ(s.resolve(one("{{ tiny/one gbps settings=default }}")).value, 200);
    s.add_recorded(file("2026-03-01T00:00:00Z", {tuned_at_default}), "rec/later.json");
    EXPECT_EQ(s.resolve(one("{{ tiny/one gbps settings=default }}")).value, 200);
    EXPECT_EQ(s.resolve(one("{{ tiny/one gbps settings=tuned }}")).value, 250);
    EXPECT_EQ(s.resolve(one("{{ tiny/one gbps settings=tuned TPB=64 }}")).value, 300);
    BoundValue bad = s.resolve(one("{{ tiny/one gbps settings=best }}"));
    EXPECT_NE(bad.error.find("settings must be tuned or default"), std::string::npos) << bad.error;
    BoundValue none = s.resolve(one("{{ tiny/one gbps settings=tuned TPB=32 }}"));
    EXPECT_NE(none.error.find("TPB=32 n=1000 fp32 cold L2 settings=tuned"), std::string::npos) << none.error;
}

// Datasheet peaks come from the device profiles (course/datasheet.h), the one place class mode's
// plausibility checks read them too: the entry of the device's name, with its source.
TEST(Bindings, DatasheetPeaksComeFromTheDeviceProfiles) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.set_datasheets(load_datasheets(assets_dir() + "/devices"), "assets/devices");
    DeviceInfo a100;
    a100.name = "NVIDIA A100-SXM4-80GB";
    s.set_device(a100, "a test");
    BoundValue v = s.resolve(one("{{ device datasheet_gbps }}"));
    ASSERT_TRUE(v.ok) << v.error;
    EXPECT_EQ(v.value, 2039);
    EXPECT_EQ(v.origin, "assets/devices/sm_80_a100.json");
    EXPECT_NE(v.what.find("A100 80GB SXM"), std::string::npos) << v.what;
    a100.name = "NVIDIA A100-SXM4-40GB (profile)";  // check-lessons renders under each profile
    s.set_device(a100, "a profile");
    EXPECT_EQ(s.resolve(one("{{ device datasheet_gbps }}")).value, 1555);
    DeviceInfo t4;
    t4.name = "Tesla T4";
    s.set_device(t4, "a test");
    EXPECT_EQ(s.resolve(one("{{ device datasheet_fp32_tflops }}")).value, 8.1);
    EXPECT_NE(
        s.resolve(one("{{ device datasheet_bf16_tflops }}")).error.find("no datasheet bf16_tflops for 'Tesla T4'"),
        std::string::npos);
    DeviceInfo laptop;
    laptop.name = "NVIDIA GeForce RTX 4060 Laptop GPU";
    s.set_device(laptop, "a test");
    EXPECT_FALSE(s.resolve(one("{{ device datasheet_gbps }}")).ok);
}

// The peaks a lesson's tables need beside fp32 and bf16 (issue 35): TF32, fp8, the 16-bit tensor
// rate (fp16 on a T4, which has no bf16) and the boost clock; none for a format the GPU lacks.
// card=NAME gives the datasheet of that card's GPU, whatever device the text shows.
TEST(Bindings, DatasheetHoldsTf32Fp8TensorAndClockAndFollowsACard) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.set_datasheets(load_datasheets(assets_dir() + "/devices"), "assets/devices");
    DeviceInfo h200;
    h200.name = "NVIDIA H200 (profile)";
    s.set_device(h200, "a profile");
    EXPECT_EQ(s.resolve(one("{{ device datasheet_tf32_tflops }}")).value, 494.7);
    EXPECT_EQ(s.resolve(one("{{ device datasheet_fp8_tflops }}")).value, 1979);
    EXPECT_EQ(s.resolve(one("{{ device datasheet_gbps }}")).value, 4800);
    BoundValue clock = s.resolve(one("{{ device datasheet_clock_mhz }}"));
    EXPECT_EQ(clock.value, 1980);
    EXPECT_EQ(clock.unit, "MHz");
    DeviceInfo t4;
    t4.name = "Tesla T4";
    s.set_device(t4, "a test");
    EXPECT_EQ(s.resolve(one("{{ device datasheet_tensor_tflops }}")).value, 65);
    EXPECT_NE(s.resolve(one("{{ device datasheet_tf32_tflops }}")).error.find("no datasheet tf32_tflops"),
              std::string::npos);
    EXPECT_NE(s.resolve(one("{{ device datasheet_fp8_tflops }}")).error.find("no datasheet fp8_tflops"),
              std::string::npos);
    DeviceCard card;
    card.path = "assets/recorded/cards/nvidia_h100_80gb_hbm3.json";
    card.device = "NVIDIA H100 80GB HBM3";
    card.doc = {{"values", nlohmann::json::object()}};
    s.add_card(card);
    BoundValue pinned = s.resolve(one("{{ device datasheet_gbps card=nvidia_h100_80gb_hbm3 }}"));
    ASSERT_TRUE(pinned.ok) << pinned.error;
    EXPECT_EQ(pinned.value, 3350);  // the H100's, while the text shows a T4
    EXPECT_EQ(pinned.device, "NVIDIA H100 80GB HBM3");
    EXPECT_NE(s.resolve(one("{{ device datasheet_gbps card=nvidia_b200 }}")).error.find("no card 'nvidia_b200'"),
              std::string::npos);
}

}  // namespace kl_test_bindings
