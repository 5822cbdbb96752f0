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

// Where a value sits in a file of `version`: "values.gbps", or its field of versions 1 and 2.
std::string value_field(const std::string& f, const MeasureInfo& m, int version) {
    return f + "." + (version >= 3 ? std::string("values.") + m.tag : std::string(m.legacy_field));
}

// Every value is a size, a count, a rate or a share: none is negative. A timed run that did work
// has a rate for it: zero GB/s for a run that moved bytes is no result.
void check_values(const JsonReader& rd, const RunRecord& r, const std::string& f, int version) {
    for (const MeasureInfo& m : measure_registry()) not_negative(rd, value_field(f, m, version), r.values.get(m.tag));
    if (!r.timing) return;
    const double bytes = r.values.num(tag::ideal_bytes), flops = r.values.num(tag::flops);
    const double gbps = r.values.num(tag::gbps), tflops = r.values.num(tag::tflops);
    if (bytes > 0 && !(gbps > 0))
        rd.fail(value_field(f, *find_measure(tag::gbps), version),
                shown(gbps) + " for a timed run that moved " + shown(bytes) + " bytes");
    if (flops > 0 && !(tflops > 0))
        rd.fail(value_field(f, *find_measure(tag::tflops), version),
                shown(tflops) + " for a timed run of " + shown(flops) + " FLOPs");
}

}  // namespace

void check_run_values(const JsonReader& rd, const RunRecord& r, const std::string& f, int version) {
    check_sizes(rd, r, f);
    if (r.timing) check_timing(rd, *r.timing, f + ".timing", true);
    if (r.mode_timing) check_timing(rd, *r.mode_timing, f + ".mode", false);
    check_values(rd, r, f, version);
    if (r.correctness) check_correctness(rd, *r.correctness, f + ".correctness");
}

void check_calibration_values(const JsonReader& rd, const Calibration& c) {
    not_negative(rd, "calibration.copy_gbps", c.copy_gbps);
    not_negative(rd, "calibration.sgemm_tflops", c.sgemm_tflops);
    not_negative(rd, "calibration.bf16_tflops", c.bf16_tflops);
    not_negative(rd, "calibration.fp32_peak_tflops", c.fp32_peak_tflops);
}

}  // namespace kl
