// [SECTION] index: figures / gradebook / handout / folder
#include "report/class_handout.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

#include "base/printable.h"
#include "plot/csv_export.h"
#include "report/class_pdf.h"
#include "report/export_staging.h"
#include "report/page_writer.h"
#include "report/figure_files.h"
#include "report/handout.h"
#include "report/markdown_text.h"

namespace kl::report {

namespace {

constexpr int kSideBySide = 2;       // the best kernels shown next to each other
constexpr size_t kColumnChars = 60;  // each column of the side-by-side listing

std::string fmt(double v, int digits) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

// The devices of an exercise's ranked entries, by name: each device keeps its colour (its index
// here) in every figure of the exercise.
std::vector<std::string> devices_of(const std::vector<const ClassEntry*>& ranked) {
    std::vector<std::string> out;
    for (const ClassEntry* e : ranked)
        if (std::find(out.begin(), out.end(), e->device()) == out.end()) out.push_back(e->device());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

std::string exercise_slug(const std::string& exercise) {
    std::string s;
    for (char c : exercise) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return s.empty() ? "exercise" : s;
}

// [SECTION] Figures

plot::Figure class_times_figure(const ClassMerge& m, const std::string& exercise) {
    std::vector<const ClassEntry*> ranked = m.leaderboard(exercise);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const ClassEntry* a, const ClassEntry* b) { return a->median_us < b->median_us; });
    plot::Figure f;
    f.name = exercise_slug(exercise) + "_times";
    f.title = "Times of the class: " + exercise;
    f.caption = std::to_string(ranked.size()) + " accepted submissions, fastest first; each on its learner's GPU";
    f.x.label = "Learners, fastest first";
    // Ranks are whole: ticks at 1 and every step after it, never "2.5".
    const int n = static_cast<int>(ranked.size()), step = n <= 12 ? 1 : n <= 30 ? 5 : n <= 120 ? 10 : 50;
    for (int k = step; k <= n; k += step) f.x.ticks.push_back({double(k), std::to_string(k)});
    if (step > 1) f.x.ticks.insert(f.x.ticks.begin(), plot::Tick{1.0, "1"});
    f.x.min = 0.5;
    f.x.max = n + 0.5;
    f.y.label = "Median time";
    f.y.unit = "us";
    f.y.scale = plot::Scale::Log10;
    const std::vector<std::string> devices = devices_of(ranked);
    for (size_t d = 0; d < devices.size(); ++d) {
        const std::string& device = devices[d];
        plot::Series s;
        s.name = device;
        s.kind = plot::SeriesKind::Scatter;
        s.color = s.marker = static_cast<int>(d);
        for (size_t i = 0; i < ranked.size(); ++i)
            if (ranked[i]->device() == device) s.points.push_back({double(i + 1), ranked[i]->median_us});
        f.series.push_back(std::move(s));
    }
    return f;
}

plot::Figure class_roof_figure(const ClassMerge& m, const std::string& exercise) {
    const std::vector<const ClassEntry*> ranked = m.leaderboard(exercise);
    plot::Figure f;
    f.name = exercise_slug(exercise) + "_roof";
    f.title = "Share of each device's roof: " + exercise;
    f.caption =
        "ideal time at the device's calibrated roof / measured time; one mark per learner; the dashed line, 100%, is "
        "each device's roof";
    f.y.label = "Share of roof";
    f.y.unit = "%";
    f.y.min = 0;
    f.x.categories = devices_of(ranked);
    f.legend.placement = plot::LegendPlacement::Hidden;
    for (size_t d = 0; d < f.x.categories.size(); ++d) {
        plot::Series s;
        s.name = f.x.categories[d];
        s.kind = plot::SeriesKind::Scatter;
        s.color = s.marker = static_cast<int>(d);
        for (const ClassEntry* e : ranked)
            if (e->device() == s.name) s.points.push_back({double(d), e->pct_roof});
        f.series.push_back(std::move(s));
    }
    plot::Series roof;
    roof.name = "";  // said in the caption: a label on the line would sit on the marks near 100%
    roof.kind = plot::SeriesKind::HLine;
    roof.value = 100;
    f.series.push_back(std::move(roof));
    return f;
}

// [SECTION] Gradebook

std::string gradebook_csv(const ClassMerge& m) {
    std::ostringstream out;
    out << "learner,exercise,device,status,rank,median_us,gbps,pct_roof,checks_passed,goal_met,file,workbook\n";
    for (const std::string& ex : m.exercises()) {
        const auto ranked = m.leaderboard(ex);
        for (const ClassEntry& e : m.entries) {
            if (e.sub.exercise != ex) continue;
            const auto at = std::find(ranked.begin(), ranked.end(), &e);
            int passed = 0;
            for (const auto& c : e.sub.checks) passed += c.passed;
            out << plot::csv_field(e.sub.learner) << ',' << plot::csv_field(ex) << ',' << plot::csv_field(e.device())
                << ',' << plot::csv_field(e.status()) << ','
                << (at == ranked.end() ? "" : std::to_string(at - ranked.begin() + 1)) << ','
                << (e.median_us > 0 ? plot::csv_number(e.median_us) : "") << ','
                << (e.gbps > 0 ? plot::csv_number(e.gbps) : "") << ','
                << (e.pct_roof > 0 ? plot::csv_number(e.pct_roof) : "") << ','
                << plot::csv_field(std::to_string(passed) + " of " + std::to_string(e.sub.checks.size())) << ','
                << (e.sub.goal.empty() ? ""
                    : e.sub.goal_met   ? "yes"
                                       : "no")
                << ',' << plot::csv_field(e.file) << ',' << plot::csv_field(e.sub.workbook) << '\n';
        }
    }
    return out.str();
}

// [SECTION] Handout

namespace {

// A column `width` characters wide (code points, not bytes): cut with '>' when longer.
std::string column(const std::string& s, size_t width) {
    std::string out;
    size_t chars = 0, i = 0;
    for (; i < s.size() && chars < width; ++chars) {
        size_t len = 1;
        const auto b = static_cast<unsigned char>(s[i]);
        if (b >= 0xF0)
            len = 4;
        else if (b >= 0xE0)
            len = 3;
        else if (b >= 0xC0)
            len = 2;
        out += s.substr(i, len);
        i += len;
    }
    if (i < s.size() && !out.empty()) out.back() = '>';
    return out + std::string(width - std::min(width, chars), ' ');
}

// A fence longer than any run of backticks in `body`.
std::string fence_for(const std::string& body) {
    size_t run = 0, longest = 0;
    for (char c : body) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return std::string(std::max<size_t>(3, longest + 1), '`');
}

std::string side_by_side(const std::vector<const ClassEntry*>& best) {
    std::vector<std::vector<std::string>> cols;
    std::string head;
    for (const ClassEntry* e : best) {
        cols.push_back(page_code_lines(e->sub.source));
        head += (head.empty() ? "" : " | ") +
                column(e->sub.learner + " (" + fmt(e->pct_roof, 0) + "% of roof)", kColumnChars);
    }
    std::string body = head + "\n" + std::string(head.size(), '-') + "\n";
    size_t rows = 0;
    for (const auto& c : cols) rows = std::max(rows, c.size());
    for (size_t r = 0; r < rows; ++r) {
        std::string line;
        for (size_t k = 0; k < cols.size(); ++k)
            line += (k ? " | " : "") + column(r < cols[k].size() ? cols[k][r] : "", kColumnChars);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        body += line + "\n";
    }
    const std::string fence = fence_for(body);
    return fence + "\n" + body + fence + "\n";
}

void leaderboard_tables(std::ostringstream& md, const std::vector<const ClassEntry*>& ranked) {
    md << "| # | learner | device | median us | GB/s | % of its roof |\n|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < ranked.size(); ++i)
        md << "| " << i + 1 << " | " << markdown_text(ranked[i]->sub.learner) << " | "
           << markdown_text(ranked[i]->device()) << " | " << fmt(ranked[i]->median_us, 2) << " | "
           << fmt(ranked[i]->gbps, 0) << " | " << fmt(ranked[i]->pct_roof, 1) << " |\n";
}

void device_tables(std::ostringstream& md, const ClassMerge& m, const std::string& exercise) {
    for (const ClassMerge::DeviceBoard& board : m.device_leaderboards(exercise)) {
        md << "\n**" << markdown_text(board.device)
           << "**, by time:\n\n| # | learner | median us | GB/s |\n|---|---|---|---|\n";
        for (size_t i = 0; i < board.ranked.size(); ++i)
            md << "| " << i + 1 << " | " << markdown_text(board.ranked[i]->sub.learner) << " | "
               << fmt(board.ranked[i]->median_us, 2) << " | " << fmt(board.ranked[i]->gbps, 0) << " |\n";
    }
}

void exercise_section(std::ostringstream& md, const ClassMerge& m, const std::string& ex) {
    const auto ranked = m.leaderboard(ex);
    const std::string slug = exercise_slug(ex);
    md << "\n## Exercise " << markdown_text(ex) << "\n\n";
    if (ranked.empty()) {
        md << "No accepted submission.\n";
    } else {
        md << "Ranked by the share of each learner's own device roof (the ideal time at the calibrated roof over "
              "the measured time), so that different GPUs compare.\n\n";
        leaderboard_tables(md, ranked);
        device_tables(md, m, ex);
        md << "\n![Times](" << slug << "_times.svg)\n\n![Share of roof by device](" << slug << "_roof.svg)\n";
    }
    const auto unranked = m.not_ranked(ex);
    if (!unranked.empty()) md << "\nNot ranked:\n\n| learner | device | why |\n|---|---|---|\n";
    for (const ClassEntry* e : unranked)
        md << "| " << markdown_text(e->sub.learner) << " | " << markdown_text(e->device()) << " | "
           << markdown_text(e->status()) << " |\n";
    if (ranked.empty()) return;
    md << "\n### The best kernels side by side\n\n";
    std::vector<const ClassEntry*> best(ranked.begin(), ranked.begin() + std::min<size_t>(kSideBySide, ranked.size()));
    md << side_by_side(best);
}

}  // namespace

std::string class_markdown(const ClassMerge& m, const std::string& key_id) {
    std::ostringstream md;
    md << "# Class results\n\n"
       << m.entries.size() << " submissions verified with the class key " << markdown_text(key_id)
       << "; files not merged: " << m.problems.size() << (m.problems.empty() ? "." : " (listed at the end).")
       << " Every time was measured on the learner's own GPU "
       << "by the workbook the learner ran; the signature shows the file was made with the class key and not changed "
          "since, not that the workbook or the GPU were genuine (docs/class-mode.md).\n";
    for (const std::string& ex : m.exercises()) exercise_section(md, m, ex);
    if (!m.problems.empty()) {
        md << "\n## Files not merged\n\n";
        for (const auto& p : m.problems) md << "- " << markdown_text(p) << "\n";
    }
    return md.str();
}

// [SECTION] Folder

std::vector<std::string> write_class_folder(const ClassMerge& m, const std::string& key_id, const std::string& out_dir,
                                            const plot::ExportOptions& page) {
    // Everything is rendered before anything is written.
    std::vector<std::pair<std::string, std::string>> files;
    for (const std::string& ex : m.exercises()) {
        if (m.leaderboard(ex).empty()) continue;
        for (const plot::Figure& f : {class_times_figure(m, ex), class_roof_figure(m, ex)})
            for (plot::ExportFormat format :
                 {plot::ExportFormat::Svg, plot::ExportFormat::Pdf, plot::ExportFormat::Png})
                files.emplace_back(f.name + "." + plot::format_name(format), render_or_throw(f, format, page, f.name));
    }
    const std::string md = class_markdown(m, key_id);
    files.emplace_back("class.md", md);
    files.emplace_back("class.html", markdown_to_html(md, "Class results"));
    files.emplace_back("class.pdf", class_handout_pdf(m, key_id));
    files.emplace_back("gradebook.csv", gradebook_csv(m));
    std::string problems;
    for (const auto& p : m.problems) problems += printable(p) + "\n";
    files.emplace_back("problems.txt", problems);
    Staging staging(out_dir);
    for (const auto& [name, bytes] : files) staging.write(name, bytes);
    staging.commit();
    return staging.names();
}

}  // namespace kl::report
