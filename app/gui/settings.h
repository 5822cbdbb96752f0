// What the workbook remembers between sessions: theme, window and panel sizes, where the reader
// was, and progress (steps visited, self-check answers, flashcards known). Kept as JSON in
// kl::config_dir()/workbook.json, written atomically; a damaged file is set aside with a
// warning, never a crash. The file is read only when it is a regular file of at most
// kMaxSettingsBytes (a FIFO there blocked start-up; a link to /dev/zero grew the window to
// gigabytes), nested at most 64 levels, every field typed.
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
    // The parameters panel under the step text, pixels at zoom 1, as the splitter left it; 0:
    // automatic (the step text keeps kStepTextShare of the window's height).
    float controls_height = 0;
    // The recorded-results banner as one line (the default: two lines of it cost a 1280 x 720
    // window the step text's 40%); unfolded it tells which devices are recorded and why no GPU.
    bool banner_collapsed = true;
    bool show_frame_overlay = false;
    std::string lesson_id;  // where the reader was
    int step = 0;
    std::map<std::string, LessonProgress> progress;  // by lesson id
    // Class mode (class_view.h): Submit's name and class key file, asked once; the class folder last opened.
    std::string class_learner, class_key, class_folder;
    // [stopwatch] What the runner times with: "events" (CUDA events, the default) or "span" (the GPU's
    // own timestamps through CUPTI), given to it as KL_STOPWATCH (gpu/span_stopwatch.h). Any other
    // value in the file is refused, naming the field.
    std::string stopwatch = "events";
};

constexpr float kMinControlsHeight = 96;
// The share of the window's height the step text gets by default (a 1280x720 laptop showed 3
// lines of it under 250 pixels of controls, issue 38).
constexpr float kStepTextShare = 0.4f;

// Far more than years of progress take (a few KiB per lesson).
constexpr long long kMaxSettingsBytes = 4LL << 20;
// The largest window side kept in settings or taken from --size.
constexpr int kMaxWindowSide = 8192;

std::string settings_path();
// Missing file: defaults. Unreadable (not a regular file, too large) or malformed: the file is
// set aside as PATH.bad, defaults are used, and *warning is one line naming the file.
Settings load_settings(const std::string& path, std::string* warning);
// The settings in `text`; out-of-range numbers are clamped. Throws kl::InputError
// "<origin>: <field>: <problem>" for anything else (wrong types, bad JSON, deep nesting).
Settings settings_from_json_text(const std::string& text, const std::string& origin);
// Throws kl::InputError naming the path when the file cannot be written.
void save_settings(const std::string& path, const Settings& s);
std::string settings_to_json(const Settings& s);

// Shrinks *width x *height to at most max_width x max_height (a display's work area, the GL
// framebuffer limit). Returns one line saying what was asked and what is used, naming `limit`,
// or "" when the size fits.
std::string fit_window_size(int* width, int* height, int max_width, int max_height, const std::string& limit);

}  // namespace kl::gui
