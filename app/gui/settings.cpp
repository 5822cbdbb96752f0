#include "gui/settings.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/atomic_file.h"
#include "engine/json_input.h"
#include "engine/paths.h"

namespace kl::gui {

using nlohmann::json;

std::string settings_path() { return config_dir() + "/workbook.json"; }

std::string settings_to_json(const Settings& s) {
    json progress = json::object();
    for (const auto& [id, p] : s.progress) {
        json answers = json::object();
        for (const auto& [q, a] : p.answers) answers[std::to_string(q)] = a;
        progress[id] = {{"visited_steps", p.visited_steps}, {"answers", answers}, {"cards_known", p.cards_known}};
    }
    json j = {{"version", 1},
              {"theme", s.dark ? "dark" : "light"},
              {"zoom", s.zoom},
              {"window", {{"width", s.window_width}, {"height", s.window_height}}},
              {"layout",
               {{"navigator_width", s.navigator_width},
                {"text_fraction", s.text_fraction},
                {"controls_height", s.controls_height}}},
              {"frame_overlay", s.show_frame_overlay},
              {"position", {{"lesson", s.lesson_id}, {"step", s.step}}},
              {"progress", progress}};
    return j.dump(1) + "\n";
}

Settings load_settings(const std::string& path, std::string* warning) {
    Settings s;
    std::ifstream in(path);
    if (!in) return s;
    std::stringstream ss;
    ss << in.rdbuf();
    try {
        json j = kl::parse_json_limited(ss.str(), path);  // depth-limited: no stack overflow
        s.dark = j.value("theme", "dark") != "light";
        s.zoom = std::clamp(j.value("zoom", 1.0f), 0.5f, 3.0f);
        if (j.contains("window")) {
            s.window_width = std::clamp(j["window"].value("width", s.window_width), 640, 8192);
            s.window_height = std::clamp(j["window"].value("height", s.window_height), 480, 8192);
        }
        if (j.contains("layout")) {
            const json& l = j["layout"];
            s.navigator_width = std::clamp(l.value("navigator_width", s.navigator_width), 160.f, 600.f);
            s.text_fraction = std::clamp(l.value("text_fraction", s.text_fraction), 0.2f, 0.8f);
            s.controls_height = std::clamp(l.value("controls_height", s.controls_height), 120.f, 600.f);
        }
        s.show_frame_overlay = j.value("frame_overlay", false);
        if (j.contains("position")) {
            s.lesson_id = j["position"].value("lesson", "");
            s.step = std::max(0, j["position"].value("step", 0));
        }
        if (j.contains("progress") && j["progress"].is_object()) {
            for (auto it = j["progress"].begin(); it != j["progress"].end(); ++it) {
                LessonProgress p;
                const json& v = it.value();
                for (int x : v.value("visited_steps", std::vector<int>{})) p.visited_steps.insert(x);
                for (int x : v.value("cards_known", std::vector<int>{})) p.cards_known.insert(x);
                if (v.contains("answers") && v["answers"].is_object())
                    for (auto a = v["answers"].begin(); a != v["answers"].end(); ++a)
                        p.answers[std::stoi(a.key())] = a.value().get<int>();
                s.progress[it.key()] = p;
            }
        }
    } catch (const std::exception& e) {
        if (warning) *warning = path + ": ignored (" + std::string(e.what()) + "); starting with default settings";
        std::error_code ec;
        std::filesystem::rename(path, path + ".bad", ec);
        return Settings{};
    }
    return s;
}

void save_settings(const std::string& path, const Settings& s) { write_file_atomically(path, settings_to_json(s)); }

}  // namespace kl::gui
