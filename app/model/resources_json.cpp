#include "model/resources_json.h"

#include "base/errors.h"

namespace kl {

using nlohmann::json;

namespace {
json opt(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

[[noreturn]] void fail(const std::string& origin, const std::string& field, const std::string& what) {
    throw InputError(origin + ": " + field + ": " + what);
}

int64_t integer(const json& j, const char* key, const std::string& origin, const std::string& field, int64_t fallback,
                bool required) {
    if (!j.contains(key) || j.at(key).is_null()) {
        if (required) fail(origin, field + "." + key, "missing");
        return fallback;
    }
    const json& v = j.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < 0)
        fail(origin, field + "." + key, "expected a non-negative integer");
    return v.get<int64_t>();
}

void dims(const json& j, const char* key, int out[3], const std::string& origin, const std::string& field) {
    if (!j.contains(key)) return;
    const json& v = j.at(key);
    if (!v.is_array() || v.size() != 3) fail(origin, field + "." + key, "expected three integers");
    for (int i = 0; i < 3; ++i) {
        if (!v[i].is_number_integer() || v[i].get<int64_t>() < 1 || v[i].get<int64_t>() > 2147483647LL)
            fail(origin, field + "." + key, "expected three positive integers");
        out[i] = static_cast<int>(v[i].get<int64_t>());
    }
}
}  // namespace

json limits_to_json(const DeviceLimits& l) {
    return {{"warp_size", l.warp_size},
            {"max_threads_per_block", l.max_threads_per_block},
            {"max_threads_per_sm", l.max_threads_per_sm},
            {"max_blocks_per_sm", l.max_blocks_per_sm},
            {"regs_per_sm", l.regs_per_sm},
            {"regs_per_block", l.regs_per_block},
            {"max_regs_per_thread", l.max_regs_per_thread},
            {"reg_alloc_unit", l.reg_alloc_unit},
            {"reg_sub_partitions", l.reg_sub_partitions},
            {"smem_per_sm", l.smem_per_sm},
            {"smem_per_block", l.smem_per_block},
            {"smem_per_block_optin", l.smem_per_block_optin},
            {"smem_alloc_unit", l.smem_alloc_unit},
            {"reserved_smem_per_block", l.reserved_smem_per_block}};
}

const LaunchResources* RunRecord::main_launch() const {
    const LaunchResources* best = nullptr;
    for (const auto& l : resources)
        if (!best || l.occupancy.active_warps < best->occupancy.active_warps ||
            (l.occupancy.active_warps == best->occupancy.active_warps &&
             l.kernel.regs_per_thread > best->kernel.regs_per_thread))
            best = &l;
    return best;
}

const LaunchResources* RunRecord::launch_named(const std::string& entry) const {
    for (const auto& l : resources)
        if (l.entry == entry) return &l;
    return nullptr;
}

json resources_to_json(const std::vector<LaunchResources>& list) {
    json out = json::array();
    for (const auto& l : list) {
        const Occupancy& o = l.occupancy;
        auto blocks = [](int v) { return v >= Occupancy::kUnlimited ? json(nullptr) : json(v); };
        out.push_back({{"entry", l.entry},
                       {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                       {"block", {l.block[0], l.block[1], l.block[2]}},
                       {"regs_per_thread", l.kernel.regs_per_thread},
                       {"static_smem_bytes", l.kernel.static_smem_bytes},
                       {"dynamic_smem_bytes", l.dynamic_smem_bytes},
                       {"local_bytes", l.kernel.local_bytes},
                       {"max_threads_per_block", l.kernel.max_threads_per_block},
                       {"occupancy",
                        {{"blocks_per_sm", o.blocks_per_sm},
                         {"active_warps", o.active_warps},
                         {"max_warps", o.max_warps},
                         {"limiter", o.limiter},
                         {"blocks_by",
                          {{"threads", blocks(o.by_threads)},
                           {"blocks", blocks(o.by_blocks)},
                           {"registers", blocks(o.by_registers)},
                           {"shared_memory", blocks(o.by_shared_memory)}}},
                         {"regs_per_block", o.regs_per_block},
                         {"smem_per_block", o.smem_per_block},
                         {"runtime_blocks_per_sm", opt(l.runtime_blocks_per_sm)}}}});
    }
    return out;
}

DeviceLimits limits_from_json(const json& j, const std::string& origin, const std::string& field) {
    if (!j.is_object()) fail(origin, field, "expected an object");
    DeviceLimits l;
    auto i32 = [&](const char* key, int fallback) {
        return static_cast<int>(std::min<int64_t>(integer(j, key, origin, field, fallback, false), 1 << 30));
    };
    l.warp_size = i32("warp_size", l.warp_size);
    l.max_threads_per_block = i32("max_threads_per_block", l.max_threads_per_block);
    l.max_threads_per_sm = i32("max_threads_per_sm", l.max_threads_per_sm);
    l.max_blocks_per_sm = i32("max_blocks_per_sm", l.max_blocks_per_sm);
    l.regs_per_sm = i32("regs_per_sm", l.regs_per_sm);
    l.regs_per_block = i32("regs_per_block", l.regs_per_block);
    l.max_regs_per_thread = i32("max_regs_per_thread", l.max_regs_per_thread);
    l.reg_alloc_unit = i32("reg_alloc_unit", l.reg_alloc_unit);
    l.reg_sub_partitions = i32("reg_sub_partitions", l.reg_sub_partitions);
    l.smem_per_sm = integer(j, "smem_per_sm", origin, field, l.smem_per_sm, false);
    l.smem_per_block = integer(j, "smem_per_block", origin, field, l.smem_per_block, false);
    l.smem_per_block_optin = integer(j, "smem_per_block_optin", origin, field, l.smem_per_block_optin, false);
    l.smem_alloc_unit = i32("smem_alloc_unit", l.smem_alloc_unit);
    l.reserved_smem_per_block = integer(j, "reserved_smem_per_block", origin, field, l.reserved_smem_per_block, false);
    if (l.warp_size < 1 || l.max_threads_per_sm < l.warp_size || l.reg_sub_partitions < 1 || l.reg_alloc_unit < 1 ||
        l.smem_alloc_unit < 1)
        fail(origin, field, "warp size, threads per SM and allocation units must be positive");
    return l;
}

std::vector<LaunchResources> resources_from_json(const json& j, const std::string& origin, const std::string& field) {
    std::vector<LaunchResources> out;
    if (j.is_null()) return out;
    if (!j.is_array()) fail(origin, field, "expected a list");
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string f = field + "[" + std::to_string(i) + "]";
        const json& e = j[i];
        if (!e.is_object()) fail(origin, f, "expected an object");
        LaunchResources l;
        if (!e.contains("entry") || !e["entry"].is_string()) fail(origin, f + ".entry", "expected a string");
        l.entry = e["entry"].get<std::string>();
        dims(e, "grid", l.grid, origin, f);
        dims(e, "block", l.block, origin, f);
        l.kernel.regs_per_thread = static_cast<int>(integer(e, "regs_per_thread", origin, f, 0, true));
        l.kernel.static_smem_bytes = integer(e, "static_smem_bytes", origin, f, 0, true);
        l.dynamic_smem_bytes = integer(e, "dynamic_smem_bytes", origin, f, 0, true);
        l.kernel.local_bytes = integer(e, "local_bytes", origin, f, 0, true);
        l.kernel.max_threads_per_block = static_cast<int>(integer(e, "max_threads_per_block", origin, f, 0, false));
        if (l.kernel.regs_per_thread > 1024) fail(origin, f + ".regs_per_thread", "expected at most 1024");
        const json& o = e.contains("occupancy") ? e["occupancy"] : json(nullptr);
        if (!o.is_object()) fail(origin, f + ".occupancy", "expected an object");
        const std::string of = f + ".occupancy";
        Occupancy& oc = l.occupancy;
        oc.threads_per_block = l.threads();
        oc.warps_per_block = (l.threads() + 31) / 32;
        oc.blocks_per_sm = static_cast<int>(integer(o, "blocks_per_sm", origin, of, 0, true));
        oc.active_warps = static_cast<int>(integer(o, "active_warps", origin, of, 0, true));
        oc.max_warps = static_cast<int>(integer(o, "max_warps", origin, of, 0, true));
        if (oc.active_warps > oc.max_warps) fail(origin, of + ".active_warps", "is more than max_warps");
        if (!o.contains("limiter") || !o["limiter"].is_string()) fail(origin, of + ".limiter", "expected a string");
        oc.limiter = o["limiter"].get<std::string>();
        if (oc.limiter != "threads" && oc.limiter != "blocks" && oc.limiter != "registers" &&
            oc.limiter != "shared memory")
            fail(origin, of + ".limiter", "'" + oc.limiter + "' is not threads, blocks, registers or shared memory");
        oc.limiters = {oc.limiter};
        oc.regs_per_block = integer(o, "regs_per_block", origin, of, 0, false);
        oc.smem_per_block = integer(o, "smem_per_block", origin, of, 0, false);
        if (o.contains("blocks_by") && o["blocks_by"].is_object()) {
            const json& b = o["blocks_by"];
            auto by = [&](const char* key) {
                return static_cast<int>(std::min<int64_t>(
                    integer(b, key, origin, of + ".blocks_by", Occupancy::kUnlimited, false), Occupancy::kUnlimited));
            };
            oc.by_threads = by("threads");
            oc.by_blocks = by("blocks");
            oc.by_registers = by("registers");
            oc.by_shared_memory = by("shared_memory");
        }
        if (o.contains("runtime_blocks_per_sm") && !o["runtime_blocks_per_sm"].is_null())
            l.runtime_blocks_per_sm = static_cast<int>(integer(o, "runtime_blocks_per_sm", origin, of, 0, true));
        out.push_back(l);
    }
    return out;
}

}  // namespace kl
