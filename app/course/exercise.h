// Live exercises: a lesson step's "write it yourself" with a starter and a goal the engine
// checks (docs/formats.md, section 2, `[step.exercise]`). No CUDA, no UI.
//
// A goal is one or more clauses joined by `and`:
//   correct                                  every checked run passed (main size and hidden sizes)
//   METRIC OP VALUE                          OP one of >= > <= <
//     METRIC: a run metric of the learner's rung, as bindings name them (gbps, tflops, us, ms,
//             pct_copy, pct_gemm, ...; prediction.h run_metric_value)
//     VALUE:  NUMBER | [NUMBER *] REF, REF one of device.copy_gbps, device.sgemm_tflops,
//             device.bf16_tflops (this GPU's calibration), like.METRIC (the starter's rung,
//             run beside the learner's at the same size) or rung.ID.METRIC (rung ID of the
//             ladder, run beside too: a rung to beat, e.g. "correct and us < rung.transpose_smem.us")
// e.g. "correct and gbps >= 0.8 * device.copy_gbps", "correct and us <= 1.1 * like.us".
// Why not base/expr: manifests' expressions are integer arithmetic; goals compare rates.
//
// API:
//   parse_goal(text)                         throws InputError "goal '...': <problem>"
//   goal_rungs(goal)                         the rung ids of its rung.ID.METRIC references, in order
//   evaluate_goal(goal, context)             GoalVerdict: met, and one line per clause with the
//                                            measured figure ("gbps 2,650 >= 0.8 x copy 3,010
//                                            = 2,408: met")
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/results.h"

namespace kl {

struct GoalClause {
    enum class Op { Ge, Gt, Le, Lt } op = Op::Ge;
    bool correct_only = false;  // the clause `correct`
    std::string metric;         // left side
    double factor = 1;          // right side: factor x ref, or factor alone when ref is empty
    std::string ref;            // "device.copy_gbps", "like.us", "rung.naive.us", or ""
    std::string text;           // as written
};

struct Goal {
    std::string text;
    std::vector<GoalClause> clauses;
};

Goal parse_goal(const std::string& text);
std::vector<std::string> goal_rungs(const Goal& goal);

struct GoalContext {
    const RunRecord* mine = nullptr;                // the learner's rung at the main size
    const RunRecord* like = nullptr;                // the starter's rung at the same size (may be null)
    std::map<std::string, const RunRecord*> rungs;  // rung id -> its run beside (rung.ID.METRIC)
    std::vector<const RunRecord*> hidden;           // the learner's rung at the hidden sizes (checked)
    std::optional<Calibration> calibration;         // this GPU's
};

struct GoalVerdict {
    bool met = false;
    std::vector<std::string> lines;  // one per clause, each ending in ": met" or ": not met"
    std::string summary;             // "goal met" / "goal not met: <first failing clause>"
};

GoalVerdict evaluate_goal(const Goal& goal, const GoalContext& ctx);

}  // namespace kl
