#include "course/plausibility.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "base/atomic_file.h"
#include "base/hmac.h"
#include "base/json_input.h"
#include "base/sha256.h"
#include "model/arch.h"

namespace kl {

namespace {

constexpr double kDatasheetMargin = 1.05;  // datasheet figures are rounded
constexpr double kMinRoofMargin = 0.10;    // the calibrated roof is itself measured

std::string fmt0(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f", v);
    return b;
}

void roof_findings(const Submission& s, const RunRecord& r, const Datasheet* sheet, std::vector<Finding>& out) {
    if (!r.timing || !(r.timing->median_ms > 0)) return;
    const double seconds = r.timing->median_ms * 1e-3;
    const double gbps = r.values.num(tag::ideal_bytes) / seconds / 1e9;
    const double tflops = r.values.num(tag::flops) / seconds / 1e12;
    const std::string at = fmt0(gbps) + " GB/s (" + fmt0(r.values.num(tag::ideal_bytes)) + " bytes in " +
                           std::to_string(r.timing->median_ms) + " ms)";
    if (s.results.calibration) {
        const double roof = calibrated_memory_gbps(*s.results.calibration);
        const double margin = std::max(kMinRoofMargin, r.timing->rel_spread);
        if (roof > 0 && gbps > roof * (1 + margin))
            out.push_back({Finding::Level::Refused, "memory roof",
                           "impossible: " + at + " beats the calibrated memory roof " + fmt0(roof) +
                               " GB/s by more than " + fmt0(100 * margin) + "%"});
    }
    if (sheet && gbps > sheet->memory_gbps * kDatasheetMargin)
        out.push_back({Finding::Level::Refused, "memory roof",
                       "impossible: " + at + " beats the datasheet's " + fmt0(sheet->memory_gbps) + " GB/s (" +
                           sheet->profile + ")"});
    // The tensor peak bounds every dtype: an fp32 kernel may use TF32 tensor cores, which beat the
    // FP32 peak honestly. Without a datasheet nothing bounds FLOPs (calibrated GEMM rates are not
    // ceilings: a kernel may beat cuBLAS).
    if (sheet && tflops > sheet->tensor_tflops * kDatasheetMargin)
        out.push_back({Finding::Level::Refused, "compute peak",
                       "impossible: " + fmt0(tflops) + " TFLOP/s beats the tensor peak of " +
                           fmt0(sheet->tensor_tflops) + " TFLOP/s (" + sheet->profile + ")"});
}

void device_findings(const Submission& s, const Datasheet& sheet, std::vector<Finding>& out) {
    const DeviceInfo& d = *s.results.device;
    if (d.sm_count != sheet.sm_count || d.cc() != sheet.cc)
        out.push_back({Finding::Level::Flagged, "device",
                       d.name + " reported " + std::to_string(d.sm_count) + " SMs and sm_" + std::to_string(d.cc()) +
                           "; " + sheet.profile + " has " + std::to_string(sheet.sm_count) + " and sm_" +
                           std::to_string(sheet.cc)});
    const double limit = sheet.boost_clock_mhz * kDatasheetMargin;
    if (d.sm_clock_khz / 1000.0 > limit)
        out.push_back({Finding::Level::Flagged, "clock",
                       "rated SM clock " + fmt0(d.sm_clock_khz / 1000.0) + " MHz is above the boost clock " +
                           fmt0(sheet.boost_clock_mhz) + " MHz of " + sheet.profile});
    for (const auto& r : s.results.runs)
        if (r.clock && std::max(r.clock->before_mhz, r.clock->after_mhz) > limit) {
            out.push_back({Finding::Level::Flagged, "clock",
                           r.rung + ": SM clock seen at " + fmt0(std::max(r.clock->before_mhz, r.clock->after_mhz)) +
                               " MHz, above the boost clock " + fmt0(sheet.boost_clock_mhz) + " MHz"});
            break;
        }
    // The calibration's SGEMM is cuBLAS fp32 without TF32: it cannot beat the FP32 peak.
    if (s.results.calibration && s.results.calibration->sgemm_tflops > sheet.fp32_tflops * kDatasheetMargin)
        out.push_back({Finding::Level::Flagged, "calibration",
                       "calibrated fp32 GEMM " + fmt0(s.results.calibration->sgemm_tflops) +
                           " TFLOP/s is above the datasheet's FP32 peak " + fmt0(sheet.fp32_tflops) + " TFLOP/s"});
    if (s.results.calibration && calibrated_memory_gbps(*s.results.calibration) > sheet.memory_gbps * kDatasheetMargin)
        out.push_back({Finding::Level::Flagged, "calibration",
                       "calibrated memory roof " + fmt0(calibrated_memory_gbps(*s.results.calibration)) +
                           " GB/s is above the datasheet's " + fmt0(sheet.memory_gbps) + " GB/s"});
}

}  // namespace

double calibrated_memory_gbps(const Calibration& c) {
    double best = c.copy_gbps;
    for (const auto& p : c.bandwidth) best = std::max(best, p.gbps);
    return best;
}

double pct_of_roof(const Submission& s) {
    const RunRecord* r = s.mine_run();
    if (!r || !r->timing || !(r->timing->median_ms > 0) || !s.results.calibration) return 0;
    const Calibration& c = *s.results.calibration;
    const double mem = calibrated_memory_gbps(c);
    const double compute = r->dtype == DType::F32 ? c.sgemm_tflops : c.bf16_tflops;
    double ideal_s = mem > 0 ? r->values.num(tag::ideal_bytes) / (mem * 1e9) : 0;
    if (compute > 0) ideal_s = std::max(ideal_s, r->values.num(tag::flops) / (compute * 1e12));
    return 100.0 * ideal_s / (r->timing->median_ms * 1e-3);
}

std::vector<Finding> plausibility_findings(const Submission& s, const std::vector<Datasheet>& sheets) {
    std::vector<Finding> out;
    const Datasheet* sheet = s.results.device ? find_datasheet(sheets, s.results.device->name) : nullptr;
    if (const RunRecord* r = s.mine_run()) roof_findings(s, *r, sheet, out);
    if (!equal_in_constant_time(sha256_hex(s.source), s.source_sha256))
        out.push_back({Finding::Level::Flagged, "source hash",
                       "the source's SHA-256 is " + sha256_hex(s.source).substr(0, 16) + "..., the file records " +
                           s.source_sha256.substr(0, 16) + "..."});
    if (sheet) device_findings(s, *sheet, out);
    return out;
}

}  // namespace kl
