#include "plot/csv_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kl::plot {

namespace {

const char* kind_name(SeriesKind kind) {
    switch (kind) {
        case SeriesKind::Line: return "line";
        case SeriesKind::Scatter: return "scatter";
        case SeriesKind::Bars: return "bars";
        case SeriesKind::HLine: return "hline";
        case SeriesKind::VLine: return "vline";
        case SeriesKind::Roofline: return "roofline";
        case SeriesKind::BarMarks: return "bar_marks";
    }
    return "line";
}

struct Row {
    std::string series, kind, category, x, y, y_low, y_high, value;
};

std::string optional_number(double v) { return std::isnan(v) ? std::string() : csv_number(v); }

std::string category_of(const Axis& axis, double x) {
    if (!axis.is_category() || !std::isfinite(x) || x != std::floor(x) || x < 0) return "";
    size_t i = static_cast<size_t>(x);
    return i < axis.categories.size() ? axis.categories[i] : "";
}

}  // namespace

bool is_plain_number(const std::string& text) {
    size_t i = 0, digits = 0;
    auto skip_digits = [&] {
        size_t start = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
        return i - start;
    };
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    digits += skip_digits();
    if (i < text.size() && text[i] == '.') ++i, digits += skip_digits();
    if (digits == 0) return false;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if (skip_digits() == 0) return false;
    }
    return i == text.size();
}

std::string csv_neutralised(const std::string& text) {
    if (text.empty() || is_plain_number(text)) return text;
    const char first = text.front();
    bool formula = first == '=' || first == '+' || first == '-' || first == '@' || first == '\t' || first == '\r';
    return formula ? "'" + text : text;
}

std::string csv_field(const std::string& raw) {
    const std::string text = csv_neutralised(raw);
    bool needs_quotes = text.find_first_of(",\"\r\n") != std::string::npos ||
                        (!text.empty() && (text.front() == ' ' || text.back() == ' '));
    if (!needs_quotes) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csv_number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buf[64];
    int precision = 1;
    for (; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, value);
        if (std::strtod(buf, nullptr) == value) break;
    }
    // %g switches to e-notation once the exponent reaches the precision (2850 -> "2.85e+03");
    // below 1e15 plain digits read better and are just as exact.
    double magnitude = std::fabs(value);
    if (std::strchr(buf, 'e') && magnitude >= 1.0 && magnitude < 1e15) {
        int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
        std::snprintf(buf, sizeof buf, "%.*f", std::max(0, precision - 1 - exponent), value);
    }
    return buf;
}

std::string csv_header() { return "figure,series,kind,category,x,x_unit,y,y_unit,y_low,y_high,value,value_unit\n"; }

std::string figure_to_csv(const Figure& figure, bool with_header) {
    std::string out = with_header ? csv_header() : "";
    const std::string fig = csv_field(figure.id());
    const std::string x_unit = csv_field(figure.x.unit), y_unit = csv_field(figure.y.unit);
    auto emit = [&](const Row& r, const std::string& value_unit) {
        out += fig + "," + csv_field(r.series) + "," + r.kind + "," + csv_field(r.category) + "," + r.x + "," + x_unit +
               "," + r.y + "," + y_unit + "," + r.y_low + "," + r.y_high + "," + r.value + "," + value_unit + "\n";
    };
    for (const Series& s : figure.series) {
        if (s.kind == SeriesKind::HLine) {
            emit({s.name, kind_name(s.kind), "", "", csv_number(s.value), "", "", ""}, "");
            continue;
        }
        if (s.kind == SeriesKind::VLine) {
            emit({s.name, kind_name(s.kind), category_of(figure.x, s.value), csv_number(s.value), "", "", "", ""}, "");
            continue;
        }
        for (const Point& p : s.points)
            emit({s.name, kind_name(s.kind), category_of(figure.x, p.x), csv_number(p.x), csv_number(p.y),
                  optional_number(p.y_low), optional_number(p.y_high), ""},
                 "");
    }
    if (figure.heatmap && figure.heatmap->rows > 0 && figure.heatmap->cols > 0) {
        const Heatmap& h = *figure.heatmap;
        Range xe = h.columns(), ye = h.rows_extent();
        double dx = xe.span() / h.cols, dy = ye.span() / h.rows;
        std::string name = h.value_label.empty() ? "heatmap" : h.value_label;
        for (int r = 0; r < h.rows; ++r)
            for (int c = 0; c < h.cols; ++c)
                emit({name, "heatmap", "", csv_number(xe.min + (c + 0.5) * dx), csv_number(ye.min + (r + 0.5) * dy), "",
                      "", csv_number(h.at(r, c))},
                     csv_field(h.value_unit));
    }
    return out;
}

WriteResult write_csv(const Figure& figure, const std::string& path) {
    return write_file_atomically(path, figure_to_csv(figure));
}

}  // namespace kl::plot
