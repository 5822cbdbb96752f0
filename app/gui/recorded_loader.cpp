#include "gui/recorded_loader.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "base/errors.h"
#include "model/results_json.h"

namespace kl::gui {

namespace {

ParsedResults parse_recorded(const std::string& dir, const std::vector<std::string>& extra_paths) {
    ParsedResults out;
    std::vector<std::string> files;
    std::error_code ec;
    if (!dir.empty() && std::filesystem::is_directory(dir, ec))
        for (const auto& e : std::filesystem::directory_iterator(dir, ec))
            if (e.path().extension() == ".json") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        try {
            out.files.emplace_back(load_results(f), f);
        } catch (const Error& e) { out.recorded_errors.push_back(e.what()); }
    }
    for (const auto& p : extra_paths) {
        try {
            out.files.emplace_back(load_results(p), p);
        } catch (const Error& e) { out.option_errors.push_back(e.what()); }
    }
    return out;
}

}  // namespace

void RecordedLoader::start(std::string dir, std::vector<std::string> extra_paths) {
    job_ = std::async(std::launch::async,
                      [dir = std::move(dir), paths = std::move(extra_paths)] { return parse_recorded(dir, paths); });
}

bool RecordedLoader::ready() const {
    return job_.valid() && job_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

ParsedResults RecordedLoader::take() { return job_.valid() ? job_.get() : ParsedResults{}; }

}  // namespace kl::gui
