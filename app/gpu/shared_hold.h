// [hold] One stopwatch hold for every rung of a run that has PyTorch peers among its rungs.
//
// The runner's hold (app/gpu/timing.cpp) is the GPU's wait before each timed repetition: twice the
// host time the rung's warm-up calls took, so that the events bracket only GPU work. A kernel's
// host side takes microseconds and gets the 100 us floor; a PyTorch peer's Python dispatch takes
// 50-300 us and gets two to six times that. The GPU idles through the hold, so the peer started
// each repetition cooler and, on a GPU that throttles under its power cap, ran at a higher clock:
// on the H200 the rule cost the mlp's top rung about 200 MHz against eager PyTorch
// (docs/benchmarks.md, "The stopwatch's hold against the peers"). A comparison is fair only when
// both sides wait the same, so a run with peers first learns how long each peer needs (one checked,
// warmed, once-timed call of each), then holds every rung of the run that long.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gpu/runner.h"

namespace kl {

constexpr double kSharedHoldMargin = 1.5;  // the shared hold over the longest probe's

struct SharedHold {
    double us = 0;       // 0: no shared hold (no peer in the run, one rung, or no peer could run)
    std::string set_by;  // the peer whose hold it is
};

// For a run of `runs` (two or more, at least one a PyTorch peer): the longest hold any peer's
// rule gives, learned from one short run of each peer, times kSharedHoldMargin. A peer that cannot run (no PyTorch, an
// error) is left out here; its own run reports why.
// `before_probe` (the window's runner, cmd_serve.cpp) hears of each peer before its probe runs.
SharedHold shared_hold(Runner& runner, const std::vector<const ResolvedRun*>& runs,
                       const std::function<void(const ResolvedRun&)>& before_probe = nullptr);

bool runs_torch_peer(const Rung& rung);

}  // namespace kl
