// What a lesson can bind of a forward pass's kernels (docs/formats.md, section 3): a run's traced
// repetition (`--timeline`: launches, span_us, gap_us, traced_us, kernelN_us, kernelN_ms,
// kernelN_name) and a torch.profiler recording of the same forward (`peer/profile_mlp`: kernels,
// gpu_us, span_us, gap_us, cpu_us, launch_us, kernelN_us, kernelN_name). Kernel names are shown
// short: demangled, without "void " and the template or parameter list (an ellipsis says so).
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/results.h"
#include "model/timeline.h"

namespace kl {

// "kernel3_us" -> {3, "us"}; "kernel1_ms", "kernel2_name" alike. nullopt: not of that form (or
// N is not 1..9999).
struct KernelMetric {
    int index = 0;     // from 1, in start order
    std::string part;  // "us", "ms" or "name"
};
std::optional<KernelMetric> parse_kernel_metric(const std::string& metric);

// The run metrics a timeline answers: launches, span_us, gap_us, traced_us and kernelN_*.
bool is_timeline_metric(const std::string& metric);

// One figure of a run's traced repetition. A number in `*value`, or a kernel's short name in
// `*name`; false with the reason in *why ("the traced repetition has 3 kernels, not 5").
bool timeline_figure(const Timeline& t, const std::string& metric, double* value, std::string* name, std::string* why);

// Whether a run's timeline answers the metric: its kernel's name in *name when the metric asks
// for one; false with the rest of a sentence in *why ("has no timeline (...)", "...: the traced
// repetition holds 3 kernels, not 5").
bool timeline_answers(const RunRecord& run, const std::string& metric, std::string* name, std::string* why);

// The peer metrics of a profile entry, with their units ("" for counts).
bool is_profile_peer_metric(const std::string& metric, std::string* unit);

// One figure of a profile entry (`{"what": "profile_mlp", ...}`): the field, or kernel_list[N-1]
// for kernelN_us / kernelN_name. false with one line in *why naming the field and the value
// when the entry holds something other than what the schema says (a count that is not a
// non-negative integer, a time that is not a non-negative number, a kernel_list item without
// its name or time), or when it lacks the field.
bool profile_figure(const nlohmann::json& entry, const std::string& metric, double* value, std::string* name,
                    std::string* why);

// "_ZN2at6native29vectorized_elementwise_kernelILi4E..." -> "at::native::vectorized_elementwise_kernel…";
// "void gemm<float>(float*)" -> "gemm…"; "nvjet_tst_128x256" unchanged.
std::string short_kernel_name(const std::string& raw);

}  // namespace kl
