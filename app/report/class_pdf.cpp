// [SECTION] index: page writer / class pages
#include "report/class_pdf.h"

#include <cairo-pdf.h>
#include <cairo.h>

#include <algorithm>
#include <cstdio>

#include "base/errors.h"
#include "base/printable.h"
#include "plot/cairo_render.h"
#include "plot/figure_scene.h"
#include "plot/layout.h"
#include "plot/theme.h"
#include "report/class_handout.h"

namespace kl::report {

namespace {

// US Letter with one-inch margins: the 6.5-inch column every exported figure is drawn for.
constexpr double kPageW = 612, kPageH = 792, kMargin = 72, kTextW = kPageW - 2 * kMargin;
constexpr double kBody = 9.5, kSmall = 8, kCode = 6.2, kGap = 8;
const char* const kSans = "DejaVu Sans";
const char* const kMono = "DejaVu Sans Mono";

std::string fixed_digits(double v, int digits) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

cairo_status_t append_pdf_bytes(void* closure, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

// [SECTION] Page writer: text, tables, figures and code going down the page, a new page when
// the next block does not fit.
class PageWriter {
  public:
    explicit PageWriter(std::string footer)
        : footer_(std::move(footer)), sans_(plot::cairo_measure(kSans)), mono_(plot::cairo_measure(kMono)) {
        surface_ = cairo_pdf_surface_create_for_stream(append_pdf_bytes, &bytes_, kPageW, kPageH);
        cairo_pdf_surface_set_metadata(surface_, CAIRO_PDF_METADATA_CREATOR, "Kernel Ladder");
        cairo_pdf_surface_set_metadata(surface_, CAIRO_PDF_METADATA_TITLE, "Class results");
        cr_ = cairo_create(surface_);
    }
    ~PageWriter() {
        if (cr_) cairo_destroy(cr_);
        if (surface_) cairo_surface_destroy(surface_);
    }
    PageWriter(const PageWriter&) = delete;
    PageWriter& operator=(const PageWriter&) = delete;

    void heading(const std::string& text, double size) {
        ensure(size * 1.6 + 3 * kBody * 1.35);  // a heading never ends a page
        y_ += size * 0.6;
        paragraph(text, size, true);
        y_ += size * 0.25;
    }

    void paragraph(const std::string& text, double size = kBody, bool bold = false, plot::Color color = {}) {
        for (const std::string& line : plot::wrap_text(printable(text), kTextW, size, bold, sans_)) {
            ensure(size * 1.35);
            text_at(line, kMargin, y_ + size, size, bold, false, color);
            y_ += size * 1.35;
        }
    }

    void space(double h) { y_ += h; }
    void page_break() {
        if (y_ > kMargin) new_page();
    }

    // Columns as shares of the text width; cells wrap; the header repeats on a new page.
    void table(const std::vector<std::string>& header, const std::vector<double>& shares,
               const std::vector<std::vector<std::string>>& rows, double size = kSmall) {
        const double line_h = size * 1.3;
        auto row_lines = [&](const std::vector<std::string>& cells, bool bold) {
            std::vector<std::vector<std::string>> out;
            for (size_t c = 0; c < cells.size(); ++c)
                out.push_back(plot::wrap_text(printable(cells[c]), shares[c] * kTextW - 6, size, bold, sans_));
            return out;
        };
        auto draw_row = [&](const std::vector<std::string>& cells, bool bold) {
            const auto lines = row_lines(cells, bold);
            size_t n = 1;
            for (const auto& l : lines) n = std::max(n, l.size());
            const double h = n * line_h + 3;
            if (y_ + h > kPageH - kMargin) return false;
            double x = kMargin;
            for (size_t c = 0; c < lines.size(); ++c) {
                for (size_t k = 0; k < lines[c].size(); ++k)
                    text_at(lines[c][k], x, y_ + size + k * line_h, size, bold, false, {});
                x += shares[c] * kTextW;
            }
            y_ += h;
            rule(bold ? 0.8 : 0.3);
            return true;
        };
        ensure(3 * line_h + 6);
        draw_row(header, true);
        for (const auto& r : rows) {
            if (draw_row(r, false)) continue;
            new_page();
            draw_row(header, true);
            draw_row(r, false);
        }
        y_ += kGap;
    }

    void figure(const plot::Figure& f) {
        const plot::Theme theme = plot::print_theme();
        const double h = plot::export_height(f, kTextW, 205, sans_, theme);
        ensure(h + kGap);
        const plot::Scene scene = plot::render_figure(f, kTextW, h, sans_, theme);
        cairo_save(cr_);
        cairo_translate(cr_, kMargin, y_);
        // draw_scene paints its background over the whole clip: clip it to the figure's box, or a
        // figure would paint over what the page already holds.
        cairo_rectangle(cr_, 0, 0, kTextW, h);
        cairo_clip(cr_);
        plot::draw_scene(cr_, scene);
        cairo_restore(cr_);
        y_ += h + kGap;
    }

    // Columns of code side by side in the monospace face, each line cut to its column.
    void code_columns(const std::vector<std::string>& heads, const std::vector<std::vector<std::string>>& cols) {
        const double col_w = (kTextW - 10 * (cols.size() - 1)) / cols.size(), line_h = kCode * 1.25;
        size_t rows = 0;
        for (const auto& c : cols) rows = std::max(rows, c.size());
        ensure(6 * line_h);
        for (size_t c = 0; c < heads.size(); ++c)
            text_at(plot::fit_text(heads[c], col_w, kSmall, true, sans_), kMargin + c * (col_w + 10), y_ + kSmall,
                    kSmall, true, false, {});
        y_ += kSmall * 1.5;
        rule(0.5);
        for (size_t r = 0; r < rows; ++r) {
            if (y_ + line_h > kPageH - kMargin) new_page();
            for (size_t c = 0; c < cols.size(); ++c)
                if (r < cols[c].size())
                    text_at(plot::fit_text(cols[c][r], col_w, kCode, false, mono_), kMargin + c * (col_w + 10),
                            y_ + kCode, kCode, false, true, {});
            y_ += line_h;
        }
        y_ += kGap;
    }

    std::string finish() {
        draw_footer();
        cairo_show_page(cr_);
        cairo_status_t status = cairo_status(cr_);
        cairo_destroy(cr_);
        cr_ = nullptr;
        cairo_surface_finish(surface_);
        if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface_);
        cairo_surface_destroy(surface_);
        surface_ = nullptr;
        if (status != CAIRO_STATUS_SUCCESS)
            throw InputError(std::string("class.pdf: PDF rendering failed: ") + cairo_status_to_string(status));
        return std::move(bytes_);
    }

  private:
    void ensure(double h) {
        if (y_ + h > kPageH - kMargin && y_ > kMargin) new_page();
    }
    void new_page() {
        draw_footer();
        cairo_show_page(cr_);
        ++page_;
        y_ = kMargin;
    }
    void draw_footer() {
        text_at(footer_ + " \xC2\xB7 page " + std::to_string(page_), kMargin, kPageH - kMargin / 2, kSmall - 1, false,
                false, {0.4f, 0.4f, 0.4f, 1});
    }
    void rule(double width) {
        cairo_set_source_rgb(cr_, 0.55, 0.55, 0.55);
        cairo_set_line_width(cr_, width);
        cairo_move_to(cr_, kMargin, y_ - 1);
        cairo_line_to(cr_, kMargin + kTextW, y_ - 1);
        cairo_stroke(cr_);
    }
    // One line of text with its baseline at (x, baseline), drawn as the plot renderer draws text.
    void text_at(const std::string& text, double x, double baseline, double size, bool bold, bool mono,
                 plot::Color color) {
        plot::Scene s;
        s.width = kPageW;
        s.height = kPageH;
        s.background = {1, 1, 1, 0};
        s.font_family = mono ? kMono : kSans;
        plot::TextCmd t;
        t.text = text;
        t.origin = {x, baseline};
        t.size = size;
        t.bold = bold;
        t.color = color;
        s.commands.push_back(t);
        plot::draw_scene(cr_, s);
    }

    std::string footer_, bytes_;
    plot::MeasureText sans_, mono_;
    cairo_surface_t* surface_ = nullptr;
    cairo_t* cr_ = nullptr;
    double y_ = kMargin;
    int page_ = 1;
};

std::vector<std::string> code_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    for (char c : text) {
        if (c == '\n') {
            lines.push_back(printable(line));
            line.clear();
        } else {
            line += c == '\t' ? std::string(4, ' ') : std::string(1, c);
        }
    }
    if (!line.empty()) lines.push_back(printable(line));
    return lines;
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
        cols.push_back(code_lines(ranked[i]->sub.source));
    }
    w.code_columns(heads, cols);
}

}  // namespace

std::string class_handout_pdf(const ClassMerge& m, const std::string& key_id) {
    PageWriter w("Class results, class key " + key_id);
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
        for (const auto& p : m.problems) w.paragraph("\xE2\x80\xA2 " + p, kSmall);
    }
    return w.finish();
}

}  // namespace kl::report
