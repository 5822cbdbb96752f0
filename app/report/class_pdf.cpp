// [SECTION] index: class pages (the page writer: page_writer.h)
#include "report/class_pdf.h"

#include <algorithm>
#include <cstdio>

#include "base/printable.h"
#include "report/class_handout.h"
#include "report/page_writer.h"

namespace kl::report {

namespace {

std::string fixed_digits(double v, int digits) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

// [SECTION] Class pages

void exercise_pages(PageWriter& w, const ClassMerge& m, const std::string& ex, bool first) {
    if (!first) w.page_break();  // each exercise from the top of a page
    w.heading("Exercise " + ex, 14);
    const auto ranked = m.leaderboard(ex);
    if (ranked.empty()) {
        w.paragraph("No accepted submission.");
    } else {
        w.paragraph(
            "Ranked by the share of each learner's own device roof (the ideal time at the calibrated roof over the "
            "measured time), so that different GPUs compare.");
        w.space(4);
        std::vector<std::vector<std::string>> rows;
        for (size_t i = 0; i < ranked.size(); ++i)
            rows.push_back({std::to_string(i + 1), ranked[i]->sub.learner, ranked[i]->device(),
                            fixed_digits(ranked[i]->median_us, 2), fixed_digits(ranked[i]->gbps, 0),
                            fixed_digits(ranked[i]->pct_roof, 1)});
        w.table({"#", "learner", "device", "median us", "GB/s", "% of its roof"}, {0.06, 0.28, 0.3, 0.13, 0.1, 0.13},
                rows);
        w.figure(class_roof_figure(m, ex));
        w.figure(class_times_figure(m, ex));
        for (const auto& board : m.device_leaderboards(ex)) {
            w.heading(board.device + ", by time", 10.5);
            rows.clear();
            for (size_t i = 0; i < board.ranked.size(); ++i)
                rows.push_back({std::to_string(i + 1), board.ranked[i]->sub.learner,
                                fixed_digits(board.ranked[i]->median_us, 2), fixed_digits(board.ranked[i]->gbps, 0)});
            w.table({"#", "learner", "median us", "GB/s"}, {0.06, 0.5, 0.22, 0.22}, rows);
        }
    }
    const auto unranked = m.not_ranked(ex);
    if (!unranked.empty()) {
        w.heading("Not ranked", 10.5);
        std::vector<std::vector<std::string>> rows;
        for (const ClassEntry* e : unranked) rows.push_back({e->sub.learner, e->device(), e->status()});
        w.table({"learner", "device", "why"}, {0.18, 0.22, 0.6}, rows);
    }
    if (ranked.empty()) return;
    w.heading("The best kernels side by side", 10.5);
    std::vector<std::string> heads;
    std::vector<std::vector<std::string>> cols;
    for (size_t i = 0; i < std::min<size_t>(2, ranked.size()); ++i) {
        heads.push_back(printable(ranked[i]->sub.learner) + " (" + fixed_digits(ranked[i]->pct_roof, 0) +
                        "% of roof, " + printable(ranked[i]->device()) + ")");
        cols.push_back(page_code_lines(ranked[i]->sub.source));
    }
    w.code_columns(heads, cols);
}

}  // namespace

std::string class_handout_pdf(const ClassMerge& m, const std::string& key_id) {
    PageWriter w("class.pdf", "Class results", "Class results, class key " + key_id);
    w.heading("Class results", 18);
    w.paragraph(std::to_string(m.entries.size()) + " submissions verified with the class key " + key_id +
                "; files not merged: " + std::to_string(m.problems.size()) +
                (m.problems.empty() ? "." : " (listed at the end).") +
                " Every time was measured on the learner's own GPU by the workbook the learner ran; the signature "
                "shows the file was made with the class key and not changed since, not that the workbook or the GPU "
                "were genuine (docs/class-mode.md).");
    const std::vector<std::string> exercises = m.exercises();
    for (size_t i = 0; i < exercises.size(); ++i) exercise_pages(w, m, exercises[i], i == 0);
    if (!m.problems.empty()) {
        w.heading("Files not merged", 14);
        for (const auto& p : m.problems) w.paragraph("\xE2\x80\xA2 " + p, PageWriter::kSmall);
    }
    return w.finish();
}

}  // namespace kl::report
