// Helpers shared by the plot tests: temporary folders, file reading, and layout inspection.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "plot/layout.h"

namespace kl::plot::testing {

// A fresh folder under the system temp dir, removed with everything in it at scope exit.
class TempDir {
  public:
    TempDir() {
        std::random_device rd;
        path_ = std::filesystem::temp_directory_path() /
                ("kl_plot_test_" + std::to_string(getpid()) + "_" + std::to_string(rd()));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    const std::filesystem::path& path() const { return path_; }
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
        return names;
    }

  private:
    std::filesystem::path path_;
};

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Every text of the layout that frames the plot (not the notes inside it), with a tag for messages.
struct TaggedText {
    std::string tag;
    TextCmd text;
};
inline std::vector<TaggedText> frame_texts(const Layout& L) {
    std::vector<TaggedText> out;
    for (const TextCmd& t : L.title) out.push_back({"title", t});
    for (const TextCmd& t : L.caption) out.push_back({"caption", t});
    auto axis = [&](const AxisLayout& a, const std::string& name) {
        for (const PlacedTick& tick : a.ticks)
            for (const TextCmd& line : tick.label) out.push_back({name + " tick label", line});
        if (a.title) out.push_back({name + " title", *a.title});
    };
    axis(L.x, "x");
    axis(L.y, "y");
    if (L.color_bar.visible) {
        axis(L.color_bar.axis, "colour bar");
        if (L.color_bar.nan_key) out.push_back({"NaN key", L.color_bar.nan_label});
    }
    if (L.legend.visible) {
        if (L.legend.title) out.push_back({"legend title", *L.legend.title});
        for (const LegendItem& item : L.legend.items) out.push_back({"legend", item.label});
    }
    return out;
}

// A box shrunk a little: touching boxes of neighbouring texts do not count as overlapping.
inline Rect shrunk(const Rect& r) { return r.inflated(-0.25); }

}  // namespace kl::plot::testing
