// How a rung's launches reach the GPU beyond "each launch once, in order" (the launch ladder,
// lesson 11), and the wrong ways of timing them that lesson 0 shows (run_modes.h):
//   repeat   a launch enqueued N times in a row on the stream, each waiting for the previous one
//            (`repeat = "steps"` in the manifest): N tiny dependent kernels
//   graph    the rung's launches captured once into a CUDA graph, replayed with one
//            cudaGraphLaunch per run (`graph = true`): the CPU cost of N launches paid once
//   modes    the figure a measuring mistake gives (no warm-up, host clock without
//            synchronisation, warm L2), measured next to the runner's own
// Every CUDA call is checked; errors name the rung (the runner's ScopedContext) and the call.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <cuda_runtime_api.h>

#include "base/stats.h"
#include "gpu/timing.h"
#include "model/manifest.h"
#include "model/run_modes.h"

namespace kl {

class GpuContext;

// How many times `spec` is enqueued for this problem: 1 without `repeat`; InputError naming the
// rung, the expression and its value outside 0..kMaxRepeat.
constexpr int64_t kMaxRepeat = 1 << 20;
int64_t launch_repeat(const LaunchSpec& spec, const Scope& scope, const std::string& label);

// A CUDA graph of whatever `enqueue` puts on the context's stream, captured once at
// construction (nothing runs then) and replayed by launch(). Graph and executable graph are
// destroyed on every way out.
class GraphReplay {
  public:
    GraphReplay(GpuContext& gpu, const std::function<void()>& enqueue, const std::string& label);
    ~GraphReplay();
    GraphReplay(const GraphReplay&) = delete;
    GraphReplay& operator=(const GraphReplay&) = delete;
    void launch();
    size_t nodes() const { return nodes_; }

  private:
    GpuContext& gpu_;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    size_t nodes_ = 0;
    std::string label_;
};

// The figure a measuring mistake gives, timed the wrong way on purpose:
//   NoWarmup         one launch, bracketed by events, nothing before it (call it before any
//                    other launch of the run: before the check)
//   HostClockNoSync  steady_clock read before and after the launch calls, no synchronisation
//                    between them (the stream is drained after each sample, outside the clock)
//   WarmL2           the repetition protocol of time_repetitions without the flush
//   ShortBurst       one idle second (the power controller lets the clock back up), then
//                    2 warm-up runs and exactly 20 repetitions with `flush` (call it before the
//                    runner's own timing: after 400 ms of a heavy kernel the clock is capped)
// Normal gives nullopt.
constexpr int kShortBurstReps = 20;
std::optional<TimingStats> time_wrong_way(RunMode mode, GpuContext& gpu, const RepetitionPlan& plan,
                                          const std::function<void()>& launch, L2Flush* flush = nullptr);

}  // namespace kl
