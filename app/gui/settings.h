// What the workbook remembers between sessions: theme, window and panel sizes, where the reader
// was, and progress (steps visited, self-check answers, flashcards known). Kept as JSON in
// kl::config_dir()/workbook.json, written atomically; a damaged file is set aside with a
// warning, never a crash.
#pragma once
#include <map>
#include <set>
#include <string>

namespace kl::gui {

struct LessonProgress {
    std::set<int> visited_steps;
    std::map<int, int> answers;  // self-check question -> chosen choice, or kRevealed for open questions
    std::set<int> cards_known;
    static constexpr int kRevealed = -2;
};

struct Settings {
    bool dark = true;
    float zoom = 1.0f;  // on top of the monitor's content scale
    int window_width = 1600, window_height = 960;
    float navigator_width = 270;  // pixels at zoom 1
    float text_fraction = 0.44f;  // share of the area right of the navigator given to the step text
    float controls_height = 250;  // parameters panel under the step text
    bool show_frame_overlay = false;
    std::string lesson_id;  // where the reader was
    int step = 0;
    std::map<std::string, LessonProgress> progress;  // by lesson id
};

std::string settings_path();
// Missing file: defaults. Unreadable or malformed: defaults and a one-line warning.
Settings load_settings(const std::string& path, std::string* warning);
// Throws kl::InputError naming the path when the file cannot be written.
void save_settings(const std::string& path, const Settings& s);
std::string settings_to_json(const Settings& s);

}  // namespace kl::gui
