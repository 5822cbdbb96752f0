#include "model/tuned_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "base/paths.h"
#include "base/sha256.h"
#include "model/include_scan.h"
#include "model/workspace.h"

namespace kl {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kSchema = "kernel-ladder/tuned";
constexpr size_t kMaxNameChars = 200;
constexpr size_t kMaxMapEntries = 64;

std::string short_str(const JsonReader& rd, const json& j, const char* key, const std::string& field) {
    std::string s = rd.str(j, key, field);
    if (s.size() > kMaxNameChars)
        rd.fail(JsonReader::join(field, key), "longer than " + std::to_string(kMaxNameChars) + " characters");
    return s;
}

std::map<std::string, int64_t> small_map(const JsonReader& rd, const json& j, const char* key, const std::string& field,
                                         int64_t lo) {
    std::map<std::string, int64_t> m = rd.int_map(j, key, field);
    if (m.size() > kMaxMapEntries) rd.fail(JsonReader::join(field, key), "more than 64 entries");
    for (const auto& [k, v] : m)
        if (k.empty() || k.size() > kMaxNameChars || v < lo)
            rd.fail(JsonReader::join(field, key) + "." + k.substr(0, 40),
                    k.empty() || k.size() > kMaxNameChars ? "not a name" : "out of range");
    return m;
}

double time_ms(const JsonReader& rd, const json& j, const char* key, const std::string& field) {
    const double v = rd.num(j, key, field);
    if (v < 0) rd.fail(JsonReader::join(field, key), "negative");
    return v;
}

TunedEntry entry_from_json(const JsonReader& rd, const json& j, const std::string& f) {
    if (!j.is_object()) rd.fail(f, "expected an object");
    TunedEntry e;
    const json& d = rd.need(j, "device", f);
    e.device.name = short_str(rd, d, "name", f + ".device");
    e.device.cc = static_cast<int>(rd.integer(d, "cc", f + ".device", 0, 10000));
    e.device.driver = static_cast<int>(rd.integer(d, "driver", f + ".device", 0, 1000000));
    e.ladder = short_str(rd, j, "ladder", f);
    e.rung = short_str(rd, j, "rung", f);
    e.dtype = short_str(rd, j, "dtype", f);
    e.sizes = small_map(rd, j, "sizes", f, 0);
    e.params = small_map(rd, j, "params", f, INT64_MIN);
    e.source_sha256 = rd.str(j, "source_sha256", f);
    if (e.source_sha256.size() != 64 || e.source_sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
        rd.fail(f + ".source_sha256", "not 64 lowercase hex digits");
    e.tuned_at = short_str(rd, j, "tuned_at", f);
    e.points_tried = rd.integer(j, "points_tried", f, 0, INT64_MAX);
    e.points_total = rd.integer(j, "points_total", f, 0, INT64_MAX);
    e.points_refused = rd.int_or(j, "points_refused", 0, f, 0, INT64_MAX);
    e.partial = rd.bool_or(j, "partial", false, f);
    e.checked = rd.bool_or(j, "checked", false, f);
    e.best_ms = time_ms(rd, j, "best_ms", f);
    if (j.contains("default_ms") && !j["default_ms"].is_null()) e.default_ms = time_ms(rd, j, "default_ms", f);
    e.budget_s = rd.num_or(j, "budget_s", 0, f);
    return e;
}

json entry_to_json(const TunedEntry& e) {
    json j = {{"device", {{"name", e.device.name}, {"cc", e.device.cc}, {"driver", e.device.driver}}},
              {"ladder", e.ladder},
              {"rung", e.rung},
              {"dtype", e.dtype},
              {"sizes", e.sizes},
              {"params", e.params},
              {"source_sha256", e.source_sha256},
              {"tuned_at", e.tuned_at},
              {"points_tried", e.points_tried},
              {"points_total", e.points_total},
              {"points_refused", e.points_refused},
              {"partial", e.partial},
              {"checked", e.checked},
              {"best_ms", e.best_ms},
              {"budget_s", e.budget_s}};
    j["default_ms"] = e.default_ms ? json(*e.default_ms) : json(nullptr);
    return j;
}

std::string sizes_text(const std::map<std::string, int64_t>& sizes) {
    std::string s;
    for (const auto& [k, v] : sizes) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return s;
}

}  // namespace

std::string tuned_store_path() {
    const std::string path = data_dir() + "/tuned.json";
    check_outside_repository(path);
    return path;
}

TunedStore tuned_store_from_json_text(const std::string& text, const std::string& origin) {
    const json doc = parse_json_limited(text, origin);
    JsonReader rd{origin};
    if (!doc.is_object()) rd.fail("(top level)", "expected an object");
    if (rd.str(doc, "schema", "") != kSchema) rd.fail("schema", std::string("expected \"") + kSchema + "\"");
    const int64_t version = rd.integer(doc, "version", "", 1, INT32_MAX);
    if (version > kTunedStoreVersion)
        rd.fail("version", std::to_string(version) + " is newer than this program reads (" +
                               std::to_string(kTunedStoreVersion) + "): tune again or update kladder");
    const json& entries = rd.need(doc, "entries", "");
    if (!entries.is_array()) rd.fail("entries", "expected an array");
    if (entries.size() > kMaxTunedEntries) rd.fail("entries", "more than 10000 entries");
    TunedStore store;
    for (size_t i = 0; i < entries.size(); ++i)
        store.entries.push_back(entry_from_json(rd, entries[i], "entries[" + std::to_string(i) + "]"));
    return store;
}

TunedStore load_tuned_store(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return {};  // none yet
    if (S_ISLNK(st.st_mode)) throw InputError(path + ": a symbolic link; the tuned settings must be a plain file");
    return tuned_store_from_json_text(read_file(path, kMaxTunedStoreBytes), path);
}

std::string tuned_store_to_json_text(const TunedStore& store) {
    std::string out = std::string("{\"schema\": \"") + kSchema +
                      "\", \"version\": " + std::to_string(kTunedStoreVersion) + ",\n \"entries\": [";
    for (size_t i = 0; i < store.entries.size(); ++i)
        out += std::string(i ? ",\n  " : "\n  ") + entry_to_json(store.entries[i]).dump();
    return out + "\n]}\n";
}

void save_tuned_store(const std::string& path, const TunedStore& store) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    write_file_atomically(path, tuned_store_to_json_text(store));
}

void put_tuned_entry(TunedStore& store, TunedEntry e) {
    auto& v = store.entries;
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const TunedEntry& o) {
                               return o.device.name == e.device.name && o.device.cc == e.device.cc &&
                                      o.ladder == e.ladder && o.rung == e.rung && o.dtype == e.dtype &&
                                      o.sizes == e.sizes;
                           }),
            v.end());
    v.push_back(std::move(e));
}

TunedLookup find_tuned(const TunedStore& store, const TunedDevice& device, const std::string& ladder,
                       const std::string& rung, const std::string& dtype, const std::map<std::string, int64_t>& sizes,
                       const std::string& source_sha256) {
    const TunedEntry* found = nullptr;
    for (const auto& e : store.entries) {
        if (e.device.name != device.name || e.device.cc != device.cc || e.ladder != ladder || e.rung != rung ||
            e.dtype != dtype)
            continue;
        const bool exact = e.sizes == sizes, found_exact = found && found->sizes == sizes;
        if (!found || (exact && !found_exact) || (exact == found_exact && e.tuned_at > found->tuned_at)) found = &e;
    }
    TunedLookup out;
    const std::string what = ladder + "/" + rung + " " + dtype;
    if (!found) {
        out.note = "no tuned settings for " + what + " on this GPU: running the defaults (kladder tune " + ladder +
                   " --rung " + rung + ")";
    } else if (found->source_sha256 != source_sha256) {
        out.note = "the tuned settings for " + what + " are stale: its source changed since " + found->tuned_at +
                   "; running the defaults (tune again)";
    } else if (found->device.driver != device.driver) {
        out.note = "the tuned settings for " + what + " are stale: tuned under driver " +
                   std::to_string(found->device.driver) + ", this GPU runs " + std::to_string(device.driver) +
                   "; running the defaults (tune again)";
    } else {
        out.entry = found;
        if (found->sizes != sizes) out.note = "tuned at " + sizes_text(found->sizes);
    }
    return out;
}

TunedDevice tuned_device_of(const DeviceInfo& d) { return {d.name, d.cc(), d.driver_version}; }

TunedChoice apply_tuned(const TunedStore& store, const TunedDevice& device, const Ladder& ladder, const Rung& rung,
                        const RunOptions& asked, int num_sms) {
    TunedChoice out{asked, {}, ""};
    out.settings.kind = "default";
    const Problem problem = resolve_problem(ladder, rung, asked);
    std::string hash;
    try {
        hash = rung_source_hash(rung);
    } catch (const InputError& e) {
        out.note = "the tuned settings of " + ladder.id + "/" + rung.id + " cannot be checked (" + e.what() +
                   "): running the defaults";
        return out;
    }
    const TunedLookup found =
        find_tuned(store, device, ladder.id, rung.id, to_string(problem.dtype), problem.sizes, hash);
    out.note = found.note;
    if (!found.entry) return out;
    RunOptions tuned = asked;
    bool overridden = false;
    for (const auto& [name, value] : found.entry->params) {
        if (!rung.find_param(name)) continue;  // a parameter the manifest no longer declares
        auto it = asked.params.find(name);
        if (it == asked.params.end()) tuned.params[name] = value;
        overridden = overridden || (it != asked.params.end() && it->second != value);
    }
    try {
        resolve_run(ladder, rung, tuned, num_sms);
    } catch (const InputError& e) {
        out.note = "the tuned settings of " + ladder.id + "/" + rung.id + " do not apply here (" + e.what() +
                   "): running the defaults";
        return out;
    }
    out.options = tuned;
    out.settings = {overridden ? "" : "tuned", found.entry->tuned_at, found.entry->points_tried,
                    found.entry->points_total, found.entry->partial};
    return out;
}

std::string rung_source_hash(const Rung& rung) {
    Sha256 h;
    h.update("kladder rung source 1\n");
    auto field = [&](const char* tag, const std::string& value) {
        h.update(tag).update(" ").update(std::to_string(value.size())).update("\n").update(value).update("\n");
    };
    if (rung.source_path.empty()) return h.hex();  // a library rung: no source of its own
    if (rung.is_triton()) {
        field("source", read_file(rung.source_path));
        return h.hex();
    }
    const ScannedSource src = scan_source(rung.source_path, rung_include_search(rung.source_path));
    field("source", src.text);
    std::vector<const IncludedFile*> headers;
    for (const auto& header : src.headers) headers.push_back(&header);
    std::sort(headers.begin(), headers.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const IncludedFile* header : headers) {
        field("header", header->name);
        field("text", header->text);
    }
    return h.hex();
}

}  // namespace kl
