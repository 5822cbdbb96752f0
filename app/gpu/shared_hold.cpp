#include "gpu/shared_hold.h"

#include <algorithm>

#include "gpu/torch_bridge.h"

namespace kl {

bool runs_torch_peer(const Rung& rung) {
    return std::any_of(rung.launches.begin(), rung.launches.end(),
                       [](const LaunchSpec& l) { return is_torch_peer_name(l.builtin); });
}

SharedHold shared_hold(Runner& runner, const std::vector<const ResolvedRun*>& runs,
                       const std::function<void(const ResolvedRun&)>& before_probe) {
    SharedHold out;
    const bool any_peer =
        std::any_of(runs.begin(), runs.end(), [](const ResolvedRun* r) { return runs_torch_peer(*r->rung); });
    if (runs.size() < 2 || !any_peer) return out;
    for (const ResolvedRun* run : runs) {
        if (!runs_torch_peer(*run->rung)) continue;
        // The checked call compiles what the peer compiles (torch.compile), so the warm-up calls
        // that set the hold see its steady dispatch, as in the real run.
        ResolvedRun probe = *run;
        probe.options.min_reps = probe.options.max_reps = 1;
        probe.options.timeline = probe.options.counters = false;
        probe.options.mode = RunMode::Normal;
        probe.options.hold_floor_us = 0;
        if (before_probe) before_probe(*run);
        const RunRecord rec = runner.run(probe);
        if (!rec.error.empty() || !rec.clock || rec.clock->hold_us <= out.us) continue;
        out.us = rec.clock->hold_us;
        out.set_by = run->rung->id;
    }
    // A Python peer's dispatch varies from call to call (on the H200 a peer's own rule asked up to a
    // third more in its timed run than in its probe): half again as long keeps the peers' own rules
    // under the shared hold, so that every rung waits the same.
    out.us = std::min(out.us * kSharedHoldMargin, 100'000.0);
    return out;
}

}  // namespace kl
