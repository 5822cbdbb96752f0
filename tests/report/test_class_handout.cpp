// The class folder of `kladder class merge` (issue 41 part 3): a class of 20 synthetic
// submissions from three device profiles (tests/engine/class_fixtures.h: made-up times, never
// measurements) gives the handout, the figures in every print format and a gradebook whose cells
// no spreadsheet runs as formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../engine/class_fixtures.h"
#include "../engine/temp_tree.h"
#include "course/class_merge.h"
#include "report/class_handout.h"

namespace {

kl::ClassMerge synthetic_class() {
    const char* profiles[] = {"sm_90_h100.json", "sm_80_a100.json", "sm_89_l4.json"};
    const auto sheets = kl::load_datasheets(kl::assets_dir() + "/devices");
    kl::ClassMerge m;
    for (int i = 0; i < 20; ++i) {
        const std::string name = i == 7 ? "=HYPERLINK(\"http://x\")" : "learner " + std::to_string(i);
        m.entries.push_back(kl::class_entry_of(
            name + ".json", class_fixture::submission(profiles[i % 3], name, 0.3 + 0.03 * i), sheets));
    }
    kl::Submission cheat = class_fixture::submission(profiles[0], "cheater", 0.5);
    cheat.checks[3] = {kl::judge_check::kPoisoned, false, "the output of the last timed run was wrong"};
    m.entries.push_back(kl::class_entry_of("cheater.json", cheat, sheets));
    m.problems.push_back("tampered.json: tampered: the signature does not match the content");
    return m;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST(ClassHandout, WritesTheLeaderboardsFiguresHandoutAndAGuardedGradebook) {
    TempTree tree;
    const kl::ClassMerge m = synthetic_class();
    const std::string out = tree.path("class");
    const auto written = kl::report::write_class_folder(m, "0123456789abcdef", out, {});
    for (const char* f : {"class.md", "class.html", "gradebook.csv", "problems.txt", "01_first_kernel_8_times.pdf",
                          "01_first_kernel_8_roof.png", "01_first_kernel_8_roof.svg"})
        EXPECT_TRUE(std::filesystem::is_regular_file(out + "/" + f)) << f;
    const std::string md = slurp(out + "/class.md");
    EXPECT_NE(md.find("| 1 | learner 19 | NVIDIA A100-SXM4-40GB |"), std::string::npos) << md.substr(0, 2000);
    EXPECT_NE(md.find("**NVIDIA L4**, by time:"), std::string::npos);
    EXPECT_NE(md.find("| cheater | NVIDIA H100 80GB HBM3 | refused by check 'poisoned output'"), std::string::npos);
    EXPECT_NE(md.find("### The best kernels side by side"), std::string::npos);
    EXPECT_NE(md.find("tampered.json: tampered"), std::string::npos);
    const std::string csv = slurp(out + "/gradebook.csv");
    EXPECT_EQ(csv.find(",=HYPERLINK"), std::string::npos);
    EXPECT_EQ(csv.find("\n=HYPERLINK"), std::string::npos);
    EXPECT_NE(csv.find("'=HYPERLINK"), std::string::npos);
    EXPECT_NE(csv.find("\nlearner 19,01_first_kernel/8,NVIDIA A100-SXM4-40GB,accepted,1,"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",7 of 7,yes,learner 19.json,"), std::string::npos) << csv;
    for (std::istringstream lines(csv); !lines.eof();) {
        std::string line;
        std::getline(lines, line);
        for (char bad : {'=', '+', '-', '@'}) EXPECT_NE(line.empty() ? 'x' : line[0], bad) << line;
        EXPECT_EQ(line.find(",="), std::string::npos) << line;
        EXPECT_EQ(line.find(",@"), std::string::npos) << line;
    }
    EXPECT_EQ(slurp(out + "/01_first_kernel_8_times.pdf").rfind("%PDF", 0), 0u);
    // The handout as print pages: a PDF of several pages, each footed with the class key.
    const std::string pdf = slurp(out + "/class.pdf");
    EXPECT_EQ(pdf.rfind("%PDF", 0), 0u);
    size_t pages = 0;
    for (size_t at = pdf.find("/Type /Page"); at != std::string::npos; at = pdf.find("/Type /Page", at + 1))
        pages += pdf.compare(at, 12, "/Type /Pages") != 0;
    EXPECT_GE(pages, 2u);
    EXPECT_EQ(written.size(), 11u);
}

TEST(ClassHandout, TheTimesFigureCountsLearnersInWholeRanks) {
    const auto times = kl::report::class_times_figure(synthetic_class(), "01_first_kernel/8");
    ASSERT_FALSE(times.x.ticks.empty());
    for (const auto& t : times.x.ticks) EXPECT_EQ(t.value, std::floor(t.value)) << t.label;
    EXPECT_EQ(times.x.ticks.front().label, "1");
}

TEST(ClassHandout, FiguresPlaceEachLearnerOnItsOwnDevice) {
    const kl::ClassMerge m = synthetic_class();
    const auto roof = kl::report::class_roof_figure(m, "01_first_kernel/8");
    ASSERT_EQ(roof.x.categories.size(), 3u);
    size_t marks = 0;
    for (const auto& s : roof.series) marks += s.kind == kl::plot::SeriesKind::Scatter ? s.points.size() : 0;
    EXPECT_EQ(marks, 20u);  // the cheater is not drawn
    const auto times = kl::report::class_times_figure(m, "01_first_kernel/8");
    ASSERT_EQ(times.series.size(), 3u);
}
