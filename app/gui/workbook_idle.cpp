// What the main loop asks before it draws (gui/redraw_gate.h): whether something on screen
// moves by itself, and whether news came while the window drew nothing.
#include "gui/workbook.h"

#include <imgui.h>

namespace kl::gui {

bool Workbook::animating() const {
    // A job's progress, an export, a compile or PTX on the way; the frames a step change or
    // --view take to settle; a theme change and a run waiting for the job before it.
    // Sanitize's child is not a job: the frames keep coming until its findings are in.
    return busy() || ptx_pending() || learner_.pending_run || theme_changed_ || pending_right_tab_ >= 0 || loading() ||
           learner_.sanitize.running();
}

bool Workbook::has_news() {
    if (runner_.client && runner_.client->has_events()) return true;
    return !learner_.path.empty() && learner_.watch.differs(FileWatch::Clock::now());
}

void Workbook::record_frame(const FrameSample& sample) {
    frame_stats_.add(sample);
    if (busy()) job_frame_stats_.add(sample);
}

float Workbook::learner_tag_width() const {
    return fonts_.small->CalcTextSizeA(fonts_.small->FontSize, FLT_MAX, 0, "MINE").x + 14 * fonts_.scale;
}

float Workbook::strip_min_width() const {
    size_t n = ladder_ ? ladder_->rungs.size() : 0;
    return n ? n * strip_card_min_width() + (n - 1) * 8 * fonts_.scale : 0;
}

void Workbook::set_fonts(const Fonts& fonts) {
    fonts_ = fonts;
    plots_.built_w = 0;  // lay the plot out again with the new glyphs
    strip_.fitted_w = -1;
}

}  // namespace kl::gui
