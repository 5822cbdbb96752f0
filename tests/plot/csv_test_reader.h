// A strict RFC 4180 reader shared by the plot and report tests, so that they check the CSV
// rather than trusting the writer (csv_export.h) to read back what it wrote.
#pragma once

#include <string>
#include <vector>

namespace kl::plot::testing {

// Rows of fields; quoted fields may hold commas, doubled quotes and newlines. A last line without
// its newline is not a row (the writer ends every row with one).
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(field), field.clear();
        } else if (c == '\n') {
            row.push_back(field), field.clear();
            rows.push_back(row), row.clear();
        } else {
            field += c;
        }
    }
    return rows;
}

}  // namespace kl::plot::testing
