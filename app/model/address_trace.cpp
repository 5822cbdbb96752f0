#include "model/address_trace.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>

#include "base/errors.h"
#include "base/json_input.h"

namespace kl {

int bank_of(uint64_t shared_address) { return static_cast<int>((shared_address / 4) % kSharedBanks); }

namespace {

// Sectors and banks of one access, from its lanes' addresses alone (a file's own counts are
// never read: they are recomputed, so a trace cannot claim numbers its addresses do not give).
void measure_warp_access(WarpAccess& a) {
    std::set<uint64_t> sectors, addresses, words;
    for (const auto& addr : a.lanes) {
        if (!addr) continue;
        addresses.insert(*addr);
        const uint64_t last = *addr + static_cast<uint64_t>(std::max(a.bytes, 1)) - 1;
        for (uint64_t s = *addr / kSectorBytes; s <= last / kSectorBytes; ++s) sectors.insert(s);
        if (a.shared)
            for (uint64_t w = *addr / 4; w <= last / 4; ++w) words.insert(w);
    }
    a.sectors = static_cast<int>(sectors.size());
    const uint64_t distinct_bytes = addresses.size() * static_cast<uint64_t>(a.bytes);
    a.ideal_sectors = static_cast<int>((distinct_bytes + kSectorBytes - 1) / kSectorBytes);
    a.bank_degree = a.ideal_degree = 0;
    if (!a.shared) return;
    std::array<int, kSharedBanks> per_bank{};
    for (uint64_t w : words) ++per_bank[w % kSharedBanks];
    a.bank_degree = *std::max_element(per_bank.begin(), per_bank.end());
    a.ideal_degree = static_cast<int>((words.size() + kSharedBanks - 1) / kSharedBanks);
}

}  // namespace

std::vector<WarpAccess> group_warp_accesses(const std::vector<TraceRecord>& records,
                                            const std::vector<TracedSite>& sites) {
    std::array<std::vector<const TraceRecord*>, kWarpLanes> by_lane;
    for (const auto& r : records) {
        const uint32_t lane = r.lane_seq >> 24;
        if (lane >= kWarpLanes) throw InputError("trace record names lane " + std::to_string(lane));
        if (r.site >= sites.size()) throw InputError("trace record names site " + std::to_string(r.site));
        by_lane[lane].push_back(&r);
    }
    std::map<std::pair<int, int>, WarpAccess> groups;
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        auto& v = by_lane[lane];
        std::stable_sort(v.begin(), v.end(),
                         [](auto* x, auto* y) { return (x->lane_seq & 0xffffffu) < (y->lane_seq & 0xffffffu); });
        std::map<int, int> seen;
        for (const TraceRecord* r : v) {
            const int site = static_cast<int>(r->site);
            const int occ = seen[site]++;
            const int seq = static_cast<int>(r->lane_seq & 0xffffffu);
            auto [it, fresh] = groups.try_emplace({site, occ});
            WarpAccess& a = it->second;
            if (fresh) {
                a.site = site;
                a.occurrence = occ;
                a.store = sites[site].store;
                a.shared = sites[site].shared;
                a.bytes = sites[site].bytes;
                a.first_seq = seq;
            }
            a.first_seq = std::min(a.first_seq, seq);
            a.lanes[lane] = r->address;
        }
    }
    std::vector<WarpAccess> out;
    for (auto& [key, a] : groups) {
        measure_warp_access(a);
        out.push_back(std::move(a));
    }
    std::stable_sort(out.begin(), out.end(), [](const WarpAccess& x, const WarpAccess& y) {
        return x.first_seq != y.first_seq ? x.first_seq < y.first_seq : x.site < y.site;
    });
    return out;
}

namespace {
nlohmann::json int_map_json(const std::map<std::string, int64_t>& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : m) j[k] = v;
    return j;
}
}  // namespace

std::string address_trace_json(const AddressTrace& t) {
    using nlohmann::json;
    json j;
    j["kind"] = "address_trace";
    j["version"] = 1;
    j["ladder"] = t.ladder;
    j["rung"] = t.rung;
    j["entry"] = t.entry;
    j["dtype"] = t.dtype;
    j["params"] = int_map_json(t.params);
    j["sizes"] = int_map_json(t.sizes);
    j["block"] = t.block;
    j["warp"] = t.warp;
    j["grid"] = t.grid;
    j["block_dim"] = t.block_dim;
    j["device"] = t.device;
    j["date"] = t.date;
    j["records"] = t.records;
    j["dropped"] = t.dropped;
    j["not_traced"] = t.not_traced;
    json sites = json::array();
    for (const auto& s : t.sites)
        sites.push_back(
            {{"line", s.ptx_line}, {"store", s.store}, {"shared", s.shared}, {"bytes", s.bytes}, {"text", s.text}});
    j["sites"] = sites;
    json acc = json::array();
    for (const auto& a : t.accesses) {
        json lanes = json::array();
        for (const auto& l : a.lanes) lanes.push_back(l ? json(*l) : json(nullptr));
        acc.push_back({{"site", a.site},
                       {"occurrence", a.occurrence},
                       {"lanes", lanes},
                       {"sectors", a.sectors},
                       {"ideal_sectors", a.ideal_sectors},
                       {"bank_degree", a.bank_degree}});
    }
    j["accesses"] = acc;
    return j.dump(1) + "\n";
}

namespace {
std::array<int64_t, 3> triple_of(const JsonReader& rd, const nlohmann::json& j, const char* key, int64_t lo) {
    const auto& v = rd.need(j, key, key);
    if (!v.is_array() || v.size() != 3) rd.fail(key, "not an array of three integers");
    std::array<int64_t, 3> out{};
    for (int i = 0; i < 3; ++i)
        if (!json_to_int64(v[i], &out[i]) || out[i] < lo || out[i] > (int64_t(1) << 31))
            rd.fail(std::string(key) + "[" + std::to_string(i) + "]", "not an integer in range");
    return out;
}

std::vector<TracedSite> sites_of(const JsonReader& rd, const nlohmann::json& j) {
    const auto& v = rd.need(j, "sites", "sites");
    if (!v.is_array() || v.size() > 100000) rd.fail("sites", "not an array (of at most 100000)");
    std::vector<TracedSite> sites;
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string f = "sites[" + std::to_string(i) + "]";
        if (!v[i].is_object()) rd.fail(f, "not an object");
        TracedSite s;
        s.id = static_cast<int>(i);
        s.ptx_line = static_cast<int>(rd.integer(v[i], "line", f + ".line", 0, 1 << 30));
        s.store = rd.bool_or(v[i], "store", false, f + ".store");
        s.shared = rd.bool_or(v[i], "shared", false, f + ".shared");
        s.bytes = static_cast<int>(rd.integer(v[i], "bytes", f + ".bytes", 1, 256));
        s.text = rd.str_or(v[i], "text", "", f + ".text");
        sites.push_back(std::move(s));
    }
    return sites;
}

WarpAccess access_of(const JsonReader& rd, const nlohmann::json& v, const std::string& f,
                     const std::vector<TracedSite>& sites) {
    if (!v.is_object()) rd.fail(f, "not an object");
    WarpAccess a;
    a.site = static_cast<int>(rd.integer(v, "site", f + ".site", 0, static_cast<int64_t>(sites.size()) - 1));
    a.occurrence = static_cast<int>(rd.integer(v, "occurrence", f + ".occurrence", 0, 1 << 30));
    a.store = sites[a.site].store;
    a.shared = sites[a.site].shared;
    a.bytes = sites[a.site].bytes;
    const auto& lanes = rd.need(v, "lanes", f + ".lanes");
    if (!lanes.is_array() || lanes.size() != kWarpLanes) rd.fail(f + ".lanes", "not an array of 32 entries");
    for (int l = 0; l < kWarpLanes; ++l) {
        if (lanes[l].is_null()) continue;
        if (!lanes[l].is_number_unsigned() && !lanes[l].is_number_integer())
            rd.fail(f + ".lanes[" + std::to_string(l) + "]", "not an address (an integer) or null");
        if (lanes[l].is_number_integer() && !lanes[l].is_number_unsigned() && lanes[l].get<int64_t>() < 0)
            rd.fail(f + ".lanes[" + std::to_string(l) + "]", "negative address");
        a.lanes[l] = lanes[l].get<uint64_t>();
    }
    measure_warp_access(a);
    return a;
}
}  // namespace

AddressTrace parse_address_trace(const std::string& text, const std::string& origin) {
    const nlohmann::json j = parse_json_limited(text, origin);
    JsonReader rd{origin};
    if (!j.is_object()) rd.fail("", "not a JSON object");
    if (rd.str(j, "kind", "kind") != "address_trace") rd.fail("kind", "not \"address_trace\"");
    if (rd.integer(j, "version", "version", 1, 1) != 1) rd.fail("version", "unknown");
    AddressTrace t;
    t.ladder = rd.str(j, "ladder", "ladder");
    t.rung = rd.str(j, "rung", "rung");
    t.entry = rd.str_or(j, "entry", "", "entry");
    t.dtype = rd.str_or(j, "dtype", "", "dtype");
    t.params = rd.int_map(j, "params", "params");
    t.sizes = rd.int_map(j, "sizes", "sizes");
    t.block = triple_of(rd, j, "block", 0);
    t.warp = static_cast<int>(rd.integer(j, "warp", "warp", 0, 31));
    t.grid = triple_of(rd, j, "grid", 1);
    t.block_dim = triple_of(rd, j, "block_dim", 1);
    t.device = rd.str(j, "device", "device");
    t.date = rd.str(j, "date", "date");
    if (t.device.empty()) rd.fail("device", "empty: a trace names the GPU it was recorded on");
    if (t.date.empty()) rd.fail("date", "empty: a trace names the day it was recorded");
    t.records = static_cast<uint64_t>(rd.integer(j, "records", "records", 0, int64_t(1) << 40));
    t.dropped = static_cast<uint64_t>(rd.integer(j, "dropped", "dropped", 0, int64_t(1) << 40));
    if (const auto it = j.find("not_traced"); it != j.end() && !it->is_null()) {
        if (!it->is_array() || it->size() > 100000) rd.fail("not_traced", "not an array of strings");
        for (const auto& s : *it) {
            if (!s.is_string()) rd.fail("not_traced", "not an array of strings");
            t.not_traced.push_back(s.get<std::string>());
        }
    }
    t.sites = sites_of(rd, j);
    const auto& acc = rd.need(j, "accesses", "accesses");
    if (!acc.is_array() || acc.size() > 1000000) rd.fail("accesses", "not an array (of at most 1000000)");
    if (!acc.empty() && t.sites.empty()) rd.fail("accesses", "accesses but no sites");
    for (size_t i = 0; i < acc.size(); ++i)
        t.accesses.push_back(access_of(rd, acc[i], "accesses[" + std::to_string(i) + "]", t.sites));
    return t;
}

bool trace_matches(const AddressTrace& t, const std::string& ladder, const std::string& rung,
                   const std::map<std::string, int64_t>& params) {
    if (t.ladder != ladder || t.rung != rung) return false;
    for (const auto& [k, v] : params)
        if (auto it = t.params.find(k); it == t.params.end() || it->second != v) return false;
    return true;
}

std::string address_trace_text(const AddressTrace& t) {
    std::string out;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s/%s, block (%" PRId64 ", %" PRId64 ", %" PRId64 ") warp %d, on %s, %s\n",
                  t.ladder.c_str(), t.rung.c_str(), t.block[0], t.block[1], t.block[2], t.warp, t.device.c_str(),
                  t.date.c_str());
    out += buf;
    std::snprintf(buf, sizeof buf, "%zu warp-level accesses from %" PRIu64 " records (%" PRIu64 " dropped)\n",
                  t.accesses.size(), t.records, t.dropped);
    out += buf;
    for (size_t i = 0; i < t.accesses.size(); ++i) {
        const WarpAccess& a = t.accesses[i];
        std::snprintf(buf, sizeof buf, "\n#%zu %s.%s %d B (PTX line %d): ", i, a.store ? "st" : "ld",
                      a.shared ? "shared" : "global", a.bytes, t.sites[a.site].ptx_line);
        out += buf;
        if (a.shared)  // shared memory has banks, not sectors
            std::snprintf(buf, sizeof buf, "bank conflict degree %d (ideal %d)", a.bank_degree, a.ideal_degree);
        else
            std::snprintf(buf, sizeof buf, "%d sectors (ideal %d)", a.sectors, a.ideal_sectors);
        out += buf;
        out += "\n";
        std::vector<uint64_t> sectors;  // s0, s1, ...: the access's sectors in address order
        for (const auto& l : a.lanes)
            if (l) sectors.push_back(*l / kSectorBytes);
        std::sort(sectors.begin(), sectors.end());
        sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
        for (int l = 0; l < kWarpLanes; ++l) {
            if (!a.lanes[l]) {
                std::snprintf(buf, sizeof buf, "  %2d -%s", l, l % 4 == 3 ? "\n" : "                     ");
            } else if (a.shared) {
                std::snprintf(buf, sizeof buf, "  %2d 0x%06" PRIx64 " bank %2d%s", l, *a.lanes[l], bank_of(*a.lanes[l]),
                              l % 4 == 3 ? "\n" : "  ");
            } else {
                const auto idx =
                    std::lower_bound(sectors.begin(), sectors.end(), *a.lanes[l] / kSectorBytes) - sectors.begin();
                std::snprintf(buf, sizeof buf, "  %2d %#14" PRIx64 " s%-3d%s", l, *a.lanes[l], static_cast<int>(idx),
                              l % 4 == 3 ? "\n" : "");
            }
            out += buf;
        }
    }
    for (const auto& n : t.not_traced) out += "not traced: " + n + "\n";
    return out;
}

}  // namespace kl
