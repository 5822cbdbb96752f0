// The key numbers of a ladder at one problem: per rung, time, rate, share of the roof, share of
// the reference and the correctness verdict. The runs are the ones the rung bars show (the
// builders' choice), so the table and the figures never disagree.
#pragma once
#include <string>
#include <vector>

#include "report/figure_request.h"

namespace kl::report {

struct KeyRow {
    std::string rung, title;
    bool measured = false;  // false: no run of this rung at this problem (the row says so)
    double median_ms = 0;
    double rate = 0;                 // GB/s or TFLOP/s, as `KeyTable::rate_unit`
    std::optional<double> pct_roof;  // % of copy bandwidth, or of the library for FLOP-bound ladders
    // The cell instead of pct_roof for a rung at another precision than cuBLAS of its dtype
    // ("7.48x cuBLAS fp32" for cuBLAS TF32: library_share_text, figures.h); "" otherwise.
    std::string roof_text;
    std::optional<double> pct_reference;
    std::string check;  // "pass", "FAIL", "not checked", or the error kind
};

struct KeyTable {
    std::string ladder, ladder_title, problem;  // problem: "n = 268,435,456 · fp32"
    std::string rate_unit;                      // "GB/s" or "TFLOP/s"
    std::string roof_name;                      // "% of copy", "% of cuBLAS" or "% of cuDNN"
    // Every "% of reference" in the table was read against the library run the roof column is a
    // share of (attention's reference is cuDNN's SDPA, matmul's fp32 one cuBLAS SGEMM): the two
    // columns would hold the same numbers, so the table shows the library's alone.
    bool reference_is_library = false;
    std::vector<KeyRow> rows;
    // [stopwatch] What timed the rows: "CUDA events", "GPU span (CUPTI)", or the one line saying
    // they mix stopwatches (model/stopwatch_label.h); "" when no row is measured.
    std::string stopwatch;
    bool stopwatch_mixed = false;
};

KeyTable key_numbers(const LoadedResults& results, const PlotContext& ctx);

// A GitHub-flavoured Markdown table (numbers with 3 significant digits, "–" where absent), then
// a line naming the stopwatch of its times when it has any.
std::string key_table_markdown(const KeyTable& table);

}  // namespace kl::report
