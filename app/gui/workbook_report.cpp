// The workbook's settings saved, its log, and the report a test asks for (--report): what the
// window showed, as data.
#include "gui/workbook.h"

#include <cstdio>

#include "base/errors.h"
#include "base/paths.h"
#include "model/stopwatch_label.h"

namespace kl::gui {

void Workbook::save_settings_now() {
    if (options_.no_save) return;
    try {
        save_settings(settings_path(), settings_);
        settings_dirty_ = false;
    } catch (const Error& e) { log(std::string("settings: ") + e.what()); }
}

void Workbook::log(const std::string& line, bool error) {
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "[%7.2f s] ", t);
    runner_.log.push_back(stamp + line);
    if (runner_.log.size() > 2000) runner_.log.erase(runner_.log.begin(), runner_.log.begin() + 500);
    if (error) logged_errors_.push_back(line);
}

namespace {
// What each card of the ladder strip showed in the last frame: its state and its small line.
nlohmann::json strip_report(const Ladder* L, const std::vector<StripCard>& cards) {
    nlohmann::json strip = nlohmann::json::array();
    for (size_t i = 0; L && i < cards.size() && i < L->rungs.size(); ++i) {
        const StripCard& c = cards[i];
        const RunRecord* rec = c.run && !c.elsewhere ? &c.run->record : nullptr;
        const std::string shows = !rec                           ? "no result"
                                  : rec->error_kind == "skipped" ? "skipped"
                                  : !rec->error.empty()          ? "failed"
                                                                 : "measured";
        // "text": every figure the card printed (time, rate, source line) or what stands for them.
        const std::string text = !c.withheld.empty()
                                     ? "figures hidden " + c.withheld
                                     : c.time + (c.stopwatch_mark.empty() ? "" : " " + c.stopwatch_mark) + " | " +
                                           c.rate + " | " + c.source + " | " + c.detail;
        // [stopwatch] what timed the card's figure, and the lines its tooltip gives about it
        const bool shown = rec && c.withheld.empty() && !c.stopwatch.empty();
        strip.push_back({{"rung", L->rungs[i].id},
                         {"shows", c.withheld.empty() ? shows : "withheld"},
                         {"detail", c.detail},
                         {"text", text},
                         {"stopwatch", c.stopwatch},
                         {"stopwatch_lines", shown ? stopwatch_lines(*rec) : std::vector<std::string>{}}});
    }
    return strip;
}
}  // namespace

nlohmann::json Workbook::report() const {
    nlohmann::json j;
    j["frames"] = frame_stats_.count();
    j["renderer"] = renderer_;
    nlohmann::json during_jobs = {{"frames", job_frame_stats_.count()}};
    for (int i = 0; i < FrameStats::kStages; ++i) {
        auto st = FrameStats::Stage(i);
        std::string key = std::string("frame_") + FrameStats::stage_name(st) + "_ms";
        j[key] = {{"p50", frame_stats_.percentile(st, 50)},
                  {"p99", frame_stats_.percentile(st, 99)},
                  {"max", frame_stats_.percentile(st, 100)}};
        during_jobs[key] = {{"p50", job_frame_stats_.percentile(st, 50)},
                            {"p99", job_frame_stats_.percentile(st, 99)},
                            {"max", job_frame_stats_.percentile(st, 100)}};
    }
    j["frames_during_jobs"] = during_jobs;
    j["runner"] = {{"hello", runner_.hello},
                   {"gpu", runner_.gpu},
                   {"device", runner_.device},
                   {"no_gpu_reason", runner_.no_gpu_reason},
                   {"results", runner_.results_received},
                   {"failures", runner_.failures},
                   {"exits", runner_.exits_seen},
                   {"restarts", runner_.client ? runner_.client->restarts() : 0},
                   {"last_error", runner_.last_error},
                   {"job_active", runner_.job.has_value()},
                   {"stopwatch", settings_.stopwatch},  // [stopwatch] asked of the runner
                   {"stopwatch_note", runner_.stopwatch_note}};
    j["learner"] = learner_report();
    j["class"] = class_.report();
    j["errors_shown"] = logged_errors_;
    j["unresolved_bindings"] = text_.unresolved;  // of the step on screen: numbers the lesson could not show
    j["log"] = runner_.log;
    j["lessons"] = lessons_.size();
    nlohmann::json le = nlohmann::json::array();
    for (const auto& e : lesson_errors_) le.push_back({{"folder", e.folder}, {"message", e.message}});
    j["lesson_errors"] = le;
    j["ladder_errors"] = ladder_errors_;
    j["results_errors"] = results_errors_;
    j["banner_lines"] = laid_out_.banner_lines;
    j["layout"] = {{"window_h", laid_out_.window_h},
                   {"step_text_h", laid_out_.step_text_h},
                   {"controls_h", laid_out_.controls_h},
                   {"controls_setting", settings_.controls_height},
                   {"banner_collapsed", settings_.banner_collapsed},
                   {"device_shown", store_.preferred_device()}};
    int live = 0;
    for (const auto& r : store_.runs()) live += r.live;
    j["live_results"] = live;
    // Where the reader is and what the panels show (scripted tests check it).
    const Lesson* l = lesson();
    nlohmann::json answers = nlohmann::json::object();
    if (l && settings_.progress.count(l->id))
        for (const auto& [q, a] : settings_.progress.at(l->id).answers) answers[std::to_string(q + 1)] = a;
    j["state"] = {{"lesson", l ? l->id : ""},
                  {"step", step_ + 1},
                  {"ladder", ladder_ ? ladder_->id : ""},
                  {"rung", rung_ ? rung_->id : ""},
                  {"params", rung_ ? nlohmann::json(params_for(*rung_)) : nlohmann::json::object()},
                  {"dark", settings_.dark},
                  {"right_tab", right_tab_},
                  {"plots_tab", static_cast<int>(plots_.request.plot)},
                  {"source_tab", source_.tab},
                  {"ptx", ptx_status()},
                  {"selfcheck_tab", selfcheck_.tab},
                  {"card", selfcheck_.card + 1},
                  {"card_flipped", selfcheck_.flipped},
                  {"step_answer_shown", text_.answer_shown},
                  {"answers", answers},
                  {"navigator_width", settings_.navigator_width},
                  {"frame_overlay", settings_.show_frame_overlay},
                  {"zoom", settings_.zoom},
                  {"font_scale", fonts_.scale}};
    j["strip"] = strip_report(ladder_, strip_.cards);
    j["strip_header"] = {{"stopwatch_mixed", strip_.stopwatch_mixed},
                         {"hold", strip_.hold_ladder == (ladder_ ? ladder_->id : "") ? strip_.hold_line : ""}};
    j["plot_caption"] = plots_.built.figure.caption;
    j["reveal"] = reveal_report();  // workbook_predict.cpp
    return j;
}

}  // namespace kl::gui
