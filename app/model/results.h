// The results schema: one versioned JSON document used everywhere. The CLI writes it, the GUI
// shows it, exports read it, and recorded results under assets/recorded/ are it.
// Field by field documentation: docs/results-schema.md. Bump kResultsVersion on any change
// that an older reader would misread.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <deque>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/stats.h"
#include "model/compare.h"
#include "model/dtype.h"
#include "model/device_info.h"
#include "model/measures.h"
#include "model/occupancy.h"
#include "model/roof.h"
#include "model/timeline.h"

namespace kl {

// v3: a run's measurements as tagged values ("values": tag -> number, measures.h) instead of
// the fixed `work`, `rates` and `peak_memory_bytes` fields. v2: per-launch `resources`
// (registers, shared memory, spills, occupancy) and the device's `limits`. Files of versions 1
// and 2 still read.
constexpr int kResultsVersion = 3;
constexpr const char* kResultsSchema = "kernel-ladder/results";

// Ceilings measured on this device at first start and cached per device.
struct Calibration {
    std::string device_uuid;
    std::string measured_at;      // ISO 8601 UTC
    double copy_gbps = 0;         // device-to-device copy, bytes read + written per second / 1e9
    double sgemm_tflops = 0;      // cuBLAS fp32 (no TF32) at 4096^3
    double bf16_tflops = 0;       // cuBLAS bf16 in, fp32 accumulate, at 4096^3
    double fp32_peak_tflops = 0;  // from the clock: SMs x 128 x 2 x clock (a model, not measured)
    // The streaming kernels of the memory roof, each at its read:write mix (roof.h); empty in
    // calibrations made before the roof was (results of 2026-11-29 and earlier).
    std::vector<BandwidthPoint> bandwidth;
    bool valid() const { return copy_gbps > 0; }
};

// One kernel launch of a rung as the device saw it: the loaded kernel's attributes and the
// theoretical occupancy of its block on one SM (library launches have none).
struct LaunchResources {
    std::string entry;
    int grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    int64_t dynamic_smem_bytes = 0;
    KernelResources kernel;
    Occupancy occupancy;                       // occupancy.h's arithmetic
    std::optional<int> runtime_blocks_per_sm;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor
    int threads() const { return block[0] * block[1] * block[2]; }
};

// [tuned] Which settings a run used: "default" (the rung's defaults, said explicitly by a --tuned
// run that found none), or "tuned" (the learner's tuned settings for this GPU and source,
// model/tuned_store.h) with when they were tuned and how many points the search tried. Empty
// kind: not said (a plain run: the defaults or the caller's parameters). Additive.
struct RunSettings {
    std::string kind;  // "", "default" or "tuned"
    std::string tuned_at;
    int64_t points_tried = 0, points_total = 0;
    bool partial = false;
};

struct RunRecord {
    // What ran
    std::string ladder, rung, title, operation;
    bool reference = false;
    std::map<std::string, int64_t> params, sizes;
    DType dtype = DType::F32;
    // How it was timed
    std::string l2 = "cold";  // "cold": L2 flushed before every repetition; "warm": not
    // How a cold run flushed (KL_L2_FLUSH's names: store_last_discard, the default from sm_80;
    // write, the memset of recordings before 2026-11-29 and below sm_80); "" if warm or unknown.
    std::string l2_flush;
    int warmup = 0;
    std::optional<TimingStats> timing;
    // [stopwatch] What timed `timing` (gpu/span_stopwatch.h): "events" (CUDA events around the
    // launches; also "" in files before 2026-12-01) or "span" (the GPU's own timestamps of the
    // repetition's first start and last end). Under "span" the events' median of the same
    // repetitions is kept beside; under "events" asked for as "span", the note says why.
    std::string stopwatch;
    std::string stopwatch_note;
    double event_median_ms = 0;
    // [modes] a run that asked for a measuring mistake (run_modes.h): its name and the figure
    // the mistake gave, beside `timing` (the runner's own protocol). Additive: absent otherwise.
    std::string mode;
    std::optional<TimingStats> mode_timing;
    // [timeline] one traced repetition after timing: each kernel's start and end (CUPTI), their
    // summed time beside the event time; null with the reason when not traced. Additive.
    std::optional<Timeline> timeline;
    std::string timeline_note;
    // [clock] the SM clock measured before and after timing, flagged when it dropped. Additive.
    std::optional<ClockReport> clock;
    // What was measured and derived, by tag (measures.h: work, rates against the median time,
    // shares of the calibrated ceilings, memory taken).
    Measures values;
    std::string model_note;  // the manifest model's note beside its bytes (values: model_bytes)
    RunSettings settings;    // [tuned]
    // Correctness
    std::optional<Correctness> correctness;
    // Hardware counters (filled by the counters pass); null with a reason until measured.
    nlohmann::json counters;  // null or an object of metric -> value
    std::string counters_note = "hardware counters not collected (run with --counters)";
    std::vector<LaunchResources> resources;  // one per kernel launch (schema v2; empty before)
    // The launch the summaries show: the lowest occupancy, then the most registers.
    const LaunchResources* main_launch() const;
    // The launch of kernel `entry` in this run, or nullptr (a run of another head dimension's
    // entry, or a recording without resources).
    const LaunchResources* launch_named(const std::string& entry) const;
    // Failure, if any: kind is "compile", "input", "gpu", "fault" or "skipped".
    std::string error_kind, error;
};

struct ResultsFile {
    int version = kResultsVersion;
    std::string created;  // ISO 8601 UTC
    std::string tool;     // "kladder 0.1.0"
    std::string command;  // the command line that produced it
    std::optional<DeviceInfo> device;
    std::optional<Calibration> calibration;
    std::vector<RunRecord> runs;
    // Runs left out of this copy because their figures wait on a prediction (a figure exported
    // from the window while a step's prediction is open: report/figure_withhold.h), one line each
    // ("matmul/naive fp32 K=4096 M=4096 N=4096: until your prediction"). Empty, and not written,
    // in every other file.
    std::vector<std::string> withheld;
};

std::string iso_now_utc();

// Recorded results files by the path they were read from (a deque: NumberSources points into it).
using RecordedFiles = std::deque<std::pair<std::string, ResultsFile>>;

}  // namespace kl
