#include "report/key_numbers.h"

#include <cmath>

#include "model/stopwatch_label.h"
#include "plot/ticks.h"
#include "report/markdown_text.h"

namespace kl::report {

namespace {
// Whether each row's "% of reference" is the library's time over the row's (to a rounding), so
// the reference the runs were read against is the library run itself; at least one row must say
// so. A table whose runs were read against another reference (SDPA flash, a run of another file)
// keeps both columns.
bool reference_column_repeats_library(const std::vector<KeyRow>& rows, const std::vector<const StoredRun*>& runs,
                                      const StoredRun* library) {
    if (!library || !library->record.timing || !(library->record.timing->median_ms > 0)) return false;
    const double library_ms = library->record.timing->median_ms;
    bool any = false;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (!rows[i].pct_reference) continue;
        if (i >= runs.size() || !runs[i] || !runs[i]->record.timing) return false;
        const double of_library = 100.0 * library_ms / runs[i]->record.timing->median_ms;
        if (std::abs(*rows[i].pct_reference - of_library) > 1e-6 * std::abs(of_library)) return false;
        any = true;
    }
    return any;
}
}  // namespace

KeyTable key_numbers(const LoadedResults& results, const PlotContext& ctx) {
    KeyTable t;
    if (!ctx.ladder) return t;
    const bool flops = prefers_flops(ctx, results.store);
    t.ladder = ctx.ladder->id;
    t.ladder_title = ctx.ladder->title;
    t.problem = format_sizes(ctx.sizes) + " · " + ctx.dtype;
    t.rate_unit = flops ? "TFLOP/s" : "GB/s";
    BuiltFigure bars = rung_bars(results.store, ctx, Metric::Rate);
    // "% of cuBLAS" as the strip card reads it: against the library at these sizes, else the
    // calibration; a multiple for a rung at another precision (library_share). The column names
    // the library the shares are of ("% of cuDNN" for attention).
    const StoredRun* library = flops ? library_reference_run(results.store, ctx) : nullptr;
    t.roof_name = flops ? "% of " + library_name_of(library, *ctx.ladder) : "% of copy";
    for (size_t i = 0; i < ctx.ladder->rungs.size(); ++i) {
        const Rung& r = ctx.ladder->rungs[i];
        KeyRow row;
        row.rung = r.id;
        row.title = r.title;
        const StoredRun* s = i < bars.bar_runs.size() ? bars.bar_runs[i] : nullptr;
        if (s) {
            const RunRecord& rec = s->record;
            if (!rec.error.empty())
                row.check = rec.error_kind.empty() ? "error" : rec.error_kind + " error";
            else if (rec.correctness)
                row.check = rec.correctness->passed ? "pass" : "FAIL";
            else
                row.check = "not checked";
            if (rec.error.empty() && rec.timing) {
                row.measured = true;
                row.median_ms = rec.timing->median_ms;
                row.rate = flops ? rec.values.num(tag::tflops) : rec.values.num(tag::gbps);
                row.pct_roof = flops ? std::nullopt : rec.values.get(tag::pct_copy);
                if (auto share = flops ? library_share(rec, r.compute, library, *ctx.ladder) : std::nullopt) {
                    if (share->other_precision.empty())
                        row.pct_roof = 100.0 * share->ratio;
                    else
                        row.roof_text = library_share_text(*share, ctx.dtype, 3);
                }
                row.pct_reference = rec.values.get(tag::pct_reference);
            }
        }
        t.rows.push_back(row);
    }
    t.reference_is_library = reference_column_repeats_library(t.rows, bars.bar_runs, library);
    std::vector<const RunRecord*> records;  // [stopwatch]
    for (const StoredRun* s : bars.bar_runs)
        if (s) records.push_back(&s->record);
    t.stopwatch = stopwatch_caption(records);
    t.stopwatch_mixed = !mixed_stopwatch_line(records).empty();
    return t;
}

namespace {
std::string cell(const std::optional<double>& v, const char* suffix = "") {
    return v ? plot::format_value(*v, 3) + suffix : "–";
}
}  // namespace

std::string key_table_markdown(const KeyTable& t) {
    const bool reference_column = !t.reference_is_library;
    std::string md = "| rung | median time (ms) | " + t.rate_unit + " | " + t.roof_name + " | " +
                     (reference_column ? "% of reference | " : "") + "check |\n";
    md += reference_column ? "|---|---:|---:|---:|---:|---|\n" : "|---|---:|---:|---:|---|\n";
    for (const auto& r : t.rows) {
        md += "| " + markdown_text(r.title) + " (`" + r.rung + "`) | ";  // text, never Markdown: | < ! [ escaped
        if (r.measured) {
            md += plot::format_value(r.median_ms, 3) + " | " + plot::format_value(r.rate, 3) + " | " +
                  (r.roof_text.empty() ? cell(r.pct_roof, " %") : r.roof_text) + " | ";
            if (reference_column) md += cell(r.pct_reference, " %") + " | ";
        } else {
            md += reference_column ? "– | – | – | – | " : "– | – | – | ";
        }
        md += (r.check.empty() ? std::string("not measured") : markdown_text(r.check)) + " |\n";
    }
    if (!t.stopwatch.empty()) {  // [stopwatch] figures of two stopwatches are not comparable
        md += "\n" + std::string(t.stopwatch_mixed ? "**Times:** " : "Times: ") + markdown_text(t.stopwatch) + ".\n";
    }
    return md;
}

}  // namespace kl::report
