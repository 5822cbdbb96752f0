// One GPU per computed figure (NumberSources::one_device_operands, bindings.h). Under a profile
// the shown GPU has its facts (SMs, L2, datasheet) but no measurements: `{{ device copy_gbps }}`
// is the preferred device's card, and a rung the shown GPU never ran is another GPU's recording.
// "copy line / SM count" would then divide the H100's copy line by the RTX 3090's SMs, a figure
// of no GPU. Such a computation is moved whole to the GPU that measured it.
#include <set>

#include "course/bindings.h"
#include "course/device_named.h"

namespace kl {

namespace {
// Facts of the device record (docs/formats.md, "Device facts"), as opposed to a card's or a
// datasheet's figures: answered from a recording of the GPU, which holds its limits.
bool one_device_is_fact(const std::string& metric) {
    static const std::set<std::string> kFacts = {
        "sm_count",    "l2_mib",          "mem_gib",           "threads_per_sm",  "warps_per_sm",       "blocks_per_sm",
        "regs_per_sm", "regs_per_thread", "threads_per_block", "smem_per_sm_kib", "smem_per_block_kib", "cc"};
    return kFacts.count(metric) > 0;
}
// A run's registers belong to its compiled code and its memory to its problem, not to the GPU it
// ran on: "blocks of this kernel per SM of the shown GPU", "this scratch against the shown GPU's
// memory" are the shown GPU's figures (docs/formats.md, launch resources).
bool one_device_is_code_figure(const Binding& o) {
    return o.target != "device" &&
           (o.metric == "regs" || o.metric == "regs_per_block" || o.metric == "peak_gib" || o.metric == "peak_mib");
}
bool one_device_pinned(const Binding& o) {
    for (const auto& [k, v] : o.keys)
        if (k == "card") return true;
    return false;
}
std::string one_device_card_stem(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const size_t dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}
}  // namespace

std::string NumberSources::shown_gpu() const { return device_gpu_name(device_ ? device_->name : preferred_device_); }

BoundValue NumberSources::resolve_device_of(const Binding& b, const std::string& gpu) const {
    if (one_device_is_fact(b.metric)) {
        const DeviceInfo* best = nullptr;
        std::string origin;
        for (const auto& [path, f] : files_)
            if (f.device && device_gpu_name(f.device->name) == gpu &&
                (!best || (!best->has_limits && f.device->has_limits)))
                best = &*f.device, origin = path;
        if (best) return resolve_fact(b, *best, origin);
    }
    for (const auto& c : cards_)
        if (device_gpu_name(c.device) == gpu) {
            Binding pinned = b;
            pinned.keys.emplace_back("card", one_device_card_stem(c.path));
            return resolve_device(pinned);
        }
    return BoundValue::failed("no recording or card of " + gpu);
}

std::string NumberSources::one_device_operands(const Binding& b, std::vector<BoundValue>* vals) const {
    const std::string shown = shown_gpu();
    std::set<std::string> run_gpus;
    std::string borrowed;  // a card figure of another GPU standing for the shown one's
    for (size_t i = 0; i < vals->size(); ++i) {
        const Binding& o = b.operands[i];
        const BoundValue& v = (*vals)[i];
        if (!v.ok || v.device.empty() || one_device_is_code_figure(o)) continue;
        if (o.target != "device")
            run_gpus.insert(device_gpu_name(v.device));
        else if (!one_device_pinned(o) && v.as_shown_device && !v.live && device_gpu_name(v.device) != shown)
            borrowed = device_gpu_name(v.device);
    }
    // The recordings fix the GPU (their figures cannot be asked of another); two of them are a
    // comparison across GPUs, which the text names.
    const std::string target = run_gpus.size() == 1 ? *run_gpus.begin() : run_gpus.empty() ? borrowed : "";
    if (target.empty() || target == shown) return "";
    std::vector<BoundValue> moved = *vals;
    bool any = false;
    for (size_t i = 0; i < moved.size(); ++i) {
        const Binding& o = b.operands[i];
        if (o.target != "device" || one_device_pinned(o) || o.metric == "name" || !moved[i].ok) continue;
        if (device_gpu_name(moved[i].device) == target) continue;
        moved[i] = resolve_device_of(o, target);
        if (!moved[i].ok) return "";  // that GPU lacks the fact: left mixed, and check-lessons says so
        any = true;
    }
    if (!any && borrowed.empty()) return "";
    *vals = std::move(moved);
    return target;
}

std::vector<std::string> NumberSources::operand_gpus(const Binding& b, const std::vector<BoundValue>& vals) const {
    std::set<std::string> gpus;
    for (size_t i = 0; i < vals.size(); ++i)
        if (vals[i].ok && !vals[i].device.empty() && !one_device_is_code_figure(b.operands[i]))
            gpus.insert(device_gpu_name(vals[i].device));
    return {gpus.begin(), gpus.end()};
}

}  // namespace kl
