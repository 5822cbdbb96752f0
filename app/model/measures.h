// Measurements as tagged data, as nvbench keeps its summaries: a run is an identity (ladder, rung,
// parameters, sizes, dtype, how it was timed) plus a list of values, each under a tag that the
// registry below describes once (unit, hint, description). Printers, plots, lesson bindings and
// exports look values up by tag; none keeps its own list.
//
// A new measurement is one producer (the code that calls `set`) and one registry row
// (measures.cpp). The results file writes the values as an object of tag -> number
// (docs/results-schema.md, version 3); files of versions 1 and 2 kept them in fixed fields,
// which each row names (`legacy_field`) so that the reader maps them onto tags.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kl {

// The tags, written once: a misspelt tag is a compile error, not a missing number.
namespace tag {
inline constexpr const char* flops = "flops";
inline constexpr const char* ideal_bytes = "ideal_bytes";
inline constexpr const char* model_bytes = "model_bytes";
inline constexpr const char* gbps = "gbps";
inline constexpr const char* tflops = "tflops";
inline constexpr const char* pct_copy = "pct_copy";
inline constexpr const char* roof_gbps = "roof_gbps";
inline constexpr const char* pct_roof = "pct_roof";
inline constexpr const char* above_roof = "above_roof";
inline constexpr const char* pct_gemm = "pct_gemm";
inline constexpr const char* pct_reference = "pct_reference";
inline constexpr const char* peak_memory_bytes = "peak_memory_bytes";
}  // namespace tag

// What kind of figure a value is, for whoever draws or formats it.
enum class MeasureHint { Count, Bytes, Rate, Percent };

struct MeasureInfo {
    const char* tag;
    const char* unit;  // "GB/s", "%", "bytes", "FLOP"
    MeasureHint hint;
    const char* description;   // one line, for tooltips and docs
    const char* legacy_field;  // where results files of versions 1 and 2 kept it ("rates.gbps")
    bool legacy_required;      // those versions always wrote it: a file without it is malformed
};

// Every measurement a run can carry, in the order files list them.
const std::vector<MeasureInfo>& measure_registry();
const MeasureInfo* find_measure(const std::string& tag);  // nullptr for an unknown tag

// The values of one run by tag, in registry order. Setting a tag the registry lacks throws
// std::logic_error (a programming error: every producer's tag has a row).
class Measures {
  public:
    std::optional<double> get(const char* tag) const;
    double num(const char* tag) const { return get(tag).value_or(0.0); }  // 0 when absent
    bool has(const char* tag) const { return get(tag).has_value(); }
    void set(const char* tag, double value);
    void set(const char* tag, std::optional<double> value);  // nullopt: the tag is removed
    void erase(const char* tag);
    const std::vector<std::pair<std::string, double>>& all() const { return values_; }

  private:
    std::vector<std::pair<std::string, double>> values_;
};

}  // namespace kl
