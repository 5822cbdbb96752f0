#include "model/device_card.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/json_input.h"

namespace fs = std::filesystem;

namespace kl {

std::string device_slug(const std::string& device_name) {
    std::string s;
    for (char c : device_name) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!s.empty() && s.back() != '_')
            s += '_';
    }
    while (!s.empty() && s.back() == '_') s.pop_back();
    return s.empty() ? "unknown_device" : s;
}

namespace {

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

nlohmann::json fact(double value, const char* unit, const std::string& what) {
    return {{"value", value}, {"unit", unit}, {"what", what}};
}

nlohmann::json calibrated(const std::vector<double>& v, const char* unit, const std::string& what) {
    nlohmann::json j = fact(median_of(v), unit, "median of " + std::to_string(v.size()) + " calibrations: " + what);
    j["min"] = *std::min_element(v.begin(), v.end());
    j["max"] = *std::max_element(v.begin(), v.end());
    j["count"] = v.size();
    return j;
}

nlohmann::json card_for(const std::string& device, const std::vector<std::pair<std::string, const ResultsFile*>>& fs_) {
    // Device facts from the newest file; calibrations de-duplicated by the time they were measured.
    const ResultsFile* newest = fs_.front().second;
    for (const auto& [p, f] : fs_)
        if (f->created > newest->created) newest = f;
    const DeviceInfo& d = *newest->device;
    std::map<std::string, const Calibration*> cals;  // measured_at -> calibration
    nlohmann::json from = nlohmann::json::array();
    for (const auto& [p, f] : fs_) {
        nlohmann::json e = {{"file", fs::path(p).filename().string()}, {"created", f->created}};
        if (f->calibration && f->calibration->valid()) {
            cals[f->calibration->measured_at] = &*f->calibration;
            e["calibration_measured_at"] = f->calibration->measured_at;
        }
        from.push_back(e);
    }
    std::vector<double> copy, sgemm, bf16;
    std::string date;
    for (const auto& [at, c] : cals) {
        copy.push_back(c->copy_gbps);
        if (c->sgemm_tflops > 0) sgemm.push_back(c->sgemm_tflops);
        if (c->bf16_tflops > 0) bf16.push_back(c->bf16_tflops);
        date = std::max(date, at.substr(0, 10));
    }
    nlohmann::json values = {
        {"sm_count", fact(d.sm_count, "", "streaming multiprocessors (device properties)")},
        {"l2_mib", fact(d.l2_bytes / double(1 << 20), "MiB", "L2 cache size (device properties)")},
        {"smem_per_sm_kib", fact(d.smem_per_sm / 1024.0, "KiB", "shared memory per SM (device properties)")},
        {"smem_per_block_kib",
         fact(d.smem_per_block_optin / 1024.0, "KiB", "shared memory one block may opt in to (device properties)")},
        {"mem_gib", fact(d.global_mem_bytes / double(1 << 30), "GiB", "device memory (device properties)")},
        {"sm_clock_ghz", fact(d.sm_clock_khz / 1e6, "GHz", "peak SM clock reported by the driver")},
        {"hbm_peak_gbps",
         fact(d.dram_peak_bytes_per_s() / 1e9, "GB/s", "a model, not a measurement: 2 x memory clock x bus width / 8")},
        {"fp32_peak_tflops",
         fact(d.fp32_peak_flops() / 1e12, "TFLOP/s", "a model, not a measurement: SMs x 128 lanes x 2 x SM clock")}};
    if (!copy.empty()) values["copy_gbps"] = calibrated(copy, "GB/s", "device-to-device copy, read + write");
    if (!sgemm.empty()) values["sgemm_tflops"] = calibrated(sgemm, "TFLOP/s", "cuBLAS fp32 GEMM (no TF32) at 4096^3");
    if (!bf16.empty()) values["bf16_tflops"] = calibrated(bf16, "TFLOP/s", "cuBLAS bf16 GEMM at 4096^3");
    return {{"schema", kDeviceCardSchema},          {"version", 1}, {"device", device}, {"date", date},
            {"generated_by", "kladder make-cards"}, {"from", from}, {"values", values}};
}

}  // namespace

std::vector<std::pair<std::string, nlohmann::json>> make_device_cards(const RecordedFiles& files) {
    std::map<std::string, std::vector<std::pair<std::string, const ResultsFile*>>> by_device;
    for (const auto& [p, f] : files)
        if (f.device && !f.device->name.empty()) by_device[f.device->name].emplace_back(p, &f);
    std::vector<std::pair<std::string, nlohmann::json>> out;
    // Card file stem -> the device and one recording of it. Two names with one stem ("NVIDIA
    // H100", "nvidia-h100") would write one card over the other: refused, naming both.
    std::map<std::string, std::pair<std::string, std::string>> owner;
    for (auto& [device, list] : by_device) {
        std::sort(list.begin(), list.end());
        const std::string slug = device_slug(device);
        if (auto [it, fresh] = owner.try_emplace(slug, device, list.front().first); !fresh)
            throw InputError("devices '" + it->second.first + "' (" + it->second.second + ") and '" + device + "' (" +
                             list.front().first + ") would both be card " + slug +
                             ".json: rename the device in one of the recordings");
        out.emplace_back(slug, card_for(device, list));
    }
    return out;
}

DeviceCard load_device_card(const std::string& path) {
    DeviceCard c;
    c.path = path;
    c.doc = parse_json_limited(read_file(path), path);
    // Compared as JSON values: value("schema", "") would throw type_error on a number.
    if (!c.doc.is_object() || !c.doc.contains("schema") || c.doc["schema"] != kDeviceCardSchema)
        throw InputError(path + ": schema: expected \"" + std::string(kDeviceCardSchema) + "\"");
    if (!c.doc.contains("device") || !c.doc["device"].is_string())
        throw InputError(path + ": device: expected a string");
    if (!c.doc.contains("values") || !c.doc["values"].is_object())
        throw InputError(path + ": values: expected an object");
    for (const auto& [k, v] : c.doc["values"].items())
        if (!v.is_object() || !v.contains("value") || !v["value"].is_number() || !v.contains("unit") ||
            !v["unit"].is_string())
            throw InputError(path + ": values." + k + ": expected { value: number, unit: string, ... }");
    c.device = c.doc["device"].get<std::string>();
    c.date = c.doc.contains("date") && c.doc["date"].is_string() ? c.doc["date"].get<std::string>() : "";
    return c;
}

}  // namespace kl
