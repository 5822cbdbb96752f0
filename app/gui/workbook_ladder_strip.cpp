// The ladder strip: every rung of the current ladder in order, as cards with the rung's colour
// (the same one every plot uses), its last result at the current settings, and pass/fail. The
// step's rung is highlighted; clicking a card makes it the rung the controls act on.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "gui/plot_imgui.h"
#include "gui/widgets.h"
#include "gui/workbook.h"
#include "model/stopwatch_label.h"
#include "plot/ticks.h"

namespace kl::gui {

namespace {

std::string format_ms(double ms) {
    char b[32];
    if (ms < 1.0)
        std::snprintf(b, sizeof b, "%.1f \xC2\xB5s", ms * 1000.0);
    else if (ms < 100.0)
        std::snprintf(b, sizeof b, "%.3f ms", ms);
    else
        std::snprintf(b, sizeof b, "%.0f ms", ms);
    return b;
}

// "40 regs · 75% occupancy (registers)" of the launch with the lowest occupancy, or "".
std::string resources_short(const RunRecord& rec) {
    const LaunchResources* l = rec.main_launch();
    if (!l) return "";
    return std::to_string(l->kernel.regs_per_thread) + " regs \xC2\xB7 " +
           plot::format_value(100.0 * l->occupancy.fraction(), 2) + "% occ.";
}

// Registers, shared memory, spills and occupancy of every launch, for the tooltip.
std::string resources_long(const RunRecord& rec) {
    std::string t;
    for (const auto& l : rec.resources) {
        const Occupancy& o = l.occupancy;
        t += "\n" + l.entry + ": " + std::to_string(l.threads()) + " threads, " +
             std::to_string(l.kernel.regs_per_thread) + " registers/thread, shared " +
             std::to_string(l.kernel.static_smem_bytes) + " B static + " + std::to_string(l.dynamic_smem_bytes) +
             " B dynamic, " + std::to_string(l.kernel.local_bytes) + " B local (spills)\n    " +
             std::to_string(o.blocks_per_sm) + " blocks/SM, " + std::to_string(o.active_warps) + " of " +
             std::to_string(o.max_warps) + " warps (" + plot::format_value(100.0 * o.fraction(), 3) +
             "%), limited by " + o.limiter;
        if (rec.resources.size() > 4 && &l == &rec.resources[3]) {
            t += "\n... " + std::to_string(rec.resources.size() - 4) + " more launches";
            break;
        }
    }
    return t.empty() ? t : "\n\nResources (per launch):" + t;
}

// Everything a card knows, for its tooltip.
std::string card_tooltip(const Rung& r, bool usable, const std::string& dtype, const StripCard& card,
                         const ResultsStore& store) {
    const std::string mark = r.reference_mark();
    std::string tip = r.title + (mark.empty() ? "" : "  (" + mark + ")") + "\n" + r.idea;
    if (!usable) tip += "\nNot available in " + dtype + ".";
    const StoredRun* run = card.run;
    if (run && !card.withheld.empty()) {  // predict, then reveal (course/reveal.h)
        tip += "\n\nIts figures are hidden " + card.withheld + ".";
    } else if (run && !card.elsewhere && run->record.error.empty() && run->record.timing) {
        const RunRecord& rec = run->record;
        tip += "\n\nmedian " + format_ms(rec.timing->median_ms) + " (min " + format_ms(rec.timing->min_ms) + ", max " +
               format_ms(rec.timing->max_ms) + ", " + std::to_string(rec.timing->reps) + " reps, L2 " + rec.l2 + ")";
        tip += "\n" + plot::format_value(rec.values.num(tag::gbps), 4) + " GB/s, " +
               plot::format_value(rec.values.num(tag::tflops), 3) + " TFLOP/s";
        // The card's share in full ("7.5x cuBLAS fp32"): a laptop's card cuts it short.
        if (const size_t dot = card.rate.find(" \xC2\xB7 "); dot != std::string::npos)
            tip += ", " + card.rate.substr(dot + 4);
        if (rec.correctness) tip += "\n" + rec.correctness->summary();
        std::string params;
        for (const auto& [k, v] : rec.params) params += (params.empty() ? "" : ", ") + k + " = " + std::to_string(v);
        if (!params.empty()) tip += "\nparameters: " + params;
        if (rec.settings.kind == "tuned")  // [tuned]
            tip += "\nsettings: tuned on this GPU " + rec.settings.tuned_at.substr(0, 16) + ", best of " +
                   std::to_string(rec.settings.points_tried) + " of " + std::to_string(rec.settings.points_total) +
                   " points" + (rec.settings.partial ? " (partial search)" : "");
        else if (rec.settings.kind == "default")
            tip += "\nsettings: the defaults (no valid tuned settings for this GPU and source)";
        else
            tip += "\nsettings: as set (the defaults and the sliders)";
        tip += "\n" + (run->live ? std::string("measured live") : "recorded: " + run->origin);
        if (!run->device.empty()) tip += " (" + run->device + ")";
        for (const auto& line : stopwatch_lines(rec)) tip += "\n" + line;  // [stopwatch]
        if (const StoredRun* res = store.resources_for(*run)) {
            tip += resources_long(res->record);
            if (res != run) tip += "\n(from the " + res->device + " recording: the same compiled code)";
        }
    } else if (run && !card.elsewhere && run->record.error_kind == "skipped") {
        tip += "\n\nSkipped at these settings: " + run->record.error;
    } else if (run && !card.elsewhere && !run->record.error.empty()) {
        tip += "\n\n" + run->record.error_kind + ": " + run->record.error;
    } else if (card.elsewhere) {
        tip += "\n\nNo result at the current sizes; the last one was " + card.detail + ".";
    } else if (!run) {
        tip += "\n\nNot recorded for this device (" + store.preferred_device() +
               "): no other device's result is shown in its place.";
    }
    if (!card.needs.empty()) tip += "\n\nThis GPU cannot run it: " + card.needs + ". Recorded results are shown.";
    return tip;
}

}  // namespace

const std::vector<StripCard>& Workbook::strip_cards(float text_w) {
    const SelectionView& view = selection_view();
    const Ladder& L = *ladder_;
    if (strip_.built_view != view.version || strip_.cards.size() != L.rungs.size()) {
        strip_.cards.assign(L.rungs.size(), StripCard{});
        for (size_t i = 0; i < L.rungs.size(); ++i) {
            const Rung& r = L.rungs[i];
            StripCard& card = strip_.cards[i];
            card.target = "card:" + r.id;
            card.needs = arch_refusal_here(r);
            ParamValues preferred = params_for(r);
            const StoredRun* run = store_.latest(L.id, r.id, sizes_, to_string(dtype_), &preferred);
            if (!run) {  // the device shown ran it at other settings, or never (never another device's)
                run = store_.latest_any(L.id, r.id);
                card.elsewhere = run != nullptr;
                if (!run) card.detail = "not recorded for this device";
            }
            card.run = run;
            // Predict, then reveal: a run this step or a later one asks to predict shows no figure.
            if (run) card.withheld = withheld_why(run->record);
            if (!card.withheld.empty()) {
                // no time, rate or resources: the card says what it waits for (draw_strip_card_text)
            } else if (run && !card.elsewhere && run->record.error.empty() && run->record.timing) {
                const RunRecord& rec = run->record;
                card.time = format_ms(rec.timing->median_ms);
                // "% cuBLAS" ("% cuDNN" for attention): against the library's run at these sizes when
                // there is one (the same bar the plots draw), else against the calibrated cuBLAS rate
                // (report::library_share names which).
                const bool flops = view.flops;
                // The library's rate with this one would give it away while it waits.
                const StoredRun* library =
                    view.library && withheld_why(view.library->record).empty() ? view.library : nullptr;
                card.rate = flops ? plot::format_value(rec.values.num(tag::tflops), 3) + " TFLOP/s"
                                  : plot::format_value(rec.values.num(tag::gbps), 4) + " GB/s";
                if (!flops && rec.values.get(tag::pct_copy))
                    card.rate += " \xC2\xB7 " + plot::format_value(*rec.values.get(tag::pct_copy), 2) + "% copy";
                else if (flops && (library || !view.library))  // not the calibration for a withheld run
                    if (auto share = report::library_share(rec, r.compute, library, L))
                        card.rate += " \xC2\xB7 " + report::library_share_text(*share, to_string(rec.dtype), 2) +
                                     (share->calibrated ? " (cal.)" : "");
                bool pass = rec.correctness && rec.correctness->passed;
                card.chip = !rec.correctness ? "unchecked" : pass ? "PASS" : "FAIL";
                card.other_params = rec.params != preferred;
                card.source =
                    std::string(run->live ? "live" : "recorded") + (card.other_params ? " \xC2\xB7 other params" : "");
                // [stopwatch] The default needs no word on a card; the span is named beside the time,
                // and so is a span asked for and not taken (the tooltip says why).
                card.stopwatch = stopwatch_of(rec);
                card.stopwatch_mark = card.stopwatch == kStopwatchSpan ? "span"
                                      : !rec.stopwatch_note.empty()    ? "no span"
                                                                       : "";
                if (const StoredRun* res_run = store_.resources_for(*run))
                    card.source += " \xC2\xB7 " + resources_short(res_run->record);
            } else if (run && !card.elsewhere && run->record.error_kind == "skipped") {
                card.detail = run->record.error;  // why, under "skipped"
            } else if (run && !card.elsewhere && !run->record.error.empty()) {
                card.detail = run->record.error_kind + ": " + run->record.error;
            } else if (card.elsewhere) {
                card.detail = run->record.dtype != dtype_ ? "measured in " + to_string(run->record.dtype)
                                                          : "measured at " + format_sizes(run->record.sizes);
            }
        }
        std::vector<const RunRecord*> shown;  // [stopwatch] the figures the cards show
        for (const StripCard& card : strip_.cards)
            if (card.run && !card.elsewhere && card.withheld.empty()) shown.push_back(&card.run->record);
        strip_.stopwatch_mixed = mixed_stopwatch_line(shown);
        strip_.built_view = view.version;
        strip_.fitted_w = -1;
    }
    if (text_w >= 0 && strip_.fitted_w != text_w) {  // -1: built, not fitted (the header asks)
        const float s = fonts_.scale;
        for (size_t i = 0; i < L.rungs.size(); ++i) {
            StripCard& card = strip_.cards[i];
            const char* idx = L.rungs[i].number.c_str();
            float iw = fonts_.small->CalcTextSizeA(fonts_.small->FontSize, FLT_MAX, 0, idx).x + 7 * s;
            // The learner's rung keeps room for its "MINE" tag in the top right corner.
            float tag = L.rungs[i].learner ? learner_tag_width() : 0;
            card.fit_title = fit_text(fonts_.bold, L.rungs[i].label(), text_w - iw - tag);
            card.fit_rate = fit_text(fonts_.small, card.rate, text_w);
            float chip_w = fonts_.small->CalcTextSizeA(fonts_.small->FontSize, FLT_MAX, 0, card.chip.c_str()).x;
            card.fit_source = fit_text(fonts_.small, card.source, text_w - chip_w - 20 * s);
            card.fit_detail = fit_text(fonts_.small, card.detail, text_w);
            // "until step 5's prediction" under "hidden until": a narrow card keeps it whole.
            const std::string why = card.withheld.rfind("until ", 0) == 0 ? card.withheld.substr(6) : card.withheld;
            card.fit_withheld = fit_text(fonts_.small, why, text_w);
        }
        strip_.fitted_w = text_w;
    }
    return strip_.cards;
}

void Workbook::draw_ladder_strip() {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    if (!ladder_) {
        draw_strip_without_ladder();
        return;
    }
    const Ladder& L = *ladder_;
    // Header line: ladder title and summary.
    ImGui::PushFont(fonts_.bold);
    ImGui::TextUnformatted(L.title.c_str());
    ImGui::PopFont();
    ImGui::SameLine();
    draw_tuned_toggle();
    ImGui::SameLine();
    ImGui::PushFont(fonts_.small);
    // [stopwatch] Cards timed by two stopwatches are not comparable: the line says so in place of the
    // summary; [hold] the last run's shared hold goes before it.
    strip_cards(-1);  // the mixed line is the cards' (their text is fitted below)
    const std::string& header = !strip_.stopwatch_mixed.empty() ? strip_.stopwatch_mixed
                                : strip_.hold_ladder == L.id && !strip_.hold_line.empty()
                                    ? strip_.hold_line + " \xC2\xB7 " + L.summary
                                    : L.summary;
    ImGui::PushStyleColor(ImGuiCol_Text,
                          ImGui::ColorConvertU32ToFloat4(strip_.stopwatch_mixed.empty() ? pal.muted : pal.warn));
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + (ImGui::GetFontSize() - fonts_.small->FontSize) * 0.0f + 2 * s);
    ImGui::TextUnformatted(fit_text(fonts_.small, header, ImGui::GetContentRegionAvail().x).c_str());
    ImGui::PopStyleColor();
    test_target("strip:header");
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
        ImGui::TextUnformatted(header.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
    ImGui::PopFont();

    const int n = int(L.rungs.size());
    if (n == 0) {
        ImGui::TextDisabled("This ladder has no rungs.");
        return;
    }
    float gap = 8 * s;
    // The cards scroll sideways under a fixed header line.
    ImGui::BeginChild("##cards", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    float avail = ImGui::GetContentRegionAvail().x;
    float card_w = std::clamp((avail - gap * (n - 1)) / n, strip_card_min_width(), 270 * s);
    float card_h = strip_card_height();
    float w = card_w - 22 * s;  // the text's width
    ImDrawList* dl = ImGui::GetWindowDrawList();
    bool dark = theme_is_dark();
    const std::vector<StripCard>* cards = &strip_cards(w);

    for (int i = 0; i < n; ++i) {
        const Rung& r = L.rungs[i];
        if (i) ImGui::SameLine(0, gap);
        ImGui::PushID(i);
        ImVec2 p = ImGui::GetCursorScreenPos();
        bool selected = rung_ && rung_->id == r.id;
        bool usable = false;
        for (DType d : r.dtypes) usable |= d == dtype_;
        // A click on the selected card keeps the settings made for it (issue 38: it reset them
        // silently); "Reset to step" in the controls is the way back to the step's.
        if (ImGui::InvisibleButton("##card", ImVec2(card_w, card_h)) && !selected) {
            select_rung(&r, false);
            cards = &strip_cards(w);  // the rest of the strip reads the new selection
        }
        const StripCard& card = (*cards)[i];
        test_target(card.target);
        if (selected && strip_scrolled_to_ != rung_) {
            ImGui::SetScrollHereX(0.5f);  // long ladders: bring the step's rung into view
            strip_scrolled_to_ = rung_;
        }
        bool hovered = ImGui::IsItemHovered();
        ImVec2 q(p.x + card_w, p.y + card_h);
        ImU32 color = rung_color(r.index, dark);
        dl->AddRectFilled(p, q, selected ? pal.highlight : hovered ? pal.panel_alt : pal.panel, 7 * s);
        dl->AddRect(p, q, selected ? pal.accent : pal.border, 7 * s, 0, selected ? 2.0f * s : 1.0f);
        dl->AddRectFilled(ImVec2(p.x + 1, p.y + 1), ImVec2(p.x + 5 * s, q.y - 1), color, 7 * s,
                          ImDrawFlags_RoundCornersLeft);
        if (r.learner) draw_learner_card_mark(dl, p, q);

        draw_strip_card_text(r, card, p, q, usable);
        if (hovered) {
            ImGui::BeginTooltip();
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
            ImGui::TextUnformatted(card_tooltip(r, usable, to_string(dtype_), card, store_).c_str());
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
        }
        ImGui::PopID();
    }
    ImGui::EndChild();
}

// A step without a ladder: what the step is for, and a way to the lesson's next live step.
// [tuned] Default or tuned settings for the runs the window asks for.
void Workbook::draw_tuned_toggle() {
    ImGui::PushFont(fonts_.small);
    if (ImGui::Checkbox("tuned settings", &strip_.tuned))
        log(strip_.tuned ? "runs use tuned settings" : "runs use the defaults");
    test_target("strip:tuned");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "Run with the settings `kladder tune %s` found for this GPU and this source\n"
            "(parameters you moved keep your value). Where none are stored, or the source\n"
            "changed since, the defaults run; each card's tooltip says which ran.",
            ladder_ ? ladder_->id.c_str() : "LADDER");
    ImGui::PopFont();
}

void Workbook::draw_strip_without_ladder() {
    const Palette& pal = palette();
    const LessonStep* st = step();
    ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 1.2f));
    std::string msg = st ? (st->ladder.empty() ? "This step is for reading and thinking: it runs no kernel."
                                               : "Ladder '" + st->ladder + "' is not available (see the navigator).")
                         : "No step selected.";
    text_centered(msg, pal.muted);
    // Where the lesson's first live step is.
    if (const Lesson* l = lesson()) {
        for (int i = step_ + 1; i < int(l->steps.size()); ++i) {
            if (l->steps[i].ladder.empty()) continue;
            std::string go = "Go to step " + std::to_string(i + 1) + ": " + l->steps[i].title;
            float w = ImGui::CalcTextSize(go.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x;
            ImGui::SetCursorPosX(std::max(0.0f, (ImGui::GetContentRegionAvail().x - w) * 0.5f));
            if (ImGui::Button(go.c_str())) select_lesson(lesson_, i);
            break;
        }
    }
}

// The inside of one card, from corner p to q: number and title, then the result (time, rate,
// pass / fail chip and where it was measured), the failure, or "no result yet".
void Workbook::draw_strip_card_text(const Rung& r, const StripCard& card, ImVec2 p, ImVec2 q, bool usable) {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    const float card_h = q.y - p.y;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    float x = p.x + 14 * s, y = p.y + 7 * s;
    const char* idx = r.number.c_str();
    dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(x, y + 2 * s), pal.muted, idx);
    float iw = fonts_.small->CalcTextSizeA(fonts_.small->FontSize, FLT_MAX, 0, idx).x + 7 * s;
    dl->AddText(fonts_.bold, fonts_.bold->FontSize, ImVec2(x + iw, y), usable ? pal.text : pal.faint,
                card.fit_title.c_str());
    y += fonts_.bold->FontSize + 6 * s;

    if (!card.needs.empty()) {  // "needs sm_90 (Hopper)" in the card's top right corner
        const std::string label = card.needs.substr(0, card.needs.find(':'));
        ImVec2 ts = fonts_.small->CalcTextSizeA(fonts_.small->FontSize, FLT_MAX, 0, label.c_str());
        ImVec2 at(q.x - ts.x - 8 * s, p.y + card_h - ts.y - 6 * s);
        dl->AddRectFilled(ImVec2(at.x - 4 * s, at.y - 1), ImVec2(q.x - 4 * s, at.y + ts.y + 1),
                          with_alpha(pal.warn, 0.25f), 6 * s);
        dl->AddText(fonts_.small, fonts_.small->FontSize, at, pal.warn, label.c_str());
    }
    const StoredRun* run = card.run;
    const bool elsewhere = card.elsewhere;
    if (!card.withheld.empty()) {  // predict, then reveal: this rung's figures wait, and say for what
        dl->AddText(fonts_.body, fonts_.body->FontSize, ImVec2(x, y + 2 * s), pal.faint, "hidden until");
        y += fonts_.body->FontSize + 6 * s;
        dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(x, y), pal.muted, card.fit_withheld.c_str());
    } else if (run && !elsewhere && run->record.error.empty() && run->record.timing) {
        const RunRecord& rec = run->record;
        dl->AddText(fonts_.big, fonts_.big->FontSize * 0.9f, ImVec2(x, y), pal.text, card.time.c_str());
        if (!card.stopwatch_mark.empty()) {  // [stopwatch] "span" (or "no span") after the time, small
            const float tw = fonts_.big->CalcTextSizeA(fonts_.big->FontSize * 0.9f, FLT_MAX, 0, card.time.c_str()).x;
            dl->AddText(fonts_.small, fonts_.small->FontSize,
                        ImVec2(x + tw + 6 * s, y + fonts_.big->FontSize * 0.9f - fonts_.small->FontSize - 2 * s),
                        card.stopwatch == kStopwatchSpan ? pal.accent : pal.warn, card.stopwatch_mark.c_str());
        }
        y += fonts_.big->FontSize * 0.9f + 3 * s;
        dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(x, y), pal.muted, card.fit_rate.c_str());
        y += fonts_.small->FontSize + 5 * s;
        // Pass / fail chip, and where the number came from.
        bool pass = rec.correctness && rec.correctness->passed;
        ImU32 chip_col = !rec.correctness ? pal.faint : pass ? pal.good : pal.bad;
        ImVec2 cs = fonts_.small->CalcTextSizeA(fonts_.small->FontSize, FLT_MAX, 0, card.chip.c_str());
        dl->AddRectFilled(ImVec2(x, y - 1), ImVec2(x + cs.x + 12 * s, y + cs.y + 2), with_alpha(chip_col, 0.2f), 8 * s);
        dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(x + 6 * s, y), chip_col, card.chip.c_str());
        // A result at other parameters than the ones set is shown, but says so.
        dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(x + cs.x + 20 * s, y),
                    card.other_params ? pal.warn : pal.faint, card.fit_source.c_str());
    } else if (run && !elsewhere && !run->record.error.empty()) {
        // A skip (sizes the rung cannot take) is not a failure: said in the warning colour.
        const bool skipped = run->record.error_kind == "skipped";
        dl->AddText(fonts_.bold, fonts_.bold->FontSize, ImVec2(x, y), skipped ? pal.warn : pal.bad,
                    skipped ? "skipped" : "failed");
        y += fonts_.bold->FontSize + 3 * s;
        dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(x, y), skipped ? pal.muted : pal.bad,
                    card.fit_detail.c_str());
    } else {
        dl->AddText(fonts_.body, fonts_.body->FontSize, ImVec2(x, y + 2 * s), pal.faint, "no result yet");
        y += fonts_.body->FontSize + 6 * s;
        if (!card.detail.empty())  // measured at other settings, or not on this device
            dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(x, y), pal.faint, card.fit_detail.c_str());
    }
}

// The learner's rung: a second, inner outline and a "MINE" tag in the top right corner (with the
// "mine:" its title starts with, it reads in print and without colour).
void Workbook::draw_learner_card_mark(ImDrawList* dl, ImVec2 p, ImVec2 q) {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    dl->AddRect(ImVec2(p.x + 3 * s, p.y + 3 * s), ImVec2(q.x - 3 * s, q.y - 3 * s), pal.accent, 5 * s, 0, 1.5f * s);
    const char* tag = "MINE";
    ImVec2 ts = fonts_.small->CalcTextSizeA(fonts_.small->FontSize, FLT_MAX, 0, tag);
    ImVec2 at(q.x - ts.x - 10 * s, p.y + 8 * s);
    dl->AddRectFilled(ImVec2(at.x - 4 * s, at.y - 1), ImVec2(at.x + ts.x + 4 * s, at.y + ts.y + 1), pal.accent, 4 * s);
    dl->AddText(fonts_.small, fonts_.small->FontSize, at, IM_COL32_WHITE, tag);
}

}  // namespace kl::gui
