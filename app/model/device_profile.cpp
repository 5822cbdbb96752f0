#include "model/device_profile.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "model/manifest.h"

namespace kl {

// [SECTION] What a rung needs

std::string rung_arch_refusal(const Rung& rung, int device_cc) {
    const std::string why = rung.min_arch_why.empty() ? "" : ": " + rung.min_arch_why;
    ArchName target = parse_arch(rung.arch);
    if (target.specific && device_cc > target.cc)  // newer, but "a" code runs on its own architecture only
        return arch_need_label(target.cc) + why + " (built for " + rung.arch + ", which runs on " +
               arch_family(target.cc) + " only)";
    int need = rung.min_arch.empty() ? 0 : parse_arch(rung.min_arch).cc;
    if (target.specific) need = std::max(need, target.cc);
    if (need > device_cc) return arch_need_label(need) + why;
    return "";
}

std::vector<RungPlan> plan_run_all(const Ladder& ladder, int device_cc) {
    std::vector<RungPlan> plan;
    for (const auto& r : ladder.rungs) plan.push_back({&r, rung_arch_refusal(r, device_cc)});
    return plan;
}

// [SECTION] Profile files

namespace {
using nlohmann::json;

struct ProfileReader {
    std::string origin;
    [[noreturn]] void fail(const std::string& field, const std::string& what) const {
        throw InputError(origin + ": " + field + ": " + what);
    }
    int64_t positive(const json& obj, const char* key, const std::string& prefix, bool required = true,
                     int64_t fallback = 0) const {
        const std::string field = prefix + key;
        if (!obj.contains(key)) {
            if (required) fail(field, "missing");
            return fallback;
        }
        const json& v = obj.at(key);
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > (int64_t(1) << 40))
            fail(field, "expected a non-negative integer, not " + v.dump());
        return v.get<int64_t>();
    }
};
}  // namespace

DeviceInfo device_profile_from_json_text(const std::string& text, const std::string& origin) {
    json j = parse_json_limited(text, origin);
    ProfileReader rd{origin};
    if (!j.is_object()) rd.fail("(top level)", "expected a JSON object");
    if (!j.contains("schema") || j["schema"] != "kernel-ladder/device-profile")
        rd.fail("schema", "expected \"kernel-ladder/device-profile\"");
    if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
        rd.fail("name", "expected the device's name");
    if (!j.contains("arch") || !j["arch"].is_string()) rd.fail("arch", "expected a string such as \"sm_86\"");
    ArchName arch = parse_arch(j["arch"].get<std::string>());
    if (arch.cc < 50 || arch.specific) rd.fail("arch", "'" + j["arch"].get<std::string>() + "' is not sm_50 .. sm_121");
    DeviceInfo d;
    d.name = j["name"].get<std::string>();
    d.uuid = "profile:" + d.name;
    d.cc_major = arch.cc / 10;
    d.cc_minor = arch.cc % 10;
    d.sm_count = static_cast<int>(rd.positive(j, "sm_count", ""));
    if (d.sm_count < 1 || d.sm_count > 1024) rd.fail("sm_count", "expected 1 .. 1024");
    d.l2_bytes = rd.positive(j, "l2_bytes", "");
    d.global_mem_bytes = rd.positive(j, "global_mem_bytes", "", false);
    if (!j.contains("limits") || !j["limits"].is_object()) rd.fail("limits", "missing (an object of limits)");
    const json& L = j["limits"];
    const std::string p = "limits.";
    DeviceLimits& l = d.limits;
    fill_arch_constants(l, arch.cc);
    l.warp_size = static_cast<int>(rd.positive(L, "warp_size", p, false, 32));
    l.max_threads_per_block = static_cast<int>(rd.positive(L, "max_threads_per_block", p));
    l.max_threads_per_sm = static_cast<int>(rd.positive(L, "max_threads_per_sm", p));
    l.max_blocks_per_sm = static_cast<int>(rd.positive(L, "max_blocks_per_sm", p));
    l.regs_per_sm = static_cast<int>(rd.positive(L, "regs_per_sm", p));
    l.regs_per_block = static_cast<int>(rd.positive(L, "regs_per_block", p));
    l.max_regs_per_thread = static_cast<int>(rd.positive(L, "max_regs_per_thread", p));
    l.reg_alloc_unit = static_cast<int>(rd.positive(L, "reg_alloc_unit", p, false, l.reg_alloc_unit));
    l.reg_sub_partitions = static_cast<int>(rd.positive(L, "reg_sub_partitions", p, false, l.reg_sub_partitions));
    l.smem_per_sm = rd.positive(L, "smem_per_sm", p);
    l.smem_per_block = rd.positive(L, "smem_per_block", p);
    l.smem_per_block_optin = rd.positive(L, "smem_per_block_optin", p);
    l.smem_alloc_unit = static_cast<int>(rd.positive(L, "smem_alloc_unit", p, false, l.smem_alloc_unit));
    l.reserved_smem_per_block = rd.positive(L, "reserved_smem_per_block", p, false, l.reserved_smem_per_block);
    if (l.warp_size != 32) rd.fail(p + "warp_size", "expected 32");
    for (auto [key, v] : {std::pair<const char*, int64_t>{"max_threads_per_block", l.max_threads_per_block},
                          {"max_threads_per_sm", l.max_threads_per_sm},
                          {"max_blocks_per_sm", l.max_blocks_per_sm},
                          {"regs_per_sm", l.regs_per_sm},
                          {"regs_per_block", l.regs_per_block},
                          {"max_regs_per_thread", l.max_regs_per_thread},
                          {"reg_alloc_unit", l.reg_alloc_unit},
                          {"reg_sub_partitions", l.reg_sub_partitions},
                          {"smem_alloc_unit", l.smem_alloc_unit}})
        if (v < 1) rd.fail(p + key, "must be at least 1");
    if (l.max_threads_per_sm % 32 != 0) rd.fail(p + "max_threads_per_sm", "must be a multiple of 32");
    if (l.smem_per_block > l.smem_per_block_optin) rd.fail(p + "smem_per_block", "is larger than smem_per_block_optin");
    if (l.smem_per_block_optin > l.smem_per_sm) rd.fail(p + "smem_per_block_optin", "is larger than smem_per_sm");
    d.smem_per_sm = l.smem_per_sm;
    d.smem_per_block_optin = l.smem_per_block_optin;
    d.has_limits = true;
    return d;
}

DeviceInfo load_device_profile(const std::string& path) { return device_profile_from_json_text(read_file(path), path); }

}  // namespace kl
