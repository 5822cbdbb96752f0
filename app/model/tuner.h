// Tuning a rung on this GPU (`kladder tune`): a search over the values its parameters may take,
// as ladder.toml declares them, for the fastest setting that passes its check. The measuring is
// injected (the CLI passes the runner; tests a deterministic fake), so the search itself needs no
// GPU and spends a budget counted in the time its measurements report, not in wall time.
//
// The search is successive halving over a coarse-to-fine grid:
//   1. screen: the coarse grid (every value of a parameter with few, evenly spread values of one
//      with many, always the default), nearest the defaults first, each timed briefly;
//   2. refine: the untried neighbours (one step along one parameter) of the best two, timed briefly;
//   3. confirm: the best few re-timed with the full protocol and checked against the reference,
//      and the defaults re-timed beside them; the fastest that passes wins, the defaults when
//      nothing beats them.
// A point is resolved with the engine's one resolution (run_plan.h, resolve_ladder_rung): one its
// constraints refuse is skipped unmeasured; one the measurer refuses (launch limits, a compile
// error at that setting) is skipped too. Neither fails the tuning. No CUDA.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/manifest.h"
#include "model/run_plan.h"

namespace kl {

// How a point is timed: `Screen` briefly and unchecked; `Confirm` with the full protocol and
// checked; `Baseline` (the defaults, beside the confirmed points) with the full protocol.
enum class TuneProtocol { Screen, Confirm, Baseline };

struct PointResult {
    // Measured; Refused (this setting cannot run here: skipped); Failed (it ran and failed,
    // e.g. its check); Stop (the rung cannot be tuned at all: no Triton, a lost GPU context).
    enum class Kind { Measured, Refused, Failed, Stop } kind = Kind::Measured;
    double median_ms = 0;
    bool checked = false;  // Confirm: the output matched the reference
    double cost_s = 0;     // what the measurement cost: wall time on a GPU, fake time in tests
    std::string why;       // for Refused, Failed and Stop
};
using MeasurePoint = std::function<PointResult(const ResolvedRun&, TuneProtocol)>;

struct TuneProgress {
    std::string rung;
    int done = 0, planned = 0;       // measurements made and planned (refining adds to the plan)
    double spent_s = 0, left_s = 0;  // left: the smaller of the budget left and the plan's estimate
};

struct TuneRequest {
    const Ladder* ladder = nullptr;
    const Rung* rung = nullptr;
    RunOptions options;  // sizes and dtype to tune at; its params are ignored
    int num_sms = 0;     // the scope's num_sms (the GPU's, or a profile's)
    double budget_s = 60;
    int finalists = 3;                          // points re-timed with the full protocol
    const std::atomic<bool>* cancel = nullptr;  // set (from SIGINT): stop after the measurement under way
    std::function<void(const TuneProgress&)> progress;
};

struct TuneOutcome {
    ParamValues best, defaults;
    std::optional<double> best_ms, default_ms;  // full-protocol medians (best_ms: the screen's when unconfirmed)
    bool checked = false;                       // `best` passed its check under the full protocol
    int64_t points_total = 0;                   // the declared space's size
    int points_tried = 0;                       // settings measured
    int points_refused = 0;                     // by constraints, launch limits or the compiler
    int points_failed = 0;                      // ran but failed (their check, a GPU error)
    bool partial = false;                       // cancelled, or the budget ran out before the plan did
    bool cancelled = false;
    double spent_s = 0;
    std::string stopped;                // why the rung could not be tuned ("" when it was)
    std::vector<std::string> refusals;  // the first few distinct reasons points were skipped
    bool tuned() const { return stopped.empty() && !best.empty() && best_ms.has_value(); }
};

TuneOutcome tune_rung(const TuneRequest& req, const MeasurePoint& measure);

// [SECTION] The space

// The number of settings the rung declares (the product of its parameters' value counts),
// saturating at INT64_MAX.
int64_t tune_space_size(const Rung& rung);
// The coarse grid the screen times first: every declared value of a parameter with at most
// `per_param` values, else that many spread evenly (the default among them); thinned further
// (every other value of the widest parameter, the default kept) until at most `max_points`.
// Ordered nearest the defaults first (steps along each parameter's value list), the defaults first.
std::vector<ParamValues> coarse_grid(const Rung& rung, size_t per_param = 8, size_t max_points = 48);

// The part of `budget_left_s` that a rung of `weight` gets when rungs of `weights_left` (its own
// included) are still to tune: in proportion, so a rung that finishes early leaves its time to
// those after it.
double rung_share(double budget_left_s, double weight, double weights_left);
// A rung's weight in that split: the points its search plans (coarse grid plus finalists).
double tune_weight(const Rung& rung);

}  // namespace kl
