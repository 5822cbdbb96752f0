// The learner's tuned settings (`kladder tune` writes them; `run`, `sweep` and `serve` read them
// with --tuned): $XDG_DATA_HOME/kernel-ladder/tuned.json, outside the repository tree. One entry
// per device (name, compute capability, driver), ladder, rung, dtype and sizes, keyed by the
// rung's source hash: the SHA-256 of its source and every header it includes, as the compile
// cache reads them (include_scan.h). An entry whose source or driver changed since is stale:
// reported, never used. Format: docs/formats.md ("Tuned settings").
//
// The file is untrusted input like any other: at most kMaxTunedStoreBytes, a regular file (never
// a link), strict types, every error one line "<path>: <field>: <problem>" (InputError, exit 2).
// Written atomically (base/atomic_file.h). No CUDA.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/device_info.h"
#include "model/manifest.h"
#include "model/results.h"
#include "model/run_plan.h"

namespace kl {

constexpr int kTunedStoreVersion = 1;
constexpr long long kMaxTunedStoreBytes = 4LL << 20;
constexpr size_t kMaxTunedEntries = 10000;

struct TunedDevice {
    std::string name;  // "NVIDIA H200"
    int cc = 0;        // 90
    int driver = 0;    // the driver's CUDA version, 13000
};

struct TunedEntry {
    TunedDevice device;
    std::string ladder, rung, dtype;
    std::map<std::string, int64_t> sizes, params;
    std::string source_sha256;
    std::string tuned_at;  // ISO 8601 UTC
    int64_t points_tried = 0, points_total = 0, points_refused = 0;
    bool partial = false;  // cancelled, or the budget ended before the search's plan
    bool checked = false;  // the setting passed its check under the full protocol when tuned
    double best_ms = 0;
    std::optional<double> default_ms;
    double budget_s = 0;
};

struct TunedStore {
    std::vector<TunedEntry> entries;
};

// $XDG_DATA_HOME/kernel-ladder/tuned.json; throws InputError when that lies inside the repository.
std::string tuned_store_path();
// The store at `path`; an absent file is an empty store. Throws InputError naming the path and field.
TunedStore load_tuned_store(const std::string& path);
TunedStore tuned_store_from_json_text(const std::string& text, const std::string& origin);
std::string tuned_store_to_json_text(const TunedStore& store);
// Writes atomically, creating the folder; throws InputError with the one-line reason.
void save_tuned_store(const std::string& path, const TunedStore& store);

// Adds `e`, replacing an entry of the same device (name, compute capability), ladder, rung, dtype
// and sizes: a new tuning supersedes the old one whatever its driver or source.
void put_tuned_entry(TunedStore& store, TunedEntry e);

// What --tuned finds for one run: an entry to use, or a note saying why the defaults run.
struct TunedLookup {
    const TunedEntry* entry = nullptr;  // usable: same device, driver and source
    std::string note;                   // absent or stale, and why; "" when used as tuned
};
// Prefers an entry at exactly these sizes, else the newest of the same dtype at other sizes.
TunedLookup find_tuned(const TunedStore& store, const TunedDevice& device, const std::string& ladder,
                       const std::string& rung, const std::string& dtype, const std::map<std::string, int64_t>& sizes,
                       const std::string& source_sha256);

// What --tuned makes of one run: the options to run with (the tuned parameters under the
// asked ones: an asked --param wins), the settings its record carries, and a note for the user
// when the defaults run instead (no entry, a stale one, or tuned values that no longer resolve).
struct TunedChoice {
    RunOptions options;
    RunSettings settings;
    std::string note;
};
TunedDevice tuned_device_of(const DeviceInfo& d);
// Throws InputError only where the asked options themselves do not resolve (as a plain run would).
TunedChoice apply_tuned(const TunedStore& store, const TunedDevice& device, const Ladder& ladder, const Rung& rung,
                        const RunOptions& asked, int num_sms);

// The SHA-256 of the rung's source and every header it includes (names and contents, as the
// compile cache keys them); a Triton rung's is its .py file's. Throws InputError (unreadable).
std::string rung_source_hash(const Rung& rung);

}  // namespace kl
