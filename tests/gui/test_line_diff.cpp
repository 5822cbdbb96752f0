// The LCS line diff of the source view.
#include <gtest/gtest.h>

#include "gui/line_diff.h"

using kl::gui::DiffLine;
using Op = DiffLine::Op;

namespace {
std::string render(const std::vector<DiffLine>& d) {
    std::string s;
    for (const auto& l : d) s += (l.op == Op::Same ? " " : l.op == Op::Added ? "+" : "-") + l.text + "\n";
    return s;
}
}  // namespace

TEST(LineDiff, SplitLines) {
    EXPECT_EQ(kl::gui::split_lines("a\nb\r\n\nc"), (std::vector<std::string>{"a", "b", "", "c"}));
    EXPECT_EQ(kl::gui::split_lines("a\n"), (std::vector<std::string>{"a"}));
    EXPECT_TRUE(kl::gui::split_lines("").empty());
}

TEST(LineDiff, IdenticalInputsAreAllSame) {
    std::vector<std::string> a = {"x", "y", "z"};
    auto d = kl::gui::diff_lines(a, a);
    EXPECT_EQ(render(d), " x\n y\n z\n");
    EXPECT_EQ(kl::gui::count_changes(d).added, 0);
}

TEST(LineDiff, ChangesInTheMiddle) {
    auto d =
        kl::gui::diff_lines({"head", "old 1", "keep", "old 2", "tail"}, {"head", "new 1", "keep", "tail", "extra"});
    EXPECT_EQ(render(d), " head\n-old 1\n+new 1\n keep\n-old 2\n tail\n+extra\n");
    auto st = kl::gui::count_changes(d);
    EXPECT_EQ(st.added, 2);
    EXPECT_EQ(st.removed, 2);
    // Line numbers point into the right files.
    EXPECT_EQ(d[1].old_line, 2);
    EXPECT_EQ(d[2].new_line, 2);
    EXPECT_EQ(d[5].old_line, 5);
    EXPECT_EQ(d[5].new_line, 4);
}

TEST(LineDiff, LongestCommonSubsequenceIsKept) {
    // The common lines a, c, e must all survive as Same even with changes between them.
    auto d = kl::gui::diff_lines({"a", "b", "c", "d", "e"}, {"a", "c", "x", "e"});
    int same = 0;
    for (const auto& l : d) same += l.op == Op::Same;
    EXPECT_EQ(same, 3);
}

TEST(LineDiff, FallsBackBeyondTheTableLimit) {
    std::vector<std::string> a(100, "a"), b(100, "b");
    auto d = kl::gui::diff_lines(a, b, /*max_cells=*/50);
    auto st = kl::gui::count_changes(d);
    EXPECT_EQ(st.removed, 100);
    EXPECT_EQ(st.added, 100);
}
