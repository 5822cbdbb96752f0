#include "model/results_values.h"

#include <cstdio>

#include "model/dtype.h"
#include "model/operation.h"

namespace kl {

namespace {

std::string shown(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void not_negative(const JsonReader& rd, const std::string& field, double v) {
    if (v < 0) rd.fail(field, shown(v) + " is negative");
}

void not_negative(const JsonReader& rd, const std::string& field, const std::optional<double>& v) {
    if (v) not_negative(rd, field, *v);
}

void positive_time(const JsonReader& rd, const std::string& field, double ms) {
    if (!(ms > 0)) rd.fail(field, shown(ms) + " ms: a measured time is above zero");
}

void check_timing(const JsonReader& rd, const TimingStats& t, const std::string& f, bool has_mean) {
    positive_time(rd, f + ".median_ms", t.median_ms);
    positive_time(rd, f + ".min_ms", t.min_ms);
    positive_time(rd, f + ".max_ms", t.max_ms);
    if (has_mean) positive_time(rd, f + ".mean_ms", t.mean_ms);
    not_negative(rd, f + ".rel_spread", t.rel_spread);
    if (t.reps < 1) rd.fail(f + ".reps", std::to_string(t.reps) + ": a timing has at least one repetition");
}

void check_sizes(const JsonReader& rd, const RunRecord& r, const std::string& f) {
    const Operation* op = r.operation.empty() ? nullptr : find_operation(r.operation);
    for (const auto& [axis, v] : r.sizes) {
        const std::string field = f + ".sizes." + axis;
        if (v < 0) rd.fail(field, std::to_string(v) + " is negative");
        if (!op) continue;  // an operation of another version: its axes are unknown here
        for (const SizeAxis& a : op->size_axes())
            if (a.name == axis && (v < a.min || v > a.max))
                rd.fail(field, std::to_string(v) + " is outside " + std::to_string(a.min) + ".." +
                                   std::to_string(a.max) + ", the sizes of operation " + r.operation);
    }
}

void check_correctness(const JsonReader& rd, const Correctness& c, const std::string& f) {
    not_negative(rd, f + ".rel_l2", c.rel_l2);
    not_negative(rd, f + ".max_abs", c.max_abs);
    not_negative(rd, f + ".tolerance.abs", c.tolerance.abs);
    not_negative(rd, f + ".tolerance.rel", c.tolerance.rel);
    for (const auto& [name, count] : {std::pair<const char*, int64_t>{"mismatches", c.mismatches},
                                      {"nan_count", c.nan_count},
                                      {"unwritten", c.unwritten}})
        if (count > c.elements)
            rd.fail(f + "." + name,
                    std::to_string(count) + " is more than the " + std::to_string(c.elements) + " elements compared");
}

// A timed run that did work has a rate for it: zero GB/s for a run that moved bytes is no result.
void check_rates(const JsonReader& rd, const RunRecord& r, const std::string& f) {
    not_negative(rd, f + ".work.flops", r.flops);
    not_negative(rd, f + ".work.ideal_bytes", r.ideal_bytes);
    not_negative(rd, f + ".work.model_bytes", r.model_bytes);
    not_negative(rd, f + ".rates.gbps", r.gbps);
    not_negative(rd, f + ".rates.tflops", r.tflops);
    not_negative(rd, f + ".rates.pct_copy", r.pct_copy);
    not_negative(rd, f + ".rates.pct_gemm", r.pct_gemm);
    not_negative(rd, f + ".rates.pct_reference", r.pct_reference);
    if (!r.timing) return;
    if (r.ideal_bytes > 0 && !(r.gbps > 0))
        rd.fail(f + ".rates.gbps", shown(r.gbps) + " for a timed run that moved " + shown(r.ideal_bytes) + " bytes");
    if (r.flops > 0 && !(r.tflops > 0))
        rd.fail(f + ".rates.tflops", shown(r.tflops) + " for a timed run of " + shown(r.flops) + " FLOPs");
}

}  // namespace

void check_run_values(const JsonReader& rd, const RunRecord& r, const std::string& f) {
    if (!parse_dtype(r.dtype)) rd.fail(f + ".dtype", "'" + r.dtype + "' is not a dtype (fp32, bf16, fp16, fp8e4m3)");
    check_sizes(rd, r, f);
    if (r.timing) check_timing(rd, *r.timing, f + ".timing", true);
    if (r.mode_timing) check_timing(rd, *r.mode_timing, f + ".mode", false);
    check_rates(rd, r, f);
    if (r.correctness) check_correctness(rd, *r.correctness, f + ".correctness");
    not_negative(rd, f + ".peak_memory_bytes", r.peak_memory_bytes);
}

void check_calibration_values(const JsonReader& rd, const Calibration& c) {
    not_negative(rd, "calibration.copy_gbps", c.copy_gbps);
    not_negative(rd, "calibration.sgemm_tflops", c.sgemm_tflops);
    not_negative(rd, "calibration.bf16_tflops", c.bf16_tflops);
    not_negative(rd, "calibration.fp32_peak_tflops", c.fp32_peak_tflops);
}

}  // namespace kl
