#include "report/results_store.h"

#include <algorithm>
#include <filesystem>

#include "base/errors.h"
#include "base/printable.h"
#include "model/results_cache.h"
#include "model/results_json.h"

namespace kl::report {

namespace fs = std::filesystem;

void ResultsStore::load_recorded_dir(const std::string& dir, std::vector<std::string>* errors) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".json") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        try {
            load_recorded_file(f);
        } catch (const Error& e) {
            if (errors) errors->push_back(e.what());
        }
    }
}

void ResultsStore::load_recorded_file(const std::string& path) { add_file(load_results_cached(path), path); }

void ResultsStore::add_file(const ResultsFile& file, const std::string& origin) {
    RecordedSource src;
    src.path = origin;
    // Shown in banners, legends and captions: capped, control characters visible (a device name
    // of a million characters once took a second a frame to lay out).
    src.device = file.device ? printable(file.device->name, kDeviceNameChars) : std::string();
    src.created = file.created;
    src.tool = file.tool;
    src.command = file.command;
    src.calibration = file.calibration;
    src.runs = file.runs.size();
    src.device_info = file.device;
    sources_.push_back(src);
    if (preferred_device_.empty()) preferred_device_ = src.device;
    for (const auto& r : file.runs) runs_.push_back({r, false, origin, src.device, ++seq_});
    ++generation_;
}

void ResultsStore::set_live_device(const std::string& device) {
    live_device_ = device;
    if (preferred_device_.empty() && sources_.empty()) set_preferred_device(device);
}

void ResultsStore::add_live(const RunRecord& record) {
    runs_.push_back({record, true, "live", live_device_, ++seq_});
    ++generation_;
}

namespace {
// A run records the size axes of its rung's operation only, and a ladder may mix operations
// (mlp's qkv rungs have no F): the run fits when each of its axes has the asked value.
bool sizes_fit(const Sizes& run, const Sizes& asked) {
    if (run.size() > asked.size()) return false;
    for (const auto& [k, v] : run)
        if (!asked.count(k) || asked.at(k) != v) return false;
    return !run.empty() || asked.empty();
}
}  // namespace

const StoredRun* ResultsStore::latest(const std::string& ladder, const std::string& rung, const Sizes& sizes,
                                      const std::string& dtype, const ParamValues* params) const {
    const StoredRun* best = nullptr;
    const StoredRun* best_exact = nullptr;
    for (const auto& r : runs_) {
        const RunRecord& x = r.record;
        if (!shown(r) || x.ladder != ladder || x.rung != rung || !sizes_fit(x.sizes, sizes) ||
            to_string(x.dtype) != dtype)
            continue;
        if (better(r, best)) best = &r;
        if (params && x.params == *params && better(r, best_exact)) best_exact = &r;
    }
    return best_exact ? best_exact : best;
}

bool ResultsStore::better(const StoredRun& a, const StoredRun* b) const {
    if (!b) return true;
    if (a.live != b->live) return a.live;  // what the learner just ran on this GPU wins
    return a.seq > b->seq;
}

bool ResultsStore::has_runs_on_preferred_device() const {
    return std::any_of(runs_.begin(), runs_.end(), [&](const StoredRun& r) { return shown(r); });
}

void ResultsStore::set_preferred_device(const std::string& device) {
    if (device == preferred_device_) return;
    preferred_device_ = device;
    ++generation_;
}

const StoredRun* ResultsStore::resources_for(const StoredRun& like) const {
    if (!like.record.resources.empty()) return &like;
    auto arch_of = [&](const std::string& device) {
        for (const auto& s : sources_)
            if (s.device == device && s.device_info && s.device_info->cc() > 0) return s.device_info->cc();
        return -1;
    };
    const int arch = arch_of(like.device);
    if (arch < 0) return nullptr;
    const StoredRun* best = nullptr;
    for (const auto& r : runs_) {
        const RunRecord& x = r.record;
        if (x.resources.empty() || x.ladder != like.record.ladder || x.rung != like.record.rung ||
            x.params != like.record.params || x.dtype != like.record.dtype || arch_of(r.device) != arch)
            continue;
        if (!best || r.seq > best->seq) best = &r;
    }
    return best;
}

std::vector<std::string> ResultsStore::recorded_devices() const {
    std::vector<std::string> out;
    for (const auto& s : sources_)
        if (!s.device.empty() && std::find(out.begin(), out.end(), s.device) == out.end()) out.push_back(s.device);
    return out;
}

std::vector<std::string> ResultsStore::devices() const {
    std::vector<std::string> out = recorded_devices();
    if (!live_device_.empty() && std::find(out.begin(), out.end(), live_device_) == out.end())
        out.insert(out.begin(), live_device_);
    return out;
}

const StoredRun* ResultsStore::latest_on(const std::string& device, const std::string& ladder, const std::string& rung,
                                         const Sizes& sizes, const std::string& dtype,
                                         const ParamValues* params) const {
    const StoredRun* best = nullptr;
    const StoredRun* best_exact = nullptr;
    for (const auto& r : runs_) {
        const RunRecord& x = r.record;
        if (r.device != device || x.ladder != ladder || x.rung != rung || !sizes_fit(x.sizes, sizes) ||
            to_string(x.dtype) != dtype)
            continue;
        if (!best || r.seq > best->seq) best = &r;
        if (params && x.params == *params && (!best_exact || r.seq > best_exact->seq)) best_exact = &r;
    }
    return best_exact ? best_exact : best;
}

const StoredRun* ResultsStore::latest_any(const std::string& ladder, const std::string& rung) const {
    const StoredRun* best = nullptr;
    for (const auto& r : runs_)
        if (shown(r) && r.record.ladder == ladder && r.record.rung == rung && better(r, best)) best = &r;
    return best;
}

std::optional<int64_t> axis_value(const RunRecord& r, const std::string& axis) {
    if (auto it = r.sizes.find(axis); it != r.sizes.end()) return it->second;
    if (auto it = r.params.find(axis); it != r.params.end()) return it->second;
    return std::nullopt;
}

std::vector<const StoredRun*> ResultsStore::sweep(const std::string& ladder, const std::string& rung,
                                                  const std::string& axis, const Sizes& sizes,
                                                  const ParamValues& params, const std::string& dtype,
                                                  const std::vector<std::string>& tie) const {
    auto tied = [&](const std::string& k) { return std::find(tie.begin(), tie.end(), k) != tie.end(); };
    std::map<int64_t, const StoredRun*> by_value;
    for (const auto& r : runs_) {
        const RunRecord& x = r.record;
        if (!shown(r) || x.ladder != ladder || x.rung != rung || to_string(x.dtype) != dtype || !x.timing) continue;
        auto v = axis_value(x, axis);
        if (!v) continue;
        bool same = true;
        for (const auto& [k, val] : sizes)
            if (k != axis) same &= x.sizes.count(k) && x.sizes.at(k) == (tied(k) ? *v : val);
        for (const auto& [k, val] : params)
            if (k != axis) same &= x.params.count(k) && x.params.at(k) == val;
        if (!same) continue;
        auto& slot = by_value[*v];
        if (better(r, slot)) slot = &r;
    }
    std::vector<const StoredRun*> out;
    for (const auto& [v, r] : by_value) out.push_back(r);
    return out;
}

std::optional<Calibration> ResultsStore::calibration() const {
    if (live_calibration_ && live_calibration_->valid() && live_device_ == preferred_device_) return live_calibration_;
    for (auto it = sources_.rbegin(); it != sources_.rend(); ++it)
        if (it->calibration && it->calibration->valid() && it->device == preferred_device_) return it->calibration;
    return std::nullopt;  // another device's roof under this device's bars would mislead
}

}  // namespace kl::report
