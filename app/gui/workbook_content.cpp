// What the window opens with: the ladders, lessons and recordings loaded (errors kept as entries
// the navigator lists), the first step shown, and the --view option applied.
#include <algorithm>

#include "base/errors.h"
#include "base/paths.h"
#include "gui/workbook.h"
#include "model/manifest_load.h"

namespace kl::gui {

void Workbook::load_content() {
    ladders_ = load_all_ladders(kernels_dir(), &ladder_errors_);
    for (auto& L : ladders_) reload_learner_rungs(L.id, true);  // the learner's rungs from the workspace
    lessons_ = load_all_lessons(lessons_dir(), ladders_, &lesson_errors_);
    for (const auto& e : ladder_errors_) log("ladder manifest: " + e);
    for (const auto& e : lesson_errors_) log("lesson " + e.folder + ": " + e.message);

    // Recorded results (assets/recorded) first, then any --results files on top of them, read
    // on a worker while the first frames draw (poll_recorded takes them).
    recorded_.start(options_.no_recorded ? std::string() : assets_dir() + "/recorded", options_.results_paths);
}

void Workbook::poll_recorded() {
    if (!recorded_.ready()) return;
    finish_loading();
}

void Workbook::finish_loading() {
    if (!recorded_.running()) return;
    ParsedResults parsed = recorded_.take();
    for (auto& [file, path] : parsed.files) store_.add_file(file, path);
    for (const auto& e : parsed.recorded_errors) {
        results_errors_.push_back(e);
        log("recorded results: " + e);
    }
    for (const auto& e : parsed.option_errors) {
        results_errors_.push_back(e);
        log("--results: " + e, true);
    }

    // --compare-device: a second recorded GPU beside the first in the rung bars.
    for (const auto& d : store_.recorded_devices())
        if (!options_.compare_device.empty() && compare_device_.empty() &&
            d.find(options_.compare_device) != std::string::npos)
            compare_device_ = d;
    if (!options_.compare_device.empty() && compare_device_.empty())
        log("--compare-device: no recorded results from a device named like '" + options_.compare_device + "'", true);
    bind_step_device(step());  // the step's device, now that the recorded ones are known
}

// Where to start: the command line, else where the reader left off, else lesson 1 (or the first).
void Workbook::open_first_step() {
    int lesson = -1, step = 0;
    auto find_lesson = [&](const std::string& key) {
        for (size_t i = 0; i < lessons_.size(); ++i) {
            const Lesson& l = lessons_[i];
            std::string folder = l.dir.substr(l.dir.find_last_of('/') + 1);
            if (l.id == key || folder == key || std::to_string(l.number) == key) return int(i);
        }
        return -1;
    };
    if (!options_.lesson.empty()) {
        lesson = find_lesson(options_.lesson);
        if (lesson < 0) log("--lesson: no lesson '" + options_.lesson + "'", true);
        step = std::max(0, options_.step - 1);
    } else if (!settings_.lesson_id.empty()) {
        lesson = find_lesson(settings_.lesson_id);
        step = settings_.step;
    }
    if (lesson < 0) lesson = find_lesson("1");
    if (lesson < 0 && !lessons_.empty()) lesson = 0;
    if (lesson >= 0) select_lesson(lesson, step);
    // --param NAME=VALUE: as if the reader had set it (screenshots of a setting no step makes).
    for (const auto& a : options_.params) {
        const size_t eq = a.find('=');
        const Rung* r = rung_;
        try {
            if (eq == std::string::npos || !r || !r->find_param(a.substr(0, eq))) throw InputError("");
            params_[a.substr(0, eq)] = std::stoll(a.substr(eq + 1));
        } catch (const std::exception&) {
            log("--param: '" + a + "' is not NAME=VALUE for a parameter of the step's rung", true);
        }
    }
    if (options_.step > 0 && lesson >= 0 && options_.step > int(lessons_[lesson].steps.size()))
        log("--step: lesson " + lessons_[lesson].id + " has " + std::to_string(lessons_[lesson].steps.size()) +
                " steps",
            true);
}

// --view: the tab shown first; steps then leave the plot tab alone.
void Workbook::apply_view_option() {
    const std::string& v = options_.view;
    // The plot tabs by their names in the figure vocabulary ("plots" and "correctness" as well).
    if (auto kind = plot_kind_from_name(v == "plots" ? "bars" : v == "correctness" ? "errors" : v))
        right_tab_ = 0, plots_.request.plot = *kind;
    else if (v == "source")
        right_tab_ = 1, source_.tab = 0;
    else if (v == "diff")
        right_tab_ = 1, source_.tab = 1;
    else if (v == "ptx")
        right_tab_ = 1, source_.tab = 2;
    else if (v == "questions")
        right_tab_ = 2, selfcheck_.tab = 0;
    else if (v == "cards")
        right_tab_ = 2, selfcheck_.tab = 1;
    else if (v == "exercise")
        right_tab_ = 2, selfcheck_.tab = 2;
    else if (v == "addresses")  // the address view (address_view.h)
        right_tab_ = 4;
    else if (!v.empty())
        log("--view: unknown view '" + v + "'", true);
    view_forced_ = !v.empty();
    if (view_forced_) pending_right_tab_ = right_tab_;
}

Workbook::~Workbook() {
    if (!options_.no_save) save_settings_now();
}

}  // namespace kl::gui
