// Class mode drawn (workbook_class.cpp): the Submit panel under a step's exercise, the "Class…"
// button and its popup in the top bar, and the class window. What they show comes from
// ClassView (class_view.h): `kladder submit`'s own outcome, and the merge `kladder class merge`
// makes; nothing is judged or ranked here.
#pragma once
#include <string>

#include "gui/class_view.h"
#include "gui/settings.h"
#include "gui/ui_style.h"

namespace kl::gui {

// What Submit needs from the window this frame.
struct SubmitContext {
    std::string exercise;   // "01_first_kernel/8"; "" when the step has no exercise
    std::string source;     // the learner's file of that exercise; "" when none is open
    bool modified = false;  // the editor holds edits not saved to it
    bool gpu = false;       // the runner said hello with a GPU
    // Why there is no GPU to judge on, when the window knows ("" while the runner starts: then
    // `kladder submit` itself finds out and says so).
    std::string no_gpu;
};

void draw_submit_panel(ClassView& view, const SubmitContext& ctx, Settings& settings, bool* settings_dirty);
// The top bar's "Class…" button (width `w`) and its popup: the folder and key to open.
void draw_class_button(ClassView& view, Settings& settings, bool* settings_dirty, float w);
float class_button_width();
void draw_class_window(ClassView& view, const Fonts& fonts, bool dark);

}  // namespace kl::gui
