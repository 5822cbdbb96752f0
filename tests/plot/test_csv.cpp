#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "plot/csv_export.h"
#include "plot/sample_figures.h"
#include "csv_test_reader.h"
#include "plot_test_util.h"

namespace kl::plot {
namespace {

using testing::parse_csv;

double number(const std::string& s) {
    if (s == "NaN") return NAN;
    return std::strtod(s.c_str(), nullptr);
}

TEST(CsvField, QuotesOnlyWhenNeeded) {
    EXPECT_EQ(csv_field("naive"), "naive");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_field(" padded"), "\" padded\"");
    EXPECT_EQ(csv_field(""), "");
}

TEST(CsvNumber, ShortestRoundTrip) {
    EXPECT_EQ(csv_number(0.1), "0.1");
    EXPECT_EQ(csv_number(2850), "2850");
    EXPECT_EQ(csv_number(NAN), "NaN");
    EXPECT_EQ(csv_number(-INFINITY), "-inf");
    for (double v : {1.0 / 3.0, 2.0 / 3.0 * 1e-7, 3007.123456789, 1e300, 5e-324})
        EXPECT_EQ(std::strtod(csv_number(v).c_str(), nullptr), v);
}

TEST(FigureCsv, RowsEqualTheData) {
    Figure f = sample_size_sweep();
    f.series[1].name = "tiles, \"shared\"";  // must survive quoting
    auto rows = parse_csv(figure_to_csv(f));
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows[0], (std::vector<std::string>{"figure", "series", "kind", "category", "x", "x_unit", "y", "y_unit",
                                                 "y_low", "y_high", "value", "value_unit"}));
    size_t r = 1;
    for (const Series& s : f.series) {
        for (const Point& p : s.points) {
            ASSERT_LT(r, rows.size());
            const auto& row = rows[r++];
            ASSERT_EQ(row.size(), 12u);
            EXPECT_EQ(row[0], "sgemm_sweep");
            EXPECT_EQ(row[1], s.name);
            EXPECT_EQ(row[2], "line");
            EXPECT_EQ(number(row[4]), p.x);
            if (std::isnan(p.y))
                EXPECT_EQ(row[6], "NaN");
            else
                EXPECT_EQ(number(row[6]), p.y);
            EXPECT_EQ(row[7], "TFLOP/s");
            EXPECT_EQ(row[8], "");  // no spread given
        }
    }
    EXPECT_EQ(r, rows.size());
}

TEST(FigureCsv, CategoriesReferencesAndSpread) {
    Figure f = sample_rung_bars();
    auto rows = parse_csv(figure_to_csv(f));
    ASSERT_EQ(rows.size(), 1u + 4u + 1u);
    EXPECT_EQ(rows[1][3], "01 unfused chain");
    EXPECT_EQ(rows[1][2], "bars");
    EXPECT_EQ(number(rows[1][6]), 274);
    EXPECT_EQ(number(rows[1][8]), f.series[0].points[0].y_low);
    EXPECT_EQ(number(rows[1][9]), f.series[0].points[0].y_high);
    EXPECT_EQ(rows[1][7], "GB/s");
    const auto& roof = rows[5];
    EXPECT_EQ(roof[1], "copy roof 3,007 GB/s");
    EXPECT_EQ(roof[2], "hline");
    EXPECT_EQ(roof[4], "");
    EXPECT_EQ(number(roof[6]), 3007);
}

TEST(FigureCsv, HeatmapCells) {
    Figure f = sample_error_heatmap();
    const Heatmap& h = *f.heatmap;
    auto rows = parse_csv(figure_to_csv(f, false));
    ASSERT_EQ(rows.size(), static_cast<size_t>(h.rows * h.cols));
    const auto& corner = rows.back();  // row 31, column 31: NaN
    EXPECT_EQ(corner[2], "heatmap");
    EXPECT_EQ(corner[10], "NaN");
    EXPECT_EQ(number(corner[4]), 4096 - 64);  // centre of the last 128-wide column
    EXPECT_EQ(number(corner[6]), 4096 - 64);
    const auto& first = rows.front();
    EXPECT_EQ(number(first[10]), h.at(0, 0));
    EXPECT_EQ(number(first[4]), 64);
}

TEST(FigureCsv, WritesTheSameBytesToAFile) {
    testing::TempDir dir;
    Figure f = sample_roofline();
    WriteResult r = write_csv(f, dir.file("roofline.csv"));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(testing::read_file(dir.file("roofline.csv")), figure_to_csv(f));
}

}  // namespace
}  // namespace kl::plot
