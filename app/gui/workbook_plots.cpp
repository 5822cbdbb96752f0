// The plots: per-rung bars (time, rate, % of reference), sweeps, correctness (error map or
// relative error), traffic and the roofline, built as kl::plot figures (figures.h), laid out by
// the plot module with ImGui's fonts and drawn with ImDrawList (plot_imgui.h). Hovering shows
// exact values; the Export buttons open the popups of workbook_export.cpp.
// [SECTION] index: toolbar / building / canvas / tooltips
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <future>

#include "base/errors.h"
#include "base/paths.h"
#include "gui/plot_imgui.h"
#include "gui/widgets.h"
#include "gui/workbook.h"
#include "model/stopwatch_label.h"
#include "plot/cairo_export.h"
#include "plot/figure_scene.h"
#include "plot/ticks.h"
#include "report/figure_request.h"
#include "report/figure_withhold.h"
#include "report/lesson_export.h"

namespace kl::gui {

namespace {

std::string fmt_ms(double ms) {
    char b[48];
    if (ms < 1.0)
        std::snprintf(b, sizeof b, "%.2f \xC2\xB5s", ms * 1000.0);
    else
        std::snprintf(b, sizeof b, "%.4g ms", ms);
    return b;
}

// One tagged value as a line: "2,955 GB/s: ideal bytes over the median time".
std::string describe_value(const MeasureInfo& m, double value) {
    std::string shown;
    switch (m.hint) {
        case MeasureHint::Bytes: shown = plot::format_value(value / 1e6, 4) + " MB"; break;
        case MeasureHint::Percent: shown = plot::format_value(value, 3) + "%"; break;
        default: shown = plot::format_value(value, 4) + " " + m.unit; break;
    }
    return shown + ": " + m.description;
}

// Everything a reader may want to know about one measurement, for tooltips. `library`: the
// ladder's library reference measured at the same sizes (for "% cuBLAS", "% cuDNN"), or nullptr,
// in `ladder`, which also gives the run's rung's own arithmetic precision (Rung::compute).
std::string describe_run(const StoredRun& s, const StoredRun* library, const Ladder* ladder) {
    const RunRecord& r = s.record;
    std::string t = r.title.empty() ? r.rung : r.title;
    if (!r.error.empty()) return t + "\n" + r.error_kind + ": " + r.error;
    if (r.timing) {
        t += "\nmedian " + fmt_ms(r.timing->median_ms) + "   min " + fmt_ms(r.timing->min_ms) + "   max " +
             fmt_ms(r.timing->max_ms);
        t += "\n" + std::to_string(r.timing->reps) + " repetitions, spread " +
             plot::format_value(100 * r.timing->rel_spread, 2) + "%, L2 " + r.l2;
        for (const auto& line : stopwatch_lines(r)) t += "\n" + line;  // [stopwatch]
    }
    // Every value the run carries, as its registry row describes it (measures.h): a new
    // measurement shows here without a line of its own.
    for (const auto& [name, value] : r.values.all()) t += "\n" + describe_value(*find_measure(name), value);
    const Rung* rung = ladder ? ladder->find_rung(r.rung) : nullptr;
    const std::string compute = rung ? rung->compute : "";
    if (auto share = library && ladder ? report::library_share(r, compute, library, *ladder) : std::nullopt)
        t += "\n" + report::library_share_text(*share, to_string(r.dtype), 3) + ": against " + library->record.title +
             " at these sizes";
    if (r.correctness) t += "\n" + r.correctness->summary();
    // Hardware counters, when the counters pass ran (docs/counters.md), else why not.
    const auto& k = r.counters;
    auto num = [&](const char* key) {
        return k.is_object() && k.contains(key) && k[key].is_number() ? k[key].get<double>() : plot::kNoValue;
    };
    if (k.is_object()) {
        double dram = num("dram_bytes"), ld = num("sectors_per_request_ld"), st = num("sectors_per_request_st");
        double occ = num("sm__warps_active.avg.pct_of_peak_sustained_active"),
               bank = num("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"), lanes = num("threads_per_inst");
        if (std::isfinite(dram)) t += "\nmeasured DRAM " + plot::format_value(dram / 1e6, 4) + " MB";
        if (std::isfinite(ld) || std::isfinite(st))
            t += "\nsectors per request: loads " + plot::format_value(ld, 3) + ", stores " + plot::format_value(st, 3) +
                 " (4 = coalesced fp32)";
        if (std::isfinite(bank)) t += "\nshared-memory bank conflicts " + plot::format_value(bank, 3);
        if (std::isfinite(occ)) t += "\nachieved occupancy " + plot::format_value(occ, 3) + "%";
        if (std::isfinite(lanes))
            t +=
                "\nactive threads per warp instruction " + plot::format_value(lanes, 3) + " of 32 (32: no lane masked)";
    } else if (!r.counters_note.empty()) {
        t += "\ncounters: " + r.counters_note;
    }
    std::string params;
    for (const auto& [k, v] : r.params) params += (params.empty() ? "" : ", ") + k + " = " + std::to_string(v);
    if (!params.empty()) t += "\n" + params;
    t += "\n" + format_sizes(r.sizes) + ", " + to_string(r.dtype);
    t += "\n" + (s.live ? std::string("measured live")
                        : "recorded (" + std::filesystem::path(s.origin).filename().string() + ")");
    return t;
}

}  // namespace

// [SECTION] Toolbar

// The metric choice of a kind that has several (bars, sweeps, traffic): the kind's metrics from
// the figure vocabulary, the chosen one or the default shown. Returns the metric to draw.
std::optional<Metric> Workbook::metric_choice(PlotKind kind, const SelectionView& view) {
    const std::vector<Metric>& metrics = plot_kind_info(kind).metrics;
    if (metrics.empty()) return std::nullopt;
    auto chosen = plots_.chosen.find(kind);
    std::optional<Metric> shown = chosen != plots_.chosen.end()
                                      ? chosen->second
                                      : default_metric(kind, view.ctx.sizes.count(params_ui_.sweep_axis) != 0);
    std::vector<const char*> labels;
    int current = 0;
    for (size_t i = 0; i < metrics.size(); ++i) {
        labels.push_back(metric_label(metrics[i], view.flops));
        if (metrics[i] == shown) current = int(i);
    }
    // Widths as the window had them: the traffic names are the longest.
    const float width = kind == PlotKind::Bars ? 160 : kind == PlotKind::Sweep ? 140 : 190;
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("Show");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(width * fonts_.scale);
    std::string id = std::string("##") + plot_kind_name(kind) + "_metric";
    if (ImGui::Combo(id.c_str(), &current, labels.data(), int(labels.size()))) plots_.chosen[kind] = metrics[current];
    if (kind == PlotKind::Sweep)
        item_tooltip("Peak memory: the problem's buffers and the rung's scratch, per run; refused runs are marked.");
    if (kind == PlotKind::Traffic)
        item_tooltip(
            "Bytes: ideal, the rung's model, measured DRAM and L2. Sectors per request: 4 is a coalesced fp32 warp "
            "access, 32 one sector per thread. Bank conflicts: extra shared-memory wavefronts. Threads per "
            "instruction: "
            "32 when no lane is masked, lower when warps diverge. Measured ones need "
            "hardware counters (the Counters box next to Run, or recorded results that carry them).");
    return metrics[current];
}

void Workbook::draw_plots() {
    const float s = fonts_.scale;
    if (const LessonStep* st = step(); st && st->tool == "calculator") {  // [calculator]
        draw_calculator();
        return;
    }
    if (!ladder_) {
        ImGui::Dummy(ImVec2(0, 40 * s));
        text_centered("This step runs no kernel, so there is nothing to plot.", palette().muted);
        text_centered("Its question is under the text; the self-check tab has the lesson's questions.",
                      palette().faint);
        return;
    }
    const char* tabs[kPlotKindCount];
    for (const auto& k : plot_kinds()) tabs[static_cast<int>(k.kind)] = k.tab;
    int tab = static_cast<int>(plots_.request.plot);
    segmented("##plot_tabs", tabs, kPlotKindCount, &tab);
    plots_.request.plot = PlotKind(tab);
    float export_w = ImGui::CalcTextSize("Export").x + 2 * ImGui::GetStyle().FramePadding.x;
    // At the row's right end, or under it when the tabs reach there (at 1280 x 720 it covered
    // the Occupancy tab).
    const float tabs_end = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetStyle().ItemSpacing.x;
    const float export_x = ImGui::GetWindowContentRegionMax().x - export_w;
    if (tabs_end <= export_x)
        ImGui::SameLine(export_x);
    else
        ImGui::SetCursorPosX(export_x);
    if (ImGui::Button("Export")) ImGui::OpenPopup("##export_figure");
    test_target("button:export");
    item_tooltip("Write this figure as SVG, PDF, PNG or CSV: page size, theme and folder in the next step");
    draw_figure_export_popup();
    if (plots_.request.plot == PlotKind::Occupancy) {  // not a figure: the occupancy calculator
        draw_occupancy();
        return;
    }
    const SelectionView& view = selection_view();
    // What the plot shows, on its own line under the tabs.
    plots_.request.axis = params_ui_.sweep_axis;
    plots_.request.metric = metric_choice(plots_.request.plot, view);
    if (plots_.request.plot == PlotKind::Bars) draw_device_compare();
    if (plots_.request.plot == PlotKind::Sweep) {
        ImGui::SameLine();
        ImGui::TextDisabled("vs %s", params_ui_.sweep_axis.c_str());
        item_tooltip("The axis is chosen next to the Sweep button.");
    }

    // Correctness: a one-line summary of the rung's check above the map.
    if (plots_.request.plot == PlotKind::Errors && rung_) {
        const StoredRun* run = view.rung_run;
        if (run && run->record.correctness) {
            const Correctness& c = *run->record.correctness;
            ImGui::PushStyleColor(ImGuiCol_Text,
                                  ImGui::ColorConvertU32ToFloat4(c.passed ? palette().good : palette().bad));
            ImGui::TextUnformatted(c.summary().c_str());
            ImGui::PopStyleColor();
            ImGui::SameLine();
            ImGui::TextDisabled("max |error| %s, %lld of %lld outside tolerance, %lld unwritten",
                                plot::format_value(c.max_abs, 3).c_str(), (long long)c.mismatches,
                                (long long)c.elements, (long long)c.unwritten);
        }
    }
    if (!plots_.export_message.empty()) {
        ImGui::PushFont(fonts_.small);
        ImGui::TextDisabled("%s", plots_.export_message.c_str());
        ImGui::PopFont();
    }
    // The clock and the kernels' times are the measurement too, here and for a later step's rung.
    if (!measurements_folded() && !(view.rung_run && !withheld_why(view.rung_run->record).empty())) {
        draw_mode_figure(view.rung_run);   // [modes]
        draw_run_timeline(view.rung_run);  // [timeline]
    }
    ImVec2 avail = ImGui::GetContentRegionAvail();
    if (!draw_plot_fold()) draw_plot_canvas(avail.x, std::max(120.0f * s, avail.y));
}

// [SECTION] Building

void Workbook::draw_plot_canvas(float width, float height) {
    const float s = fonts_.scale;
    const SelectionView& view = selection_view();
    const PlotContext& ctx = view.ctx;
    // Rebuild when the data or the selection (both in the view's version), the figure asked for,
    // the size or the theme changed.
    const PlotsState::Built asked{view.version, plots_.request.plot, plots_.request.metric, plots_.request.axis};
    bool dark = theme_is_dark();
    bool rebuild = !(asked == plots_.built_for);
    if (rebuild) {
        plots_.built = report::build_figure(store_, ctx, plots_.request);  // as `kladder export` builds it
        // Predict, then reveal: runs this step or a later one asks to predict are not drawn (the
        // view's version follows the gate, so this runs again on a step or a commit).
        report::withhold_runs(plots_.built, [this](const RunRecord& r) { return withheld_why(r); });
        if (view.library && !withheld_why(view.library->record).empty()) {  // the library's line is its rate
            auto& series = plots_.built.figure.series;
            const std::string line = view.library->record.title + " at these sizes";
            series.erase(std::remove_if(series.begin(), series.end(),
                                        [&](const plot::Series& x) {
                                            return x.kind == plot::SeriesKind::HLine && x.name == line;
                                        }),
                         series.end());
        }
        if (!plots_.built.not_recorded.empty())  // empty bars, said: never another device's value
            plots_.built.figure.caption = plot::caption_of(
                {plots_.built.figure.caption, "not recorded for this device: " + plots_.built.not_recorded});
        plots_.built_for = asked;
    }
    if (rebuild || width != plots_.built_w || height != plots_.built_h || dark != plots_.built_dark) {
        plot::Theme theme = screen_theme(dark, s);
        plot::MeasureText measure = imgui_measure(fonts_.plot);
        // Rung names that would need more than two lines under their bar are replaced by the
        // rung numbers of the ladder strip (same colours), so that no label is cut.
        plots_.shown = plots_.built.figure;
        plot::Axis& x = plots_.shown.x;
        // Bars drawn across (many rungs) have room for whole names: no numbers needed there.
        if (!plots_.built.bar_colors.empty() && x.is_category() &&
            !plot::horizontal_bars_wanted(plots_.built.figure, width, measure, theme)) {
            double slot = width * 0.8 / double(x.categories.size());
            bool too_long = false;
            for (const auto& c : x.categories) too_long |= measure(c, theme.tick_size, false).width > 2.0 * slot;
            if (too_long && ladder_ && ladder_->rungs.size() == x.categories.size()) {
                for (size_t i = 0; i < x.categories.size(); ++i) x.categories[i] = ladder_->rungs[i].number;
                x.label = "Rung (numbered as in the ladder strip; R: library references)";
            }
        }
        plots_.layout = plot::compute_layout(plots_.shown, width, height, measure, theme);
        plots_.scene = plot::build_scene(plots_.shown, plots_.layout, theme);
        plots_.scene.background = to_plot_color(ImGui::GetStyleColorVec4(ImGuiCol_ChildBg));
        plots_.built_w = width;
        plots_.built_h = height;
        plots_.built_dark = dark;
    }
    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##plot_canvas", ImVec2(width, height));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    draw_scene(dl, plots_.scene, origin, fonts_.plot);
    draw_learner_bar_marks(origin);
    if (!plots_.built.empty_reason.empty()) {
        const plot::Rect& pr = plots_.layout.plot;
        ImVec2 c(origin.x + float(pr.x + pr.w * 0.5), origin.y + float(pr.y + pr.h * 0.5));
        ImVec2 ts = ImGui::CalcTextSize(plots_.built.empty_reason.c_str());
        float pad = 12 * s;
        ImVec2 a(c.x - ts.x * 0.5f - pad, c.y - ts.y * 0.5f - pad), b(c.x + ts.x * 0.5f + pad, c.y + ts.y * 0.5f + pad);
        dl->AddRectFilled(a, b, with_alpha(palette().panel_alt, 0.95f), 6 * s);
        dl->AddRect(a, b, palette().border, 6 * s);
        dl->AddText(ImVec2(c.x - ts.x * 0.5f, c.y - ts.y * 0.5f), palette().muted, plots_.built.empty_reason.c_str());
    }
    if (ImGui::IsItemHovered()) draw_plot_tooltip(origin);
}

// The learner's rungs' bars outlined and tagged "mine" (their labels say "mine:" or M1 too).
void Workbook::draw_learner_bar_marks(ImVec2 origin) {
    if (!ladder_ || plots_.built.bar_colors.empty()) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float s = fonts_.scale;
    for (const plot::BarLayout& b : plots_.layout.bars) {
        if (b.point >= ladder_->rungs.size() || !ladder_->rungs[b.point].learner) continue;
        ImVec2 a(origin.x + float(b.rect.x), origin.y + float(b.rect.y));
        ImVec2 c(a.x + float(b.rect.w), a.y + float(b.rect.h));
        dl->AddRect(ImVec2(a.x - 3 * s, a.y - 3 * s), ImVec2(c.x + 3 * s, c.y), palette().text, 0, 0, 1.5f * s);
        // Inside the bar's top (its value label sits above it), or below a bar too short to hold it.
        float th = fonts_.small->FontSize;
        bool inside = c.y - a.y > th + 8 * s;
        ImVec2 at(a.x + 4 * s, inside ? a.y + 4 * s : c.y + 2 * s);
        dl->AddRectFilled(ImVec2(at.x - 2 * s, at.y), ImVec2(at.x + 32 * s, at.y + th),
                          with_alpha(palette().panel, 0.85f));
        dl->AddText(fonts_.small, th, at, palette().text, "mine");
    }
}

// [SECTION] Tooltips

const StoredRun* Workbook::library_run_for(const RunRecord& record) const {
    if (!ladder_) return nullptr;
    PlotContext ctx;
    ctx.ladder = ladder_;
    ctx.sizes = record.sizes;
    ctx.dtype = to_string(record.dtype);
    return library_reference_run(store_, ctx);
}

void Workbook::draw_plot_tooltip(const ImVec2& origin) {
    const float s = fonts_.scale;
    ImVec2 m = ImGui::GetIO().MousePos;
    plot::Vec2 p{m.x - origin.x, m.y - origin.y};
    const plot::Layout& L = plots_.layout;
    const BuiltFigure& B = plots_.built;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    // "% of cuBLAS" beside a rate gives the library's rate away while a prediction waits on it.
    auto describe = [this](const StoredRun& run) {
        const StoredRun* l = library_run_for(run.record);
        return describe_run(run, l && withheld_why(l->record).empty() ? l : nullptr, ladder_);
    };
    auto tooltip = [](const std::string& text) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
        ImGui::TextUnformatted(text.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    };
    // Bars: the bar under the mouse (or the category column it is in).
    for (const auto& b : L.bars) {
        plot::Rect hit = b.rect;
        if (hit.h < 6 * s) hit = {hit.x, hit.y - 6 * s, hit.w, hit.h + 6 * s};
        if (!hit.contains(p)) continue;
        const auto& series = B.figure.series[b.series];
        const auto& pt = series.points[b.point];
        std::string head = (b.point < B.figure.x.categories.size() ? B.figure.x.categories[b.point] : series.name) +
                           ":  " + plot::format_value(pt.y, 4) + " " + B.figure.y.unit;
        int bar_series = 0;
        for (const auto& x : B.figure.series) bar_series += x.kind == plot::SeriesKind::Bars;
        if (bar_series > 1) head = series.name + "\n" + head;  // grouped bars: which group
        dl->AddRect(ImVec2(origin.x + float(b.rect.x), origin.y + float(b.rect.y)),
                    ImVec2(origin.x + float(b.rect.right()), origin.y + float(b.rect.bottom())), palette().text, 0, 0,
                    1.5f);
        const StoredRun* run = b.point < B.bar_runs.size() ? B.bar_runs[b.point] : nullptr;
        tooltip(run ? head + "\n\n" + describe(*run) : head);
        return;
    }
    // Lines and points: the nearest point within reach.
    double best = 14.0 * s;
    int bs = -1, bp = -1;
    for (size_t si = 0; si < B.figure.series.size() && si < B.point_runs.size(); ++si) {
        const auto& ser = B.figure.series[si];
        if (ser.kind != plot::SeriesKind::Line && ser.kind != plot::SeriesKind::Scatter) continue;
        for (size_t pi = 0; pi < ser.points.size(); ++pi) {
            double px = L.x.transform.to_pixel(ser.points[pi].x), py = L.y.transform.to_pixel(ser.points[pi].y);
            double d = std::hypot(px - p.x, py - p.y);
            if (std::isfinite(d) && d < best) best = d, bs = int(si), bp = int(pi);
        }
    }
    if (bs >= 0) {
        const auto& ser = B.figure.series[bs];
        const auto& pt = ser.points[bp];
        double px = L.x.transform.to_pixel(pt.x), py = L.y.transform.to_pixel(pt.y);
        dl->AddCircle(ImVec2(origin.x + float(px), origin.y + float(py)), 7 * s, palette().text, 16, 1.5f);
        std::string xs = B.figure.x.is_category() && size_t(pt.x) < B.figure.x.categories.size()
                             ? B.figure.x.categories[size_t(pt.x)]
                             : plot::format_value(pt.x, 6);
        std::string head = ser.name + "\n" + B.figure.x.label + " = " + xs + ":  " + plot::format_value(pt.y, 4) + " " +
                           B.figure.y.unit;
        const StoredRun* run = size_t(bp) < B.point_runs[bs].size() ? B.point_runs[bs][bp] : nullptr;
        tooltip(run ? head + "\n\n" + describe(*run) : head);
        return;
    }
    // Heatmap: the cell under the mouse.
    if (B.figure.heatmap && L.plot.contains(p)) {
        const plot::Heatmap& h = *B.figure.heatmap;
        double dx = L.x.transform.to_data(p.x), dy = L.y.transform.to_data(p.y);
        plot::Range cx = h.columns(), ry = h.rows_extent();
        int col = int((dx - cx.min) / cx.span() * h.cols), row = int((dy - ry.min) / ry.span() * h.rows);
        // Row 0 is drawn at the top: the y axis may run either way, so trust the data coordinate.
        if (col >= 0 && col < h.cols && row >= 0 && row < h.rows) {
            double per_col = cx.span() / h.cols, per_row = ry.span() / h.rows;
            char b[256];
            std::snprintf(
                b, sizeof b,
                "cell row %d, column %d\nelements rows %.0f..%.0f, columns %.0f..%.0f\n%s%% of its elements fail", row,
                col, ry.min + row * per_row, ry.min + (row + 1) * per_row - 1, cx.min + col * per_col,
                cx.min + (col + 1) * per_col - 1, plot::format_value(h.at(row, col), 3).c_str());
            tooltip(b);
        }
    }
}

}  // namespace kl::gui
