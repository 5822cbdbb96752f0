// [SECTION] index: page writer / rich text
#include "report/page_writer.h"

#include <cairo-pdf.h>

#include <algorithm>
#include <sstream>

#include "base/errors.h"
#include "base/printable.h"
#include "plot/cairo_render.h"
#include "plot/figure_scene.h"
#include "plot/theme.h"

namespace kl::report {

namespace {

const char* const kPageSans = "DejaVu Sans";
const char* const kPageMono = "DejaVu Sans Mono";

cairo_status_t append_page_pdf_bytes(void* closure, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

}  // namespace

std::vector<std::string> page_code_lines(const std::string& text) {
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

PageWriter::PageWriter(std::string file_name, const std::string& title, std::string footer, const std::string& date)
    : file_name_(std::move(file_name)),
      footer_(std::move(footer)),
      sans_(plot::cairo_measure(kPageSans)),
      mono_(plot::cairo_measure(kPageMono)) {
    surface_ = cairo_pdf_surface_create_for_stream(append_page_pdf_bytes, &bytes_, kPageW, kPageH);
    cairo_pdf_surface_set_metadata(surface_, CAIRO_PDF_METADATA_CREATOR, "Kernel Ladder");
    cairo_pdf_surface_set_metadata(surface_, CAIRO_PDF_METADATA_TITLE, printable(title).c_str());
    if (date.size() == 10 && date[4] == '-' && date[7] == '-')
        cairo_pdf_surface_set_metadata(surface_, CAIRO_PDF_METADATA_CREATE_DATE, (date + "T00:00:00Z").c_str());
    cr_ = cairo_create(surface_);
}

PageWriter::~PageWriter() {
    if (cr_) cairo_destroy(cr_);
    if (surface_) cairo_surface_destroy(surface_);
}

void PageWriter::heading(const std::string& text, double size, double keep_with) {
    // A heading never ends a page: it takes 2.2 times its size (the space above, its line, the space below).
    ensure(size * 2.2 + std::min(keep_with, kPageH - 2 * kMargin - size * 2.2));
    y_ += size * 0.6;
    paragraph(text, size, true);
    y_ += size * 0.25;
}

void PageWriter::paragraph(const std::string& text, double size, bool bold, plot::Color color) {
    for (const std::string& line : plot::wrap_text(printable(text), kTextW, size, bold, sans_)) {
        ensure(size * 1.35);
        text_at(line, kMargin, y_ + size, size, bold, false, color);
        transcript_ += line + "\n";
        y_ += size * 1.35;
    }
}

void PageWriter::page_break() {
    if (y_ > kMargin) new_page();
}

bool PageWriter::draw_table_row(const std::vector<std::string>& cells, const std::vector<double>& shares, double size,
                                bool bold) {
    const double line_h = size * 1.3;
    std::vector<std::vector<std::string>> lines;
    size_t n = 1;
    for (size_t c = 0; c < cells.size() && c < shares.size(); ++c) {
        lines.push_back(plot::wrap_text(printable(cells[c]), shares[c] * kTextW - 6, size, bold, sans_));
        n = std::max(n, lines.back().size());
    }
    const double h = n * line_h + 3;
    if (y_ + h > kPageH - kMargin) return false;
    double x = kMargin;
    std::string row;
    for (size_t c = 0; c < lines.size(); ++c) {
        for (size_t k = 0; k < lines[c].size(); ++k) {
            text_at(lines[c][k], x, y_ + size + k * line_h, size, bold, false, {});
            row += (k ? " " : (c ? " | " : "")) + lines[c][k];
        }
        x += shares[c] * kTextW;
    }
    transcript_ += row + "\n";
    y_ += h;
    rule(bold ? 0.8 : 0.3);
    return true;
}

std::vector<double> PageWriter::fit_shares(const std::vector<std::string>& header, std::vector<double> shares,
                                           const std::vector<std::vector<std::string>>& rows, double size) const {
    // Each column at least as wide as its widest word (a header's in bold): cells wrap at blanks,
    // and a word cut with an ellipsis ("TFLO…") loses what the column holds.
    std::vector<double> least(shares.size(), 0);
    auto widen = [&](const std::vector<std::string>& cells, bool bold) {
        for (size_t c = 0; c < cells.size() && c < least.size(); ++c) {
            std::istringstream words(printable(cells[c]));
            for (std::string word; words >> word;)
                least[c] = std::max(least[c], (sans_(word, size, bold).width + 7) / kTextW);
        }
    };
    widen(header, true);
    for (const auto& r : rows) widen(r, false);
    double least_sum = 0, slack = 0;
    for (size_t c = 0; c < shares.size(); ++c) least_sum += least[c], slack += std::max(0.0, shares[c] - least[c]);
    if (least_sum >= 1) {  // no room for every word: each column its words' share of the line
        for (size_t c = 0; c < shares.size(); ++c) shares[c] = least[c] / least_sum;
        return shares;
    }
    // Columns short of their widest word take it from the others' room above theirs.
    double need = 0;
    for (size_t c = 0; c < shares.size(); ++c) need += std::max(0.0, least[c] - shares[c]);
    if (need <= 0 || slack <= 0) return shares;
    for (size_t c = 0; c < shares.size(); ++c)
        shares[c] = shares[c] < least[c] ? least[c] : shares[c] - (shares[c] - least[c]) * need / slack;
    return shares;
}

void PageWriter::table(const std::vector<std::string>& header, const std::vector<double>& asked_shares,
                       const std::vector<std::vector<std::string>>& rows, double size) {
    const std::vector<double> shares = fit_shares(header, asked_shares, rows, size);
    ensure(3 * size * 1.3 + 6);
    // A header of empty cells (a Markdown table of name and value) is not drawn.
    const bool headed = std::any_of(header.begin(), header.end(), [](const std::string& c) { return !c.empty(); });
    if (headed) draw_table_row(header, shares, size, true);
    for (const auto& r : rows) {
        if (draw_table_row(r, shares, size, false)) continue;
        new_page();
        if (headed) draw_table_row(header, shares, size, true);
        draw_table_row(r, shares, size, false);
    }
    y_ += kGap;
}

double PageWriter::figure_height(const plot::Figure& f, double height) const {
    return plot::export_height(f, kTextW, height, sans_, plot::print_theme());
}

void PageWriter::figure(const plot::Figure& f, double height) {
    const plot::Theme theme = plot::print_theme();
    const double h = figure_height(f, height);
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
    transcript_ += "[figure: " + f.title + "]\n";
    y_ += h + kGap;
}

void PageWriter::code_columns(const std::vector<std::string>& heads,
                              const std::vector<std::vector<std::string>>& cols) {
    const double col_w = (kTextW - 10 * (cols.size() - 1)) / cols.size(), line_h = kCode * 1.25;
    size_t rows = 0;
    for (const auto& c : cols) rows = std::max(rows, c.size());
    ensure(6 * line_h);
    for (size_t c = 0; c < heads.size(); ++c)
        text_at(plot::fit_text(heads[c], col_w, kSmall, true, sans_), kMargin + c * (col_w + 10), y_ + kSmall, kSmall,
                true, false, {});
    y_ += kSmall * 1.5;
    rule(0.5);
    for (size_t r = 0; r < rows; ++r) {
        if (y_ + line_h > kPageH - kMargin) new_page();
        for (size_t c = 0; c < cols.size(); ++c)
            if (r < cols[c].size())
                text_at(plot::fit_text(cols[c][r], col_w, kCode, false, mono_), kMargin + c * (col_w + 10), y_ + kCode,
                        kCode, false, true, {});
        y_ += line_h;
    }
    y_ += kGap;
}

void PageWriter::code_block(const std::vector<std::string>& lines, double indent) {
    const double size = kBody * 0.85, line_h = size * 1.3, w = kTextW - indent - 8;
    ensure(std::min<double>(lines.size(), 4) * line_h);
    for (const std::string& line : lines) {
        ensure(line_h);
        cairo_set_source_rgb(cr_, 0.95, 0.95, 0.95);
        cairo_rectangle(cr_, kMargin + indent, y_, kTextW - indent, line_h);
        cairo_fill(cr_);
        const std::string shown = plot::fit_text(line, w, size, false, mono_);
        text_at(shown, kMargin + indent + 4, y_ + size, size, false, true, {});
        transcript_ += shown + "\n";
        y_ += line_h;
    }
    y_ += kGap * 0.6;
}

std::string PageWriter::finish() {
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
        throw InputError(file_name_ + ": PDF rendering failed: " + cairo_status_to_string(status));
    return std::move(bytes_);
}

void PageWriter::ensure(double h) {
    if (y_ + h > kPageH - kMargin && y_ > kMargin) new_page();
}

void PageWriter::new_page() {
    draw_footer();
    cairo_show_page(cr_);
    transcript_ += "\f";
    ++page_;
    y_ = kMargin;
}

void PageWriter::draw_footer() {
    const std::string line = footer_ + " \xC2\xB7 page " + std::to_string(page_);
    text_at(line, kMargin, kPageH - kMargin / 2, kSmall - 1, false, false, {0.4f, 0.4f, 0.4f, 1});
    transcript_ += line + "\n";
}

void PageWriter::rule(double width) {
    cairo_set_source_rgb(cr_, 0.55, 0.55, 0.55);
    cairo_set_line_width(cr_, width);
    cairo_move_to(cr_, kMargin, y_ - 1);
    cairo_line_to(cr_, kMargin + kTextW, y_ - 1);
    cairo_stroke(cr_);
}

// One line of text with its baseline at (x, baseline), drawn as the plot renderer draws text.
void PageWriter::text_at(const std::string& text, double x, double baseline, double size, bool bold, bool mono,
                         plot::Color color) {
    plot::Scene s;
    s.width = kPageW;
    s.height = kPageH;
    s.background = {1, 1, 1, 0};
    s.font_family = mono ? kPageMono : kPageSans;
    plot::TextCmd t;
    t.text = text;
    t.origin = {x, baseline};
    t.size = size;
    t.bold = bold;
    t.color = color;
    s.commands.push_back(t);
    plot::draw_scene(cr_, s);
}

// [SECTION] Rich text: words of several faces wrapped greedily; a word wider than the line is cut.

namespace {

struct PageWord {
    std::string text;
    bool bold = false, mono = false, space_before = false;
};

std::vector<PageWord> page_words(const std::vector<TextRun>& runs) {
    std::vector<PageWord> words;
    bool space = false, open = false;
    for (const TextRun& r : runs) {
        open = false;  // a new face starts a new word (glued to the last one unless a space came between)
        for (char c : printable(r.text)) {
            if (c == ' ') {
                space = true;
                open = false;
                continue;
            }
            if (!open) {
                words.push_back({"", r.bold, r.mono, space && !words.empty()});
                space = false;
                open = true;
            }
            words.back().text += c;
        }
    }
    return words;
}

}  // namespace

void PageWriter::rich(const std::vector<TextRun>& runs, double size, double indent, plot::Color color,
                      const std::string& lead) {
    const std::vector<PageWord> words = page_words(runs);
    if (words.empty()) return;
    const double left = kMargin + indent, width = kTextW - indent, line_h = size * 1.35;
    auto measure = [&](const PageWord& w) { return (w.mono ? mono_ : sans_)(w.text, size, w.bold).width; };
    const double space_w = sans_(" ", size, false).width;
    size_t i = 0;
    bool first = true;
    while (i < words.size()) {
        // the words of this line
        size_t end = i;
        double x = 0;
        while (end < words.size()) {
            double w = measure(words[end]) + (end > i && words[end].space_before ? space_w : 0);
            if (end > i && x + w > width) break;
            x += w;
            ++end;
        }
        ensure(line_h);
        if (first && !lead.empty()) {
            const double lw = sans_(lead, size, false).width;
            text_at(lead, left - lw - 3, y_ + size, size, false, false, color);
        }
        std::string line = first ? lead + (lead.empty() ? "" : " ") : "";
        x = left;
        for (size_t k = i; k < end; ++k) {
            const PageWord& w = words[k];
            if (k > i && w.space_before) x += space_w, line += " ";
            std::string shown = k == i ? plot::fit_text(w.text, width, size, w.bold, w.mono ? mono_ : sans_) : w.text;
            text_at(shown, x, y_ + size, size, w.bold, w.mono, color);
            x += measure({shown, w.bold, w.mono, false});
            line += shown;
        }
        transcript_ += line + "\n";
        y_ += line_h;
        i = end;
        first = false;
    }
}

}  // namespace kl::report
