// One number per rung (issue 37): lesson text that calls a rung by a number must use the rung's
// own (Rung::number, the one the strip, plot axes and `kladder list` show). Part of
// `kladder check-lessons`. No CUDA, no UI.
#pragma once
#include <string>
#include <vector>

#include "course/lesson.h"
#include "model/manifest.h"

namespace kl {

// Offences, one line each ("<where>[:<line>]: ..."), where the text names a rung by number and
// says which rung it means in the same breath: "rung 11 `wgmma_bf16`", "Rung 8 (double_buffer_regs)",
// "rung 10's {{ matmul/wgmma_bf16 tflops }}", "mlp rung 4 `gelu_tma_store`", and a step's
// predict.ask that opens "Predict rung N" (the step's rung). Mentions that name no rung are left alone.
std::vector<std::string> check_rung_numbers(const std::vector<Lesson>& lessons, const std::vector<Ladder>& ladders);

}  // namespace kl
