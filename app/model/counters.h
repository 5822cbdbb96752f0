// Hardware counters: the memory traffic a rung really caused, read from the GPU's performance
// monitors through CUPTI's range profiler (the same counters Nsight Compute reads).
//
// - The counters pass runs after timing, never during it: replay needs several runs of the
//   workload (one per pass) and profiling slows each one down.
// - Before every pass L2 is emptied of the rung's data and left holding only clean lines, the way
//   Nsight Compute's cache control leaves it, so DRAM bytes count the rung's own traffic.
// - Where counters cannot be read (no permission, a virtualized GPU, no CUPTI library, an
//   unknown chip) the record keeps counters = null and counters_note says why; timing and
//   checking go on as if counters had not been asked for.
// - CUPTI is loaded at run time (dlopen), so the programs start on machines without it.
//
// Schema of RunRecord::counters (docs/counters.md): an object of metric -> number or null,
// keyed by Nsight Compute's metric names, plus derived values: dram_bytes (read + write),
// sectors_per_request_ld and sectors_per_request_st (32-byte sectors per global request),
// threads_per_inst (active threads per executed warp instruction: 32 without divergence).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kl {

class GpuContext;
struct RunRecord;

// [SECTION] What is measured (Nsight Compute metric names; the order is the order of the schema)
const std::vector<std::string>& counter_metric_names();
// Values computed from the metrics above, in schema order: dram_bytes, sectors_per_request_ld/st,
// threads_per_inst.
const std::vector<std::string>& derived_counter_names();

// [SECTION] From raw values to the results schema (pure: no GPU, no CUPTI)
struct RawCounters {
    std::map<std::string, double> values;        // metric -> value as CUPTI evaluated it
    std::map<std::string, std::string> missing;  // metric -> why it has no value
    int passes = 0;                              // replay passes the metrics took
    std::string chip;                            // CUPTI's chip name, e.g. "GH100"
};

struct CountersReport {
    nlohmann::json counters;  // null, or an object of every metric and derived value -> number or null
    std::string note;         // how they were measured, which are missing and why; or why there are none
};

// Every name of counter_metric_names() and derived_counter_names() becomes a key. A metric with
// no value (absent from `values`, listed in `missing`, or not finite) is null and the note names
// it with its reason. Derived values are null when an input is null or a ratio has no requests.
// When no metric has a value at all, counters is null.
CountersReport counters_to_json(const RawCounters& raw);
CountersReport counters_unavailable(const std::string& reason);

// One line for the CLI: "DRAM 1073.7 MB (R 536.9 + W 536.9), L2 1074.3 MB, ..." or the note.
std::string counters_summary(const nlohmann::json& counters, const std::string& note);

// [SECTION] Why CUPTI refused (pure)
// `result` is a CUptiResult; `call` the CUPTI function that returned it. Permission and
// virtualization refusals get a sentence and where to read more (ERR_NVGPUCTRPERM).
std::string explain_cupti_result(int result, const std::string& call, const std::string& cupti_text = "");

// Thrown inside the counters code when counters cannot be read here; collect() turns it into
// the note. Never escapes CounterCollector.
struct CountersUnavailable : std::runtime_error {
    explicit CountersUnavailable(const std::string& why) : std::runtime_error(why) {}
};

// [SECTION] CUPTI on the host only (no GPU needed)
struct MetricPlan {
    std::vector<std::string> supported;              // metrics the chip can collect, in schema order
    std::map<std::string, std::string> unsupported;  // metric -> why not
    int passes = 0;                                  // replay passes for the supported ones
};
// Which metrics `chip` supports and how many replay passes they take. Throws CountersUnavailable
// when CUPTI or its host library (libnvperf_host) cannot be loaded or does not know the chip.
MetricPlan plan_metrics(const std::string& chip, const std::vector<std::string>& metrics);

// [SECTION] The counters pass on a GPU
class CounterCollector {
  public:
    explicit CounterCollector(GpuContext& gpu);
    ~CounterCollector();
    CounterCollector(const CounterCollector&) = delete;
    CounterCollector& operator=(const CounterCollector&) = delete;

    // Runs `workload` once per replay pass inside one profiling range (all its launches count),
    // with L2 emptied before each pass, and sets rec.counters and rec.counters_note. A refusal
    // by CUPTI becomes the note (and later calls answer with it at once); a fault in the
    // workload throws GpuError, as during timing.
    void collect(const std::function<void()>& workload, RunRecord& rec);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace kl
