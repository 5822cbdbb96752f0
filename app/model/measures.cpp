#include "model/measures.h"

#include <algorithm>
#include <stdexcept>

namespace kl {

const std::vector<MeasureInfo>& measure_registry() {
    static const std::vector<MeasureInfo> rows = {
        {tag::flops, "FLOP", MeasureHint::Count, "arithmetic the operation counts for this problem", "work.flops",
         true},
        {tag::ideal_bytes, "bytes", MeasureHint::Bytes, "each input read once, each output written once",
         "work.ideal_bytes", true},
        {tag::model_bytes, "bytes", MeasureHint::Bytes, "the DRAM bytes the rung's manifest model expects",
         "work.model_bytes", false},
        {tag::gbps, "GB/s", MeasureHint::Rate, "ideal bytes over the median time", "rates.gbps", true},
        {tag::tflops, "TFLOP/s", MeasureHint::Rate, "FLOPs over the median time", "rates.tflops", true},
        {tag::pct_copy, "%", MeasureHint::Percent, "GB/s as a share of the calibrated copy bandwidth", "rates.pct_copy",
         false},
        // The roof's values are new in version 3: no field of versions 1 and 2 ("").
        {tag::roof_gbps, "GB/s", MeasureHint::Rate,
         "the memory roof at the operation's read:write mix: the best calibration kernel there (roof.h)", "", false},
        {tag::pct_roof, "%", MeasureHint::Percent, "GB/s as a share of the memory roof at the rung's read:write mix",
         "", false},
        {tag::above_roof, "0/1", MeasureHint::Count,
         "1: a correct run above its roof by more than its spread, a measuring error; 0: at or below it", "", false},
        {tag::pct_gemm, "%", MeasureHint::Percent, "TFLOP/s as a share of the calibrated cuBLAS rate for the dtype",
         "rates.pct_gemm", false},
        {tag::pct_reference, "%", MeasureHint::Percent, "the reference rung's time over this time, in the same run",
         "rates.pct_reference", false},
        {tag::peak_memory_bytes, "bytes", MeasureHint::Bytes, "device memory the rung's buffers took",
         "peak_memory_bytes", false},
    };
    return rows;
}

const MeasureInfo* find_measure(const std::string& tag) {
    for (const MeasureInfo& m : measure_registry())
        if (tag == m.tag) return &m;
    return nullptr;
}

namespace {
// The registry position of a tag (its order in files), or throws for an unregistered one.
size_t registry_index(const char* tag) {
    const auto& rows = measure_registry();
    for (size_t i = 0; i < rows.size(); ++i)
        if (std::string(tag) == rows[i].tag) return i;
    throw std::logic_error(std::string("measurement tag '") + tag + "' has no row in measure_registry()");
}
}  // namespace

std::optional<double> Measures::get(const char* tag) const {
    for (const auto& [t, v] : values_)
        if (t == tag) return v;
    return std::nullopt;
}

void Measures::set(const char* tag, double value) {
    const size_t index = registry_index(tag);
    for (auto& [t, v] : values_)
        if (t == tag) {
            v = value;
            return;
        }
    auto at = std::find_if(values_.begin(), values_.end(),
                           [&](const auto& tv) { return registry_index(tv.first.c_str()) > index; });
    values_.insert(at, {tag, value});
}

void Measures::set(const char* tag, std::optional<double> value) {
    if (value)
        set(tag, *value);
    else
        erase(tag);
}

void Measures::erase(const char* tag) {
    registry_index(tag);
    values_.erase(std::remove_if(values_.begin(), values_.end(), [&](const auto& tv) { return tv.first == tag; }),
                  values_.end());
}

}  // namespace kl
