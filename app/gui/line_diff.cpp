#include "gui/line_diff.h"

#include <algorithm>
#include <cstdint>

namespace kl::gui {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string::npos) nl = text.size();
        std::string line = text.substr(start, nl - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(std::move(line));
        start = nl + 1;
    }
    return lines;
}

std::vector<DiffLine> diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                 size_t max_cells) {
    std::vector<DiffLine> out;
    size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
    size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    for (size_t i = 0; i < prefix; ++i) out.push_back({DiffLine::Op::Same, a[i], int(i + 1), int(i + 1)});

    const size_t n = a.size() - prefix - suffix, m = b.size() - prefix - suffix;
    auto A = [&](size_t i) -> const std::string& { return a[prefix + i]; };
    auto B = [&](size_t j) -> const std::string& { return b[prefix + j]; };
    if (n > 0 || m > 0) {
        if ((n + 1) * (m + 1) > max_cells) {
            for (size_t i = 0; i < n; ++i) out.push_back({DiffLine::Op::Removed, A(i), int(prefix + i + 1), 0});
            for (size_t j = 0; j < m; ++j) out.push_back({DiffLine::Op::Added, B(j), 0, int(prefix + j + 1)});
        } else {
            // lcs[i][j]: length of the LCS of A[i..] and B[j..].
            std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
            auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
            for (size_t i = n; i-- > 0;)
                for (size_t j = m; j-- > 0;)
                    at(i, j) = A(i) == B(j) ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
            size_t i = 0, j = 0;
            while (i < n || j < m) {
                if (i < n && j < m && A(i) == B(j)) {
                    out.push_back({DiffLine::Op::Same, A(i), int(prefix + i + 1), int(prefix + j + 1)});
                    ++i, ++j;
                } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
                    // Removals first, as in a unified diff.
                    out.push_back({DiffLine::Op::Removed, A(i), int(prefix + i + 1), 0});
                    ++i;
                } else {
                    out.push_back({DiffLine::Op::Added, B(j), 0, int(prefix + j + 1)});
                    ++j;
                }
            }
        }
    }
    for (size_t k = 0; k < suffix; ++k) {
        size_t ia = a.size() - suffix + k, ib = b.size() - suffix + k;
        out.push_back({DiffLine::Op::Same, a[ia], int(ia + 1), int(ib + 1)});
    }
    return out;
}

DiffStats count_changes(const std::vector<DiffLine>& diff) {
    DiffStats s;
    for (const auto& d : diff) {
        if (d.op == DiffLine::Op::Added) ++s.added;
        if (d.op == DiffLine::Op::Removed) ++s.removed;
    }
    return s;
}

}  // namespace kl::gui
