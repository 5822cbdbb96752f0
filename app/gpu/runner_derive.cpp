// Runner's derive step (runner.h): the rates of a timed run against its median, and their shares
// of the ceilings calibrated on this device. Apart from runner.cpp, which keeps the steps that
// touch the GPU.
#include "gpu/runner.h"
#include "model/roof.h"

namespace kl {

// Rates against the median time, and their share of the ceilings calibrated on this device.
void Runner::derive(const ResolvedRun& run, RunRecord& rec) const {
    if (!rec.timing) return;
    double s = rec.timing->median_ms * 1e-3;
    const double gbps = rec.values.num(tag::ideal_bytes) / s / 1e9;
    const double tflops = rec.values.num(tag::flops) / s / 1e12;
    rec.values.set(tag::gbps, gbps);
    rec.values.set(tag::tflops, tflops);
    if (calibration_ && calibration_->copy_gbps > 0)
        rec.values.set(tag::pct_copy, 100.0 * gbps / calibration_->copy_gbps);
    // The roof of this operation's read:write mix; a correct run above it by more than its own
    // spread is flagged as a measuring error (roof.h).
    const Operation* op = find_operation(run.rung->operation);
    const double roof =
        calibration_ ? memory_roof_gbps(calibration_->bandwidth, read_fraction_of(op->buffers(run.problem))) : 0.0;
    if (roof > 0 && rec.values.num(tag::ideal_bytes) > 0) {
        rec.values.set(tag::roof_gbps, roof);
        rec.values.set(tag::pct_roof, 100.0 * gbps / roof);
        const bool correct = rec.correctness && rec.correctness->passed;
        rec.values.set(tag::above_roof, correct && above_roof(gbps, roof, rec.timing->rel_spread) ? 1.0 : 0.0);
    }
    if (calibration_ && rec.values.num(tag::flops) > 0) {
        double ceiling = run.problem.dtype == DType::F32 ? calibration_->sgemm_tflops : calibration_->bf16_tflops;
        if (ceiling > 0) rec.values.set(tag::pct_gemm, 100.0 * tflops / ceiling);
    }
}

}  // namespace kl
