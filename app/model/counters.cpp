// The pure half of the counters: the metric list, the mapping from raw values to the results
// schema, the CLI summary line, and the reasons CUPTI gives for refusing. No CUPTI calls here
// (counters_cupti.cpp has them), so all of it is tested without a GPU.
// [SECTION] index: Metric list / Mapping to the schema / Summary line / CUPTI refusals
#include "model/counters.h"

#include <cupti_result.h>  // the CUptiResult codes only; nothing is linked from it

#include <cmath>
#include <cstdio>

namespace kl {

using nlohmann::json;

// [SECTION] Metric list

const std::vector<std::string>& counter_metric_names() {
    // Grouped by where the bytes go, then how the warps issued. All of these fit in 9 replay
    // passes on GH100; the two throughput percentages cost 4 of them, the rest share passes.
    static const std::vector<std::string> names = {
        // DRAM: what crossed the HBM interface.
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        // L2: every request that reached the L2 slices (hits and misses).
        "lts__t_bytes.sum",
        "lts__t_sectors_op_read.sum",
        "lts__t_sectors_op_write.sum",
        // L1 / global: 32-byte sectors per warp-wide request (4 is a perfectly coalesced fp32 access).
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        // Shared memory: wavefronts (passes through the 32 banks) and the extra ones conflicts cost.
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        // SMs: achieved occupancy and how busy the busiest SM pipeline was.
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        // Warp instructions executed, and the threads active in them: their ratio is 32 when no lane
        // of any warp was ever masked off, 16 when every instruction ran with half its lanes (a
        // branch that splits even and odd lanes). Hardware counters, not the SASS-patched
        // smsp__sass_* ones, which the range profiler does not collect.
        "smsp__inst_executed.sum",
        "smsp__thread_inst_executed.sum",
        // Duration of the profiled range (under profiling: not the rung's time, which timing measures).
        "gpu__time_duration.sum",
    };
    return names;
}

const std::vector<std::string>& derived_counter_names() {
    static const std::vector<std::string> names = {"dram_bytes", "sectors_per_request_ld", "sectors_per_request_st",
                                                   "threads_per_inst"};
    return names;
}

// [SECTION] Mapping to the schema

namespace {

std::string join_reasons(const std::map<std::string, std::string>& why) {
    // Metrics with the same reason are listed together: "a, b (reason); c (other reason)".
    std::map<std::string, std::string> by_reason;
    for (const auto& [metric, reason] : why) {
        std::string& list = by_reason[reason];
        list += (list.empty() ? "" : ", ") + metric;
    }
    std::string out;
    for (const auto& [reason, list] : by_reason) out += (out.empty() ? "" : "; ") + list + " (" + reason + ")";
    return out;
}

}  // namespace

CountersReport counters_to_json(const RawCounters& raw) {
    json obj = json::object();
    std::map<std::string, std::string> missing;
    int with_value = 0;
    for (const auto& name : counter_metric_names()) {
        auto v = raw.values.find(name);
        auto why = raw.missing.find(name);
        if (why != raw.missing.end()) {
            obj[name] = nullptr;
            missing[name] = why->second;
        } else if (v == raw.values.end()) {
            obj[name] = nullptr;
            missing[name] = "not collected";
        } else if (!std::isfinite(v->second)) {
            obj[name] = nullptr;
            missing[name] = "undefined for this workload (CUPTI returned " +
                            std::string(std::isnan(v->second) ? "NaN" : "infinity") + ")";
        } else {
            obj[name] = v->second;
            ++with_value;
        }
    }
    if (with_value == 0) {
        std::string why = missing.empty() ? "no metric was collected" : join_reasons(missing);
        return counters_unavailable("no hardware counter could be read: " + why);
    }

    auto value = [&](const std::string& name) -> const json& { return obj[name]; };
    auto sum = [&](const std::string& a, const std::string& b) -> json {
        if (!value(a).is_number() || !value(b).is_number()) return nullptr;
        return value(a).get<double>() + value(b).get<double>();
    };
    auto ratio = [&](const std::string& num, const std::string& den) -> json {
        if (!value(num).is_number() || !value(den).is_number() || value(den).get<double>() <= 0) return nullptr;
        return value(num).get<double>() / value(den).get<double>();
    };
    obj["dram_bytes"] = sum("dram__bytes_read.sum", "dram__bytes_write.sum");
    obj["sectors_per_request_ld"] =
        ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    obj["sectors_per_request_st"] =
        ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    // Nsight Compute's "average active threads per warp" (smsp__thread_inst_executed_per_inst_executed.ratio).
    obj["threads_per_inst"] = ratio("smsp__thread_inst_executed.sum", "smsp__inst_executed.sum");

    CountersReport out;
    out.counters = std::move(obj);
    out.note = "measured with CUPTI's range profiler" + (raw.chip.empty() ? std::string() : " on " + raw.chip) +
               " in " + std::to_string(raw.passes) + " replay pass" + (raw.passes == 1 ? "" : "es") +
               " after timing, L2 emptied before each pass";
    if (!missing.empty()) out.note += "; no value for " + join_reasons(missing);
    return out;
}

CountersReport counters_unavailable(const std::string& reason) {
    CountersReport out;
    out.counters = nullptr;
    out.note = reason.empty() ? "hardware counters unavailable (no reason given)" : reason;
    return out;
}

// [SECTION] Summary line

namespace {
std::string number(const json& j, const char* key, double scale, const char* format) {
    if (!j.contains(key) || !j.at(key).is_number()) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, j.at(key).get<double>() * scale);
    return buf;
}
}  // namespace

std::string counters_summary(const json& counters, const std::string& note) {
    if (!counters.is_object()) return note;
    return "DRAM " + number(counters, "dram_bytes", 1e-6, "%.1f") + " MB (R " +
           number(counters, "dram__bytes_read.sum", 1e-6, "%.1f") + " + W " +
           number(counters, "dram__bytes_write.sum", 1e-6, "%.1f") + "), L2 " +
           number(counters, "lts__t_bytes.sum", 1e-6, "%.1f") + " MB, sectors/request ld " +
           number(counters, "sectors_per_request_ld", 1, "%.2f") + " st " +
           number(counters, "sectors_per_request_st", 1, "%.2f") + ", smem wavefronts " +
           number(counters, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", 1, "%.0f") + " (bank conflicts " +
           number(counters, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 1, "%.0f") + "), occupancy " +
           number(counters, "sm__warps_active.avg.pct_of_peak_sustained_active", 1, "%.1f") + "%, SM throughput " +
           number(counters, "sm__throughput.avg.pct_of_peak_sustained_elapsed", 1, "%.1f") + "%, threads/inst " +
           number(counters, "threads_per_inst", 1, "%.1f") + " of 32";
}

// [SECTION] CUPTI refusals

std::string explain_cupti_result(int result, const std::string& call, const std::string& cupti_text) {
    std::string what;
    switch (result) {
        case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
            what =
                "the driver restricts GPU performance counters to administrators on this machine (ERR_NVGPUCTRPERM); "
                "an administrator can allow them for everyone (nvidia module option "
                "NVreg_RestrictProfilingToAdminUsers=0), "
                "see https://developer.nvidia.com/ERR_NVGPUCTRPERM";
            break;
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
            what =
                "this is a virtualized GPU (vGPU or passthrough without profiling support): its performance counters "
                "cannot be read";
            break;
        case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
            what = "this virtual GPU's host has not enabled profiling for it (vGPU profiling is off)";
            break;
        case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
            what = "the GPU runs in confidential-computing mode, which forbids reading performance counters";
            break;
        case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED: what = "this GPU (a CMP part) does not support profiling"; break;
        case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
            what = "this GPU is a MIG instance, which the range profiler does not support";
            break;
        case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED: what = "profiling is not supported with SLI enabled"; break;
        case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED: what = "profiling is not supported for this GPU under WSL"; break;
        case CUPTI_ERROR_HARDWARE_BUSY:
        case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
            what =
                "the performance monitors are in use by another profiler (Nsight Compute, Nsight Systems or another "
                "CUPTI client)";
            break;
        case CUPTI_ERROR_INVALID_CHIP_NAME:
            what = "this CUPTI does not know the GPU's chip (a newer CUDA toolkit may)";
            break;
        case CUPTI_ERROR_NOT_SUPPORTED:
        case CUPTI_ERROR_NOT_COMPATIBLE:
        case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
            what = "this GPU or driver does not support CUPTI's range profiler";
            break;
        case CUPTI_ERROR_NOT_INITIALIZED: what = "CUPTI could not connect to the CUDA driver"; break;
        default: break;
    }
    std::string detail =
        call + " returned " + std::to_string(result) + (cupti_text.empty() ? "" : " (" + cupti_text + ")");
    if (what.empty()) return "hardware counters unavailable: " + detail;
    return "hardware counters unavailable: " + what + " [" + detail + "]";
}

}  // namespace kl
