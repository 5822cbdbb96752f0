// Plausibility of a judged submission (issue 41, part 2): what no honest run on the named device
// can show. No CUDA.
//   refused  a learner's time faster than the device allows: the bytes it must move at the
//            calibrated memory roof (the best streaming kernel of the calibration, or the copy)
//            beyond the run's spread, or at the datasheet's memory bandwidth; its FLOPs at the
//            datasheet's tensor peak (for every dtype: fp32 kernels may use TF32 tensor cores)
//   flagged  a source whose SHA-256 is not the one recorded; device facts (SM count, compute
//            capability) that are not those of the device's profile; clocks above its boost
//            clock; a calibrated roof above the datasheet's bandwidth, a calibrated fp32 GEMM
//            (cuBLAS without TF32) above its FP32 peak
// The datasheet figures come from the device profiles' `datasheet` entries (course/datasheet.h,
// assets/devices/, docs/formats.md section 4), each with its source.
#pragma once
#include <string>
#include <vector>

#include "course/datasheet.h"
#include "course/submission.h"

namespace kl {

struct Finding {
    enum class Level { Refused, Flagged } level = Level::Flagged;
    std::string check;   // "memory roof", "compute peak", "source hash", "device", "clock", "calibration"
    std::string detail;  // one line with the figures
};

std::vector<Finding> plausibility_findings(const Submission& s, const std::vector<Datasheet>& sheets);

// The ideal time of the learner's run on its device's roof: max(bytes / memory roof, FLOPs /
// compute roof), the calibrated ceilings; its share of the measured time in percent (0 when the
// submission has no calibration or no timing). Different GPUs compare on this.
double pct_of_roof(const Submission& s);
// The calibrated memory roof: the best streaming kernel, or the copy for older calibrations.
double calibrated_memory_gbps(const Calibration& c);

}  // namespace kl
