#include "report/handout_results.h"

#include <algorithm>
#include <filesystem>

#include "base/errors.h"
#include "base/printable.h"
#include "model/results_json.h"

namespace kl::report {

std::string results_device(const ResultsFile& file) {
    return file.device && !file.device->name.empty() ? printable(file.device->name, kDeviceNameChars)
                                                     : "unknown device";
}

namespace {
std::string file_name(const std::string& path) {
    std::string name = std::filesystem::path(path).filename().string();
    return printable(name.empty() ? path : name, kTitleChars);
}

void append_unique(std::string& list, const std::string& item, const char* separator) {
    if (item.empty() || list.find(item) != std::string::npos) return;
    list += (list.empty() ? "" : separator) + item;
}
}  // namespace

LoadedResults merge_results(std::vector<LoadedResults> files) {
    if (files.empty()) throw InputError("--results: no results file given");
    const std::string device = results_device(files.front().file);
    for (const auto& f : files)
        if (results_device(f.file) != device)
            throw InputError(files.front().path + " was measured on " + device + " but " + f.path + " on " +
                             results_device(f.file) +
                             ": a handout shows one device (merge files of one device, or ask for one handout per "
                             "device with --per-device)");
    if (files.size() == 1) return std::move(files.front());
    // Oldest first, so that the store answers with the newest run of a rung at given settings.
    std::stable_sort(files.begin(), files.end(),
                     [](const LoadedResults& a, const LoadedResults& b) { return a.file.created < b.file.created; });
    LoadedResults out;
    ResultsFile& m = out.file;
    for (const auto& f : files) {
        out.path += (out.path.empty() ? "" : " + ") + f.path;
        m.created = std::max(m.created, f.file.created);
        append_unique(m.tool, f.file.tool, "; ");
        append_unique(m.command, f.file.command, " ; ");
        if (f.file.device) m.device = f.file.device;
        if (f.file.calibration) m.calibration = f.file.calibration;
        m.runs.insert(m.runs.end(), f.file.runs.begin(), f.file.runs.end());
        out.store.add_file(f.file, f.path);
    }
    out.bytes = results_to_text(m);  // the merged file, as `kladder run --json` writes one
    return out;
}

std::vector<LoadedResults> merge_per_device(std::vector<LoadedResults> files) {
    std::vector<std::string> devices;
    std::vector<std::vector<LoadedResults>> groups;
    for (auto& f : files) {
        std::string d = results_device(f.file);
        size_t k = std::find(devices.begin(), devices.end(), d) - devices.begin();
        if (k == devices.size()) devices.push_back(d), groups.emplace_back();
        groups[k].push_back(std::move(f));
    }
    std::vector<LoadedResults> out;
    for (auto& g : groups) out.push_back(merge_results(std::move(g)));
    return out;
}

LoadedResults results_for_device(const ResultsStore& store, const std::string& device,
                                 const std::optional<DeviceInfo>& live_device) {
    std::vector<LoadedResults> parts;
    for (const auto& src : store.sources()) {
        if (src.device != device) continue;
        ResultsFile f;
        f.created = src.created;
        f.tool = src.tool;
        f.command = src.command;
        f.device = src.device_info;
        if (!f.device) f.device = DeviceInfo{}, f.device->name = device;  // named as the store knows it
        f.calibration = src.calibration;
        for (const auto& r : store.runs())
            if (!r.live && r.origin == src.path) f.runs.push_back(r.record);
        if (!f.runs.empty()) parts.push_back(results_in_memory(std::move(f), file_name(src.path)));
    }
    ResultsFile live;
    live.created = iso_now_utc();
    live.tool = "kernel-ladder (workbook)";
    live.device = live_device;
    if (!live.device) live.device = DeviceInfo{}, live.device->name = device;
    live.calibration = store.calibration();
    for (const auto& r : store.runs())
        if (r.live && r.device == device) live.runs.push_back(r.record);
    if (!live.runs.empty()) parts.push_back(results_in_memory(std::move(live), "live runs"));
    if (parts.empty()) throw InputError("no results of " + (device.empty() ? "any device" : device) + " are loaded");
    return merge_results(std::move(parts));
}

std::string measured_dates(const ResultsStore& store, const std::vector<const StoredRun*>& runs) {
    std::string first, last;
    for (const StoredRun* r : runs) {
        if (!r) continue;
        std::string date;
        if (r->live) {
            date = date_of(iso_now_utc());
        } else {
            for (const auto& src : store.sources())
                if (src.path == r->origin) date = date_of(src.created);
        }
        if (date.empty()) continue;
        if (first.empty() || date < first) first = date;
        if (last.empty() || date > last) last = date;
    }
    return first == last ? first : first + " to " + last;
}

std::string measured_dates(const ResultsStore& store) {
    std::vector<const StoredRun*> all;
    for (const auto& r : store.runs()) all.push_back(&r);
    return measured_dates(store, all);
}

}  // namespace kl::report
