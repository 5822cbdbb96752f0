// A line diff by longest common subsequence: what the source view shows between a rung and the
// one before it. Rung files are a few hundred lines, so the quadratic table is cheap; common
// leading and trailing lines are trimmed first, and inputs too large for the table fall back
// to "all removed, all added" rather than stalling the UI.
#pragma once
#include <string>
#include <vector>

namespace kl::gui {

struct DiffLine {
    enum class Op { Same, Added, Removed } op = Op::Same;
    std::string text;
    int old_line = 0;  // 1-based line in the old file (0 for Added)
    int new_line = 0;  // 1-based line in the new file (0 for Removed)
};

std::vector<std::string> split_lines(const std::string& text);
std::vector<DiffLine> diff_lines(const std::vector<std::string>& old_lines, const std::vector<std::string>& new_lines,
                                 size_t max_cells = 16u << 20);

struct DiffStats {
    int added = 0, removed = 0;
};
DiffStats count_changes(const std::vector<DiffLine>& diff);

}  // namespace kl::gui
