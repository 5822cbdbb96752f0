// Print pages with cairo: text, tables, figures and code going down US Letter pages (one-inch
// margins, the 6.5-inch column every exported figure is drawn for), a new page when the next
// block does not fit, a footer on every page. The class handout (class_pdf.h) and the lesson
// handout (handout_pdf.h) are written with it.
#pragma once
#include <cairo.h>

#include <string>
#include <vector>

#include "plot/layout.h"
#include "plot/plot_model.h"

namespace kl::report {

// A piece of a paragraph in one face: paragraphs mix plain, bold and code.
struct TextRun {
    std::string text;
    bool bold = false;
    bool mono = false;
};

class PageWriter {
  public:
    static constexpr double kPageW = 612, kPageH = 792, kMargin = 72, kTextW = kPageW - 2 * kMargin;
    static constexpr double kBody = 9.5, kSmall = 8, kCode = 6.2, kGap = 8;

    // `file_name` names the file in an error; `footer` opens every page's footer ("... · page 3").
    // `date` ("2026-11-24"), when given, is the file's creation date instead of now: the same
    // content, the same bytes.
    PageWriter(std::string file_name, const std::string& title, std::string footer, const std::string& date = "");
    ~PageWriter();
    PageWriter(const PageWriter&) = delete;
    PageWriter& operator=(const PageWriter&) = delete;

    // A heading kept on one page with the next `keep_with` points of what follows (default: three
    // lines of text).
    void heading(const std::string& text, double size, double keep_with = 3 * kBody * 1.35);
    // How tall figure() draws `f` asked for `height` points.
    double figure_height(const plot::Figure& f, double height) const;
    void paragraph(const std::string& text, double size = kBody, bool bold = false, plot::Color color = {});
    // Runs wrapped as one paragraph, `indent` points in from the margin; `lead` (a list's bullet
    // or number) hangs in the indent of the first line.
    void rich(const std::vector<TextRun>& runs, double size, double indent, plot::Color color = {},
              const std::string& lead = "");
    void space(double h) { y_ += h; }
    void page_break();
    // Columns as shares of the text width; cells wrap; the header repeats on a new page.
    void table(const std::vector<std::string>& header, const std::vector<double>& shares,
               const std::vector<std::vector<std::string>>& rows, double size = kSmall);
    // A figure drawn for the column (the print theme), `height` points tall or taller where it needs.
    void figure(const plot::Figure& f, double height = 205);
    // Columns of code side by side in the monospace face, each line cut to its column.
    void code_columns(const std::vector<std::string>& heads, const std::vector<std::vector<std::string>>& cols);
    void code_block(const std::vector<std::string>& lines, double indent);

    // The PDF's bytes; throws InputError when cairo fails.
    std::string finish();
    // Every line of text drawn, in order, pages separated by "\f" (what the pages say, for tests).
    const std::string& transcript() const { return transcript_; }
    int pages() const { return page_; }

  private:
    void ensure(double h);
    void new_page();
    void draw_footer();
    void rule(double width);
    void text_at(const std::string& text, double x, double baseline, double size, bool bold, bool mono,
                 plot::Color color);
    // `shares` widened where a column's widest word would not fit, taken from the columns with room.
    std::vector<double> fit_shares(const std::vector<std::string>& header, std::vector<double> shares,
                                   const std::vector<std::vector<std::string>>& rows, double size) const;
    bool draw_table_row(const std::vector<std::string>& cells, const std::vector<double>& shares, double size,
                        bool bold);

    std::string file_name_, footer_, bytes_, transcript_;
    plot::MeasureText sans_, mono_;
    cairo_surface_t* surface_ = nullptr;
    cairo_t* cr_ = nullptr;
    double y_ = kMargin;
    int page_ = 1;
};

// Text split into lines, tabs as four spaces, each line printable.
std::vector<std::string> page_code_lines(const std::string& text);

}  // namespace kl::report
