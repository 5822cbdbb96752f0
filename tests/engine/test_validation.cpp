// What a file that parses can still get wrong: manifest expressions that cannot be evaluated,
// results with values no run can have, device cards that would overwrite each other. The same
// through the real program: tests/hostile/validation_cases.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "base/atomic_file.h"
#include "base/json_input.h"
#include "base/paths.h"
#include "course/bindings.h"
#include "model/device_card.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "model/results.h"
#include "model/results_json.h"
#include "temp_tree.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The tiny ladder (temp_tree.h) with TPB in {32, 64} and `more` after its launch's first line;
// its rung's fields start on line 11.
kl::Ladder tiny_with(const TempTree& t, const std::string& constraint, const std::string& when = "") {
    t.write("tiny/01_one.cu", "extern \"C\" __global__ void one() {}\n");
    return kl::load_ladder(t.write("tiny/ladder.toml", kTinyLadderHead + R"TOML(  [rung.params.TPB]
  default = 32
  values = [32, 64]
  [[rung.constraint]]
  expr = ")TOML" + constraint + R"TOML("
  message = "a constraint"
  [[rung.launch]]
  entry = "one"
)TOML" + (when.empty() ? "" : "  when = \"" + when + "\"\n") +
                                                           R"TOML(  grid = ["1"]
  block = ["TPB"]
  args = []
)TOML"));
}

kl::Scope scope_at(const kl::Rung& r, int64_t tpb) {
    return kl::make_scope({{"n", 1000}}, kl::resolve_params(r, {{"TPB", tpb}}), kl::DType::F32, 132);
}

// The message check_constraints throws as a ManifestError, or "" when it throws none or another.
std::string manifest_error_of(const kl::Rung& r, const kl::Scope& scope) {
    try {
        kl::check_constraints(r, scope);
    } catch (const kl::ManifestError& e) { return e.what(); } catch (const kl::InputError&) {
    }
    return "";
}

}  // namespace

// [SECTION] Manifest expressions that parse but cannot be evaluated

TEST(ManifestEvaluation, AConstraintThatCannotBeEvaluatedIsTheManifestsErrorWithItsLine) {
    TempTree t;
    kl::Ladder L = tiny_with(t, "n / (TPB - 64) < 1");
    const kl::Rung& r = L.rungs.at(0);
    EXPECT_NO_THROW(kl::check_constraints(r, scope_at(r, 32)));
    EXPECT_EQ(manifest_error_of(r, scope_at(r, 64)),
              t.path("tiny/ladder.toml") +
                  ":15: rung[0].constraint[0].expr: expression 'n / (TPB - 64) < 1': division by zero (with TPB=64, "
                  "n=1000)");
}

TEST(ManifestEvaluation, AConstraintThatFailsIsTheRungsOwnRefusalNotTheManifests) {
    TempTree t;
    kl::Ladder L = tiny_with(t, "TPB < 64");
    const kl::Rung& r = L.rungs.at(0);
    EXPECT_EQ(manifest_error_of(r, scope_at(r, 64)), "");
    EXPECT_EQ(input_error_of([&] { kl::check_constraints(r, scope_at(r, 64)); }),
              "rung one: a constraint (TPB < 64 fails with TPB=64)");
}

TEST(ManifestEvaluation, ALaunchConditionThatCannotBeEvaluatedNamesItsLine) {
    TempTree t;
    kl::Ladder L = tiny_with(t, "TPB > 0", "n % (TPB - 64) == 8");
    const kl::Rung& r = L.rungs.at(0);
    EXPECT_NO_THROW(kl::check_constraints(r, scope_at(r, 32)));
    std::string e = manifest_error_of(r, scope_at(r, 64));
    EXPECT_EQ(e, t.path("tiny/ladder.toml") +
                     ":19: rung[0].launch[0].when: expression 'n % (TPB - 64) == 8': division by zero (with TPB=64, "
                     "n=1000)");
    EXPECT_THROW(kl::applicable_launches(r, scope_at(r, 64)), kl::ManifestError);
}

// [SECTION] Results with values no run can have

namespace {

json recorded_elementwise() {
    const std::string path = kl::assets_dir() + "/recorded/h100_elementwise.json";
    return kl::parse_json_limited(kl::read_file(path), path);
}

// The error reading `j` after `edit` gives ("" when it reads).
std::string error_after(const std::function<void(json&)>& edit) {
    json j = recorded_elementwise();
    edit(j);
    return input_error_of([&] { kl::results_from_json(j, "r.json"); });
}

}  // namespace

TEST(ResultsValues, ImpossibleValuesAreRefusedNamingFieldAndValue) {
    struct Case {
        std::function<void(json&)> edit;
        std::string error;
    };
    const std::vector<Case> cases = {
        {[](json& j) { j["runs"][0]["dtype"] = "fp7"; },
         "r.json: runs[0].dtype: 'fp7' is not a dtype (fp32, bf16, fp16, fp8e4m3)"},
        {[](json& j) { j["runs"][0]["sizes"]["n"] = -1; }, "r.json: runs[0].sizes.n: -1 is negative"},
        {[](json& j) { j["runs"][0]["sizes"]["n"] = 0; },
         "r.json: runs[0].sizes.n: 0 is outside 1..68719476736, the sizes of operation vector_add"},
        {[](json& j) { j["runs"][0]["rates"]["gbps"] = 0; },
         "r.json: runs[0].rates.gbps: 0 for a timed run that moved 3.22123e+09 bytes"},
        {[](json& j) { j["runs"][0]["rates"]["tflops"] = 0; },
         "r.json: runs[0].rates.tflops: 0 for a timed run of 2.68435e+08 FLOPs"},
        {[](json& j) { j["runs"][0]["rates"]["pct_copy"] = -2; }, "r.json: runs[0].rates.pct_copy: -2 is negative"},
        {[](json& j) { j["runs"][0]["work"]["ideal_bytes"] = -8; }, "r.json: runs[0].work.ideal_bytes: -8 is negative"},
        {[](json& j) { j["runs"][0]["timing"]["min_ms"] = 0; },
         "r.json: runs[0].timing.min_ms: 0 ms: a measured time is above zero"},
        {[](json& j) { j["runs"][0]["timing"]["reps"] = 0; },
         "r.json: runs[0].timing.reps: 0: a timing has at least one repetition"},
        {[](json& j) { j["runs"][0]["correctness"]["tolerance"] = "NaN"; },
         "r.json: runs[0].correctness.tolerance: expected an object { abs, rel }, found \"NaN\""},
        {[](json& j) { j["runs"][0]["correctness"]["tolerance"]["abs"] = -1; },
         "r.json: runs[0].correctness.tolerance.abs: -1 is negative"},
        {[](json& j) { j["runs"][0]["correctness"]["unwritten"] = int64_t(1) << 40; },
         "r.json: runs[0].correctness.unwritten: 1099511627776 is more than the 268435456 elements compared"},
        {[](json& j) { j["runs"][0]["peak_memory_bytes"] = -1; }, "r.json: runs[0].peak_memory_bytes: -1 is negative"},
        {[](json& j) { j["calibration"]["copy_gbps"] = -3000; }, "r.json: calibration.copy_gbps: -3000 is negative"},
    };
    for (const auto& c : cases) EXPECT_EQ(error_after(c.edit), c.error);
}

// The same checks on a file of version 3, where the values sit under their tags: the field named
// is values.<tag>. A recording read and written again is version 3 and reads back equal.
TEST(ResultsValues, Version3NamesTheTaggedValue) {
    const kl::ResultsFile legacy = kl::results_from_json(recorded_elementwise(), "h100_elementwise.json");
    const json v3 = kl::to_json(legacy);
    ASSERT_EQ(v3["version"], kl::kResultsVersion);
    ASSERT_TRUE(v3["runs"][0]["values"].is_object());
    EXPECT_FALSE(v3["runs"][0].contains("rates"));
    const kl::ResultsFile again = kl::results_from_json(v3, "again.json");
    ASSERT_EQ(again.runs.size(), legacy.runs.size());
    for (size_t i = 0; i < legacy.runs.size(); ++i)
        EXPECT_EQ(again.runs[i].values.all(), legacy.runs[i].values.all()) << legacy.runs[i].rung;
    const auto error_v3 = [&](const std::function<void(json&)>& edit) {
        json j = v3;
        edit(j);
        return input_error_of([&] { kl::results_from_json(j, "r.json"); });
    };
    EXPECT_EQ(error_v3([](json& j) { j["runs"][0]["values"]["gbps"] = 0; }),
              "r.json: runs[0].values.gbps: 0 for a timed run that moved 3.22123e+09 bytes");
    EXPECT_EQ(error_v3([](json& j) { j["runs"][0]["values"]["peak_memory_bytes"] = -1; }),
              "r.json: runs[0].values.peak_memory_bytes: -1 is negative");
    EXPECT_EQ(error_v3([](json& j) { j["runs"][0]["values"]["pct_copy"] = "93"; }),
              "r.json: runs[0].values.pct_copy: expected a number");
    EXPECT_EQ(error_v3([](json& j) { j["runs"][0]["values"] = json::array(); }),
              "r.json: runs[0].values: expected an object of tag -> number");
    EXPECT_EQ(error_v3([](json& j) { j["runs"][0].erase("values"); }), "r.json: runs[0].values: missing");
    // A tag of a newer program is left out, as unknown fields are.
    EXPECT_EQ(error_v3([](json& j) { j["runs"][0]["values"]["joules"] = 1.5; }), "");
}

TEST(ResultsValues, ZerosThatRealRunsHaveAreKept) {
    // A transpose does no arithmetic; an attention problem's causal axis is 0 or 1; a run that
    // failed has no timing and no rate.
    EXPECT_EQ(error_after([](json& j) {
                  j["runs"][0]["work"]["flops"] = 0.0;
                  j["runs"][0]["rates"]["tflops"] = 0.0;
              }),
              "");
    EXPECT_EQ(error_after([](json& j) {
                  json& run = j["runs"][0];
                  run["timing"] = nullptr;
                  run["rates"]["gbps"] = 0.0;
                  run["rates"]["tflops"] = 0.0;
                  run["error"] = {{"kind", "compile"}, {"message", "no kernel"}};
              }),
              "");
    EXPECT_EQ(error_after([](json& j) { j["runs"][0]["correctness"]["tolerance"] = nullptr; }), "");
}

// Every results file under assets/recorded, in its subfolders too, reads with these checks.
TEST(ResultsValues, EveryRecordedResultsFileReads) {
    int files = 0;
    for (const auto& e : fs::recursive_directory_iterator(kl::assets_dir() + "/recorded")) {
        if (e.path().extension() != ".json") continue;
        json j = kl::parse_json_limited(kl::read_file(e.path().string()), e.path().string());
        if (!j.is_object() || j.value("schema", "") != kl::kResultsSchema) continue;
        ++files;
        EXPECT_NO_THROW(kl::results_from_json(j, e.path().string())) << e.path();
    }
    // The results files the app reads (about a hundred since the dated call folders left the
    // tree, issue 33): a floor that fails if the walk finds the folder empty or misses it.
    EXPECT_GE(files, 90);
}

// [SECTION] Device cards

TEST(DeviceCards, TwoDeviceNamesWithOneCardAreRefusedNamingBoth) {
    kl::RecordedFiles files;
    for (const char* name : {"GPU X", "gpu-x"}) {
        kl::ResultsFile f;
        f.device = kl::DeviceInfo{};
        f.device->name = name;
        files.emplace_back(std::string("rec/") + name + ".json", f);
    }
    EXPECT_EQ(input_error_of([&] { kl::make_device_cards(files); }),
              "devices 'GPU X' (rec/GPU X.json) and 'gpu-x' (rec/gpu-x.json) would both be card gpu_x.json: rename "
              "the device in one of the recordings");
    files.back().second.device->name = "GPU Y";
    auto cards = kl::make_device_cards(files);
    ASSERT_EQ(cards.size(), 2u);
    EXPECT_EQ(cards[0].first, "gpu_x");
    EXPECT_EQ(cards[1].first, "gpu_y");
}

// [SECTION] Short rung labels (`short`, docs/formats.md): one line, at most kShortLabelChars,
// unique within the ladder; refused in one line naming the file, the line and the rung.

namespace {
// A two-rung ladder whose rungs carry the given `short` lines (empty: none); they share a file,
// so the second has its own number.
std::string short_label_error(const TempTree& t, const std::string& first, const std::string& second) {
    t.write("tiny/01_one.cu", "extern \"C\" __global__ void one() {}\n");
    std::string launch = "  [[rung.launch]]\n  entry = \"one\"\n  grid = [\"1\"]\n  block = [\"32\"]\n  args = []\n";
    std::string m = t.write("tiny/ladder.toml",
                            "[ladder]\nid = \"tiny\"\ntitle = \"Tiny\"\noperation = \"gelu\"\n"
                            "sizes = { n = 1000 }\n\n[[rung]]\nid = \"one\"\ntitle = \"One\"\n" +
                                first + "file = \"01_one.cu\"\n" + launch +
                                "\n[[rung]]\nid = \"two\"\ntitle = \"Two\"\nnumber = \"01b\"\n" + second +
                                "file = \"01_one.cu\"\n" + launch);
    try {
        kl::Ladder L = kl::load_ladder(m);
        return "loaded: " + L.rungs.at(0).label() + " / " + L.rungs.at(1).label();
    } catch (const kl::InputError& e) { return e.what(); }
}
}  // namespace

TEST(ManifestShortLabels, ValidOnesNameTheBarsAndBadOnesAreRefusedInOneLine) {
    TempTree t;
    const std::string file = t.path("tiny/ladder.toml");
    EXPECT_EQ(short_label_error(t, "short = \"First\"\n", ""), "loaded: First / Two");
    EXPECT_EQ(short_label_error(t, "short = \"Same\"\n", "short = \"Same\"\n"),
              file + ":22: rung 'two'.short: 'Same' is already rung 'one''s label");
    EXPECT_EQ(short_label_error(t, "", "short = \"One\"\n"),
              file + ":21: rung 'two'.short: 'One' is already rung 'one''s label");
    EXPECT_EQ(short_label_error(t, "short = \"A label far too long for an axis\"\n", ""),
              file + ":10: rung[0].short: 32 characters, at most 24 (it names a bar on a plot axis)");
    EXPECT_EQ(short_label_error(t, "short = \"two\\nlines\"\n", ""),
              file + ":10: rung[0].short: must be one line of text (no control characters)");
    EXPECT_EQ(short_label_error(t, "short = \"  \"\n", ""), file + ":10: rung[0].short: is empty");
    // 24 characters of UTF-8 (two bytes each) are 24, not 48.
    EXPECT_EQ(short_label_error(t,
                                "short = \"\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3"
                                "\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3"
                                "\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\"\n",
                                "")
                  .rfind("loaded: ", 0),
              0u);
}
