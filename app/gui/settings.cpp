#include "gui/settings.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "base/paths.h"
#include "model/stopwatch_label.h"

namespace kl::gui {

using nlohmann::json;

namespace {

// A number of the file clamped to lo..hi (a hand-edited zoom of 40 is a zoom of 3, not an error).
// Clamped as a double: 1e300 cast to int directly would be undefined.
double clamped(const JsonReader& rd, const json& j, const char* key, double fallback, double lo, double hi,
               const std::string& field) {
    return std::clamp(rd.num_or(j, key, fallback, field), lo, hi);
}

// An object member, or null when absent; anything else but an object is an error.
const json* object_or_null(const JsonReader& rd, const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return nullptr;
    if (!it->is_object()) rd.fail(key, "expected an object");
    return &*it;
}

int int_element(const JsonReader& rd, const json& v, const std::string& field) {
    int64_t x = 0;
    if (!json_to_int64(v, &x) || x < INT_MIN || x > INT_MAX) rd.fail(field, "expected an integer, found " + v.dump());
    return static_cast<int>(x);
}

std::set<int> int_set(const JsonReader& rd, const json& j, const char* key, const std::string& field) {
    std::set<int> out;
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return out;
    if (!it->is_array()) rd.fail(JsonReader::join(field, key), "expected a list of integers");
    for (const json& v : *it) out.insert(int_element(rd, v, JsonReader::join(field, key)));
    return out;
}

// "answers": {"0": 1, "2": -2}: question number (the key) -> choice.
std::map<int, int> answers_of(const JsonReader& rd, const json& j, const std::string& field) {
    std::map<int, int> out;
    auto it = j.find("answers");
    if (it == j.end() || it->is_null()) return out;
    if (!it->is_object()) rd.fail(field + ".answers", "expected an object");
    for (auto a = it->begin(); a != it->end(); ++a) {
        const std::string f = field + ".answers." + a.key();
        errno = 0;
        char* end = nullptr;
        long q = std::strtol(a.key().c_str(), &end, 10);
        if (a.key().empty() || *end != '\0' || errno != 0 || q < 0 || q > INT_MAX)
            rd.fail(f, "expected a question number as the key");
        out[static_cast<int>(q)] = int_element(rd, a.value(), f);
    }
    return out;
}

void read_progress(const JsonReader& rd, const json& j, Settings* s) {
    const json* progress = object_or_null(rd, j, "progress");
    if (!progress) return;
    for (auto it = progress->begin(); it != progress->end(); ++it) {
        const std::string field = "progress." + it.key();
        if (!it->is_object()) rd.fail(field, "expected an object");
        LessonProgress p;
        p.visited_steps = int_set(rd, *it, "visited_steps", field);
        p.cards_known = int_set(rd, *it, "cards_known", field);
        p.answers = answers_of(rd, *it, field);
        s->progress[it.key()] = std::move(p);
    }
}

}  // namespace

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
                {"step_controls_height", s.controls_height},
                {"banner_collapsed", s.banner_collapsed}}},
              {"frame_overlay", s.show_frame_overlay},
              {"position", {{"lesson", s.lesson_id}, {"step", s.step}}},
              {"progress", progress},
              {"class", {{"learner", s.class_learner}, {"key", s.class_key}, {"folder", s.class_folder}}},
              {"runner", {{"stopwatch", s.stopwatch}}}};
    return j.dump(1) + "\n";
}

Settings settings_from_json_text(const std::string& text, const std::string& origin) {
    const json j = parse_json_limited(text, origin);  // depth-limited: no stack overflow
    const JsonReader rd{origin};
    if (!j.is_object()) rd.fail("(top level)", "expected an object");
    Settings s;
    s.dark = rd.str_or(j, "theme", "dark", "") != "light";
    s.zoom = static_cast<float>(clamped(rd, j, "zoom", s.zoom, 0.5, 3.0, ""));
    if (const json* w = object_or_null(rd, j, "window")) {
        s.window_width = static_cast<int>(clamped(rd, *w, "width", s.window_width, 640, kMaxWindowSide, "window"));
        s.window_height = static_cast<int>(clamped(rd, *w, "height", s.window_height, 480, kMaxWindowSide, "window"));
    }
    if (const json* l = object_or_null(rd, j, "layout")) {
        s.navigator_width =
            static_cast<float>(clamped(rd, *l, "navigator_width", s.navigator_width, 160, 600, "layout"));
        s.text_fraction = static_cast<float>(clamped(rd, *l, "text_fraction", s.text_fraction, 0.2, 0.8, "layout"));
        // 0: automatic. The older "controls_height" (250 unless dragged, saved by every run) is
        // not read: the step text would keep the 3 lines it had at 1280x720.
        s.controls_height =
            static_cast<float>(clamped(rd, *l, "step_controls_height", s.controls_height, 0, 600, "layout"));
        if (s.controls_height > 0) s.controls_height = std::max(s.controls_height, kMinControlsHeight);
        s.banner_collapsed = rd.bool_or(*l, "banner_collapsed", s.banner_collapsed, "layout");
    }
    s.show_frame_overlay = rd.bool_or(j, "frame_overlay", false, "");
    if (const json* p = object_or_null(rd, j, "position")) {
        s.lesson_id = rd.str_or(*p, "lesson", "", "position");
        s.step = static_cast<int>(clamped(rd, *p, "step", 0, 0, INT_MAX, "position"));
    }
    read_progress(rd, j, &s);
    if (const json* c = object_or_null(rd, j, "class")) {
        s.class_learner = rd.str_or(*c, "learner", "", "class");
        s.class_key = rd.str_or(*c, "key", "", "class");
        s.class_folder = rd.str_or(*c, "folder", "", "class");
    }
    if (const json* r = object_or_null(rd, j, "runner")) {  // [stopwatch]
        s.stopwatch = rd.str_or(*r, "stopwatch", kStopwatchEvents, "runner");
        if (!is_stopwatch_name(s.stopwatch))
            rd.fail("runner.stopwatch", "'" + s.stopwatch + "' is not a stopwatch (events or span)");
    }
    return s;
}

Settings load_settings(const std::string& path, std::string* warning) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return Settings{};
    try {
        // read_file refuses a FIFO, a device or a folder before reading a byte, and stops at the limit.
        return settings_from_json_text(read_file(path, kMaxSettingsBytes), path);
    } catch (const Error& e) {
        // Set aside (a link or FIFO is moved, not followed), so that the next save writes a fresh file.
        std::filesystem::rename(path, path + ".bad", ec);
        if (warning)
            *warning = std::string(e.what()) + "; " +
                       (ec ? "could not set it aside (" + ec.message() + ")" : "set aside as " + path + ".bad") +
                       ", starting with default settings";
        return Settings{};
    }
}

void save_settings(const std::string& path, const Settings& s) { write_file_atomically(path, settings_to_json(s)); }

std::string fit_window_size(int* width, int* height, int max_width, int max_height, const std::string& limit) {
    if (max_width <= 0 || max_height <= 0 || (*width <= max_width && *height <= max_height)) return "";
    const std::string asked = std::to_string(*width) + "x" + std::to_string(*height);
    *width = std::min(*width, max_width);
    *height = std::min(*height, max_height);
    return "window size " + asked + " is larger than " + limit + " (" + std::to_string(max_width) + "x" +
           std::to_string(max_height) + "); using " + std::to_string(*width) + "x" + std::to_string(*height);
}

}  // namespace kl::gui
