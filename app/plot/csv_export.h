// The data of a Figure as tidy CSV: one row per point, so a spreadsheet or pandas can re-plot it.
//
// Columns: figure, series, kind, category, x, x_unit, y, y_unit, y_low, y_high, value, value_unit
// - points of line/scatter/bars/roofline series: x, y (and the spread when given);
//   category holds the category name on category axes;
// - reference lines: HLine rows leave x empty, VLine rows leave y empty;
// - heatmap cells: x and y are the cell centre, value the cell value.
// Numbers are written with the fewest digits that read back to the same double; NaN as "NaN",
// infinities as "inf"/"-inf"; absent values as empty fields. Fields are quoted per RFC 4180, and
// text fields that a spreadsheet would run as formulas are neutralised (csv_neutralised).
#pragma once

#include <string>
#include <vector>

#include "plot/file_write.h"
#include "plot/plot_model.h"

namespace kl::plot {

std::string csv_header();
std::string figure_to_csv(const Figure& figure, bool with_header = true);
WriteResult write_csv(const Figure& figure, const std::string& path);

// One text field: neutralised (csv_neutralised), then quoted when it holds a comma, quote, CR/LF
// or leading/trailing space.
std::string csv_field(const std::string& text);
// A text cell a spreadsheet would evaluate as a formula (it begins with =, +, -, @, a tab or a
// CR; a label from a results file can say "=HYPERLINK(...)") gets a leading ' so that it stays
// text, as OWASP's "CSV Injection" advises. A plain decimal number ("-3", "+1.5e3") is a number,
// not a formula, and stays as it is.
std::string csv_neutralised(const std::string& text);
bool is_plain_number(const std::string& text);
// Shortest decimal that round-trips; "NaN", "inf", "-inf" for the non-finite.
std::string csv_number(double value);

}  // namespace kl::plot
