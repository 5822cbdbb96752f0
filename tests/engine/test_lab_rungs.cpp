// Issue 37: lab rungs and the 5-parameter rule, one number per rung, and lesson text that calls a
// rung by a number that is its own.
#include <gtest/gtest.h>

#include <set>

#include "base/errors.h"
#include "base/paths.h"
#include "course/rung_numbers.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_lab_rungs {

namespace {

// A rung "one" of the tiny ladder with these parameter tables (each "NAME lab?"), values 1..4,
// default 1, all used by its launch's grid so that the loader's name check sees them.
std::string rung_with(const std::vector<std::pair<std::string, bool>>& params, const std::string& fields = "") {
    std::string m = kTinyLadderHead + fields, grid;
    for (const auto& [name, lab] : params) {
        m += "  [rung.params." + name + "]\n  default = 1\n  min = 1\n  max = 4\n";
        if (lab) m += "  lab = true\n";
        grid += (grid.empty() ? "" : " + ") + name;
    }
    return m + "  [[rung.launch]]\n  entry = \"one\"\n  grid = [\"" + grid +
           "\"]\n  block = [\"32\"]\n  args = [\"y\"]\n";
}

kl::Ladder load(const TempTree& t, const std::string& manifest) {
    t.write("tiny/01_one.cu", "extern \"C\" __global__ void one(float* y) {}\n");
    t.write("tiny/02_two.cu", "extern \"C\" __global__ void two(float* y) {}\n");
    return kl::load_ladder(t.write("tiny/ladder.toml", manifest));
}

std::string error_of(const std::string& manifest) {
    TempTree t;
    return input_error_of([&] { load(t, manifest); });
}

const std::vector<std::pair<std::string, bool>> kSix = {{"A", false}, {"B", false}, {"C", false},
                                                        {"D", false}, {"E", true},  {"F", true}};

}  // namespace

TEST(LabRungs, ATeachingRungWithMoreThanFiveParametersIsRefusedNamingFileRungAndCount) {
    std::vector<std::pair<std::string, bool>> six = kSix;
    six[4].second = six[5].second = false;
    std::string e = error_of(rung_with(six));
    EXPECT_NE(e.find("tiny/ladder.toml:7: rung 'one'.params: 6 parameters; a teaching rung has at most 5"),
              std::string::npos)
        << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << "one line";
    EXPECT_EQ(error_of(rung_with(six, "lab = true\n")), "") << "a lab rung keeps every switch";
}

TEST(LabRungs, LabSwitchesArePinnedOnTheTeachingRungAndFreeOnItsTwin) {
    TempTree t;
    kl::Ladder L = load(t, rung_with(kSix));
    ASSERT_EQ(L.rungs.size(), 1u);
    const kl::Rung& teach = L.rungs[0];
    EXPECT_EQ(teach.free_params(), 4u);
    EXPECT_FALSE(teach.lab);
    const kl::ParamSpec* e = teach.find_param("E");
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->pinned);
    EXPECT_EQ(e->allowed(), std::vector<int64_t>{1});
    // Still a parameter of the rung: compiled with -DE=1, and part of what its runs record.
    EXPECT_EQ(kl::resolve_params(teach, {}).at("E"), 1);
    std::string why = input_error_of([&] { kl::resolve_params(teach, {{"E", 2}}); });
    EXPECT_NE(why.find("lab switch of rung one, pinned at 1; rung one_lab varies it"), std::string::npos) << why;

    ASSERT_EQ(L.lab_rungs.size(), 1u);
    const kl::Rung* twin = L.find_rung("one_lab");
    ASSERT_EQ(twin, &L.lab_rungs[0]) << "find_rung finds lab rungs";
    EXPECT_TRUE(twin->lab);
    EXPECT_EQ(twin->lab_of, "one");
    EXPECT_EQ(twin->number, teach.number) << "the same rung, its switches free";
    EXPECT_EQ(twin->source_path, teach.source_path);
    EXPECT_EQ(twin->free_params(), 6u);
    EXPECT_EQ(kl::resolve_params(*twin, {{"E", 2}}).at("E"), 2);
    EXPECT_EQ(L.every_rung().size(), 2u) << "check-kernels and the GPU tests see both";
}

TEST(LabRungs, ATwinWhoseIdIsTakenIsRefused) {
    std::string second =
        "\n[[rung]]\nid = \"one_lab\"\ntitle = \"Two\"\nfile = \"02_two.cu\"\n"
        "  [[rung.launch]]\n  entry = \"two\"\n  grid = [\"1\"]\n  block = [\"32\"]\n  args = [\"y\"]\n";
    std::string e = error_of(rung_with(kSix) + second);
    EXPECT_NE(e.find("'one_lab' is taken by the lab twin of rung 'one'"), std::string::npos) << e;
}

TEST(RungNumbers, NumbersComeFromTheManifestAndADuplicateIsRefused) {
    const std::string two = "\n[[rung]]\nid = \"two\"\ntitle = \"Two\"\nfile = \"02_two.cu\"\n";
    const std::string launch =
        "  [[rung.launch]]\n  entry = \"two\"\n  grid = [\"1\"]\n  block = [\"32\"]\n"
        "  args = [\"y\"]\n";
    {
        TempTree t;
        kl::Ladder L = load(t, rung_with({{"A", false}}) + two + "number = \"01b\"\n" + launch);
        EXPECT_EQ(L.rungs[0].number, "01") << "the file's number";
        EXPECT_EQ(L.rungs[1].number, "01b") << "the manifest's";
    }
    std::string e = error_of(rung_with({{"A", false}}) + two + "number = \"01\"\n" + launch);
    EXPECT_NE(e.find("rung 'two'.number: '01' is already rung 'one''s number"), std::string::npos) << e;
    e = error_of(rung_with({{"A", false}}, "number = \"1 2\"\n"));
    EXPECT_NE(e.find("number: '1 2' must be 1 to 4 letters and digits"), std::string::npos) << e;
}

TEST(RungNumbers, EveryShippedLadderHasOneNumberPerRungAndNoTeachingRungOverFiveParameters) {
    std::vector<std::string> errors;
    auto ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    for (const auto& e : errors) ADD_FAILURE() << e;
    for (const auto& L : ladders) {
        std::set<std::string> numbers;
        for (const auto& r : L.rungs) {
            EXPECT_TRUE(numbers.insert(r.number).second) << L.id << "/" << r.id << " " << r.number;
            EXPECT_LE(r.free_params(), kl::kTeachingParams) << L.id << "/" << r.id;
        }
    }
}

TEST(RungNumbers, LessonTextThatCallsARungByAnotherNumberIsAnOffence) {
    TempTree t;
    std::vector<kl::Ladder> ladders{load(t, rung_with({{"A", false}}))};  // rung "one" is number 01
    kl::Lesson lesson;
    lesson.manifest_path = "lessons/07_x/lesson.toml";
    lesson.dir = "lessons/07_x";
    kl::LessonStep s;
    s.ladder = "tiny";
    s.rung = "one";
    s.text_path = "01_a.md";
    s.text =
        "Rung 1 `one` is fine, so is rung 01's {{ tiny/one us }} and rung 7 with no name.\n"
        "But rung 2 (one) is not,\nnor tiny rung 3 `one`.";
    s.predict_ask = "Predict rung 4's time.";
    lesson.steps.push_back(s);
    std::vector<std::string> out = kl::check_rung_numbers({lesson}, ladders);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0],
              "lessons/07_x/01_a.md:2: calls rung one 'rung 2', but its number is 01 (the strip's and "
              "`kladder list`'s)");
    EXPECT_NE(out[1].find("01_a.md:3: calls rung one 'rung 3'"), std::string::npos) << out[1];
    EXPECT_EQ(out[2],
              "lessons/07_x/lesson.toml: step[0].predict.ask: asks about 'rung 4', but the step's rung one "
              "is number 01");
}

}  // namespace kl_test_lab_rungs
