#include "report/timeline_table.h"

#include <algorithm>
#include <cstdio>

#include "plot/csv_export.h"
#include "report/markdown_text.h"

namespace kl::report {

namespace {
std::string num(double v, const char* fmt = "%.2f") {
    char b[48];
    std::snprintf(b, sizeof b, fmt, v);
    return b;
}
// Commas and quotes would break a CSV row; kernel names (C++ templates) can hold both. A name
// from a results file that reads as a formula is neutralised like every CSV text cell.
std::string csv_field(const std::string& text) {
    const std::string s = plot::csv_neutralised(text);
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}
}  // namespace

std::string timeline_markdown(const RunRecord& run, size_t max_rows) {
    if (!run.timeline) return "";
    const Timeline& t = *run.timeline;
    std::string md = "| # | kernel | start (µs) | duration (µs) | gap before (µs) |\n|---|---|---|---|---|\n";
    double prev_end = 0;
    for (size_t i = 0; i < t.kernels.size() && i < max_rows; ++i) {
        const KernelSpan& k = t.kernels[i];
        const double gap = i == 0 ? 0 : k.start_us - prev_end;
        md += "| " + std::to_string(i + 1) + " | " + markdown_code_cell(k.name) + " | " + num(k.start_us) + " | " +
              num(k.duration_us()) + " | " + (i == 0 ? "-" : num(gap)) + " |\n";
        prev_end = std::max(prev_end, k.end_us);
    }
    if (t.kernels.size() > max_rows)
        md += "| ... | " + std::to_string(t.launches - int(max_rows)) + " more kernels | | | |\n";
    md += "\nKernels' own time " + num(t.kernel_sum_ms * 1e3) + " µs, events " + num(t.event_ms * 1e3) + " µs, span " +
          num(t.span_ms * 1e3) + " µs, gaps " + num(t.gap_ms * 1e3) + " µs (" + std::to_string(t.launches) +
          " kernels, one repetition traced with CUPTI after timing).";
    if (run.clock)
        md += " SM clock " + num(run.clock->before_mhz, "%.0f") + " MHz before timing, " +
              num(run.clock->after_mhz, "%.0f") + " after (rated " + num(run.clock->rated_mhz, "%.0f") + ")" +
              (run.clock->throttled ? ": **throttled**." : ".");
    return md + "\n";
}

std::string timeline_csv(const RunRecord& run) {
    if (!run.timeline) return "";
    std::string csv = "kernel,start_us,end_us,duration_us\n";
    for (const auto& k : run.timeline->kernels)
        csv += csv_field(k.name) + "," + num(k.start_us, "%.3f") + "," + num(k.end_us, "%.3f") + "," +
               num(k.duration_us(), "%.3f") + "\n";
    return csv;
}

}  // namespace kl::report
