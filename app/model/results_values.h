// Values no run can have, checked when a results file (or a runner reply) is read: a results
// file travels, and a hand-edited one must not plot a rate of zero or a size of -1. Each check
// fails with one line "<file>: <field>: <value>: <why>" (InputError, exit 2).
//
// What is impossible, field by field (and what is not, because recordings hold it):
// - dtype: one the program knows (fp32, bf16, fp16, fp8e4m3).
// - sizes: not negative; within the operation's own range for its axes (causal = 0 is one).
// - tagged values (work, rates, percentages, peak memory; measures.h) and calibrations: not negative. A zero is
// possible (a
//   transpose does no FLOPs, a failed run has no rate), but a timed run that did work has a
//   rate above zero.
// - timing: every time above zero, at least one repetition, a spread that is not negative.
// - correctness: tolerances, errors and counts not negative, no more mismatches than elements.
#pragma once
#include <string>

#include "base/json_input.h"
#include "model/results.h"

namespace kl {

void check_run_values(const JsonReader& rd, const RunRecord& r, const std::string& field, int version);
void check_calibration_values(const JsonReader& rd, const Calibration& c);

}  // namespace kl
