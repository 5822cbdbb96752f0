#include "course/datasheet.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "base/atomic_file.h"
#include "base/json_input.h"
#include "model/arch.h"

namespace kl {

namespace {

Datasheet datasheet_entry(const nlohmann::json& e, const JsonReader& rd, const std::string& field) {
    Datasheet d;
    if (!e.is_object()) rd.fail(field, "expected an object");
    const auto& names = rd.need(e, "reported_names", field + ".reported_names");
    if (!names.is_array() || names.empty()) rd.fail(field + ".reported_names", "expected a list of names");
    for (const auto& n : names) {
        if (!n.is_string() || n.get<std::string>().empty()) rd.fail(field + ".reported_names", "expected names");
        d.reported_names.push_back(n.get<std::string>());
    }
    d.memory_gbps = rd.num(e, "memory_gbps", field + ".memory_gbps");
    d.fp32_tflops = rd.num(e, "fp32_tflops", field + ".fp32_tflops");
    d.tensor_tflops = rd.num(e, "tensor_tflops", field + ".tensor_tflops");
    d.bf16_tflops = rd.num_or(e, "bf16_tflops", 0, field + ".bf16_tflops");
    d.tf32_tflops = rd.num_or(e, "tf32_tflops", 0, field + ".tf32_tflops");
    d.fp8_tflops = rd.num_or(e, "fp8_tflops", 0, field + ".fp8_tflops");
    d.boost_clock_mhz = rd.num(e, "boost_clock_mhz", field + ".boost_clock_mhz");
    d.source = rd.str(e, "source", field + ".source");
    for (double v : {d.memory_gbps, d.fp32_tflops, d.tensor_tflops, d.boost_clock_mhz})
        if (!(v > 0 && v < 1e6)) rd.fail(field, "figures must be positive numbers below a million");
    // Optional peaks: a GPU without the format has none (a T4 has no bf16, TF32 or fp8).
    for (const auto& [name, v] : {std::pair<const char*, double>{"bf16_tflops", d.bf16_tflops},
                                  {"tf32_tflops", d.tf32_tflops},
                                  {"fp8_tflops", d.fp8_tflops}})
        if (v < 0 || v >= 1e6) rd.fail(field + "." + name, "must be positive, or absent");
    if (d.source.size() < 8) rd.fail(field + ".source", "name where the figures come from");
    for (const auto& [k, v] : e.items())
        if (k != "reported_names" && k != "memory_gbps" && k != "fp32_tflops" && k != "tensor_tflops" &&
            k != "bf16_tflops" && k != "tf32_tflops" && k != "fp8_tflops" && k != "boost_clock_mhz" && k != "source")
            rd.fail(field + "." + k, "not a datasheet field");
    return d;
}

std::vector<Datasheet> datasheets_of_profile(const std::string& path) {
    const nlohmann::json j = parse_json_limited(read_file(path, 1 << 20), path);
    JsonReader rd{path};
    std::vector<Datasheet> out;
    if (!j.is_object() || !j.contains("datasheet")) return out;
    const auto& list = j["datasheet"];
    if (!list.is_array()) rd.fail("datasheet", "expected a list of entries");
    const std::string profile = std::filesystem::path(path).filename().string();
    const std::string name = rd.str(j, "name", "name");
    const int sm_count = static_cast<int>(rd.integer(j, "sm_count", "sm_count", 1, 1024));
    const int cc = parse_arch(rd.str(j, "arch", "arch")).cc;
    for (size_t i = 0; i < list.size(); ++i) {
        Datasheet d = datasheet_entry(list[i], rd, "datasheet[" + std::to_string(i) + "]");
        d.profile = profile;
        d.profile_name = name;
        d.sm_count = sm_count;
        d.cc = cc;
        out.push_back(std::move(d));
    }
    return out;
}

}  // namespace

std::vector<Datasheet> load_datasheets(const std::string& devices_dir) {
    std::vector<std::string> paths;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(devices_dir, ec))
        if (e.path().extension() == ".json" && e.is_regular_file(ec)) paths.push_back(e.path().string());
    std::sort(paths.begin(), paths.end());
    std::vector<Datasheet> out;
    for (const auto& p : paths)
        for (Datasheet& d : datasheets_of_profile(p)) out.push_back(std::move(d));
    return out;
}

const Datasheet* find_datasheet(const std::vector<Datasheet>& sheets, const std::string& device_name) {
    for (const auto& s : sheets)
        if (std::find(s.reported_names.begin(), s.reported_names.end(), device_name) != s.reported_names.end())
            return &s;
    for (const auto& s : sheets)
        if (s.profile_name == device_name) return &s;
    return nullptr;
}

}  // namespace kl
