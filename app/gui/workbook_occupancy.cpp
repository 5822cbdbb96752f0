// The hardware side of a rung in the window: which recorded device the numbers come from (and a
// second one beside it in the rung bars), the "needs sm_90 (Hopper)" gate on the live GPU, the
// launch check behind the sliders' marks, and the occupancy view: blocks per SM each resource
// allows, the limiting one highlighted, recomputed as the learner drags TPB or a tile size.
// [SECTION] index: devices / inputs / occupancy view
#include <imgui.h>

#include <algorithm>
#include <map>

#include "base/errors.h"
#include "base/printable.h"
#include "gui/widgets.h"
#include "gui/workbook.h"
#include "model/arch.h"
#include "model/device_profile.h"
#include "model/launch_geometry.h"
#include "model/occupancy.h"
#include "model/resources_json.h"

namespace kl::gui {

// [SECTION] Devices

void Workbook::bind_step_device(const LessonStep* s) {
    if (loading()) return;  // again when the recorded results are in (finish_loading)
    // One device at a time (results_store.h). With a GPU: the learner's (its live runs, and
    // recordings of the same GPU) unless the Device menu picked a recording. Without: the step's
    // device, else the one picked, else the first recorded.
    const std::vector<std::string> devices = store_.devices();
    std::string want = runner_.gpu ? runner_.device : devices.empty() ? "" : devices.front();
    if (std::find(devices.begin(), devices.end(), chosen_device_) != devices.end()) want = chosen_device_;
    if (s && !s->device.empty() && !runner_.gpu) {
        auto it = std::find_if(devices.begin(), devices.end(),
                               [&](const std::string& d) { return d.find(s->device) != std::string::npos; });
        if (it != devices.end())
            want = *it;
        else
            log("step '" + s->title + "': device '" + s->device + "' has no recorded results; showing " + want, true);
    }
    store_.set_preferred_device(want);
    if (compare_device_ == want) compare_device_.clear();
}

void Workbook::draw_device_compare() {
    const std::vector<std::string> devices = store_.devices();
    if (devices.size() < 2) return;
    const float s = fonts_.scale;
    ImGui::SameLine(0, 14 * s);
    // Both menus on the line where they fit, else on the next (a laptop's narrow plot panel).
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    if (ImGui::GetContentRegionAvail().x <
        ImGui::CalcTextSize("Device").x + ImGui::CalcTextSize("beside").x + 250 * s + 3 * spacing)
        ImGui::NewLine();
    ImGui::TextDisabled("Device");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(150 * s);
    const std::string& preferred = store_.preferred_device();
    if (ImGui::BeginCombo("##device", preferred.c_str())) {
        for (const auto& d : devices)
            if (ImGui::Selectable(d.c_str(), d == preferred)) {
                store_.set_preferred_device(d);
                chosen_device_ = d;
                if (compare_device_ == d) compare_device_.clear();
            }
        ImGui::EndCombo();
    }
    test_target("combo:device");
    item_tooltip(
        "Whose results the plots, the ladder strip and the numbers show: one device at a time (your GPU's "
        "live runs are its own); a rung it did not run says so");
    ImGui::SameLine();
    ImGui::TextDisabled("beside");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(100 * s, ImGui::GetContentRegionAvail().x));
    if (ImGui::BeginCombo("##compare_device", compare_device_.empty() ? "(none)" : compare_device_.c_str())) {
        if (ImGui::Selectable("(none)", compare_device_.empty())) compare_device_.clear();
        for (const auto& d : devices)
            if (d != preferred && ImGui::Selectable(d.c_str(), d == compare_device_)) compare_device_ = d;
        ImGui::EndCombo();
    }
    test_target("combo:compare_device");
    item_tooltip("A second recorded GPU: its bars stand beside the first's (hatched), rung by rung.");
}

std::string Workbook::arch_refusal_here(const Rung& r) const {
    if (!runner_.gpu || runner_.device_arch.empty()) return "";
    return rung_arch_refusal(r, parse_arch(runner_.device_arch).cc);
}

// [SECTION] Inputs

namespace {

std::string params_text(const ParamValues& p) {
    std::string s;
    for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return s;
}

}  // namespace

const StoredRun* Workbook::measured_run(const Rung& r, const ParamValues& params, const std::string& entry) const {
    if (occupancy_cache_.generation != store_.generation()) {
        occupancy_cache_.runs.clear();
        occupancy_cache_.generation = store_.generation();
    }
    std::string key = ladder_->id + "/" + r.id + "/" + entry + "/" + to_string(dtype_) + "/" + params_text(params);
    auto it = occupancy_cache_.runs.find(key);
    if (it != occupancy_cache_.runs.end()) return it->second;
    const StoredRun* best = nullptr;
    for (const auto& sr : store_.runs()) {
        const RunRecord& x = sr.record;
        if (x.ladder != ladder_->id || x.rung != r.id || x.dtype != dtype_ || !x.launch_named(entry)) continue;
        const bool exact = x.params == params, best_exact = best && best->record.params == params;
        if (!best || (exact && !best_exact) || (exact == best_exact && sr.seq > best->seq)) best = &sr;
    }
    occupancy_cache_.runs[key] = best;
    return best;
}

Workbook::OccupancyInputs Workbook::occupancy_inputs(const Rung& r, const ParamValues& params) {
    OccupancyInputs in;
    // The device and the launch geometry as the course layer resolves them (course/selection.h):
    // the live GPU, else the recorded device the plots show, else its architecture's profile.
    const std::optional<SelectionDevice>& device = selection_view().selection.device;
    if (!device) {
        in.why_not = "No device to compute for: no GPU, no recorded device limits, no profile in assets/devices.";
        return in;
    }
    in.device = device->info;
    in.device_from = device->from;
    // A launch the device refuses (too many threads) is still drawn: its occupancy says why.
    Resolution resolved = resolve_at(*ladder_, r, sizes_, params, dtype_, device);
    if (!resolved.run || (!resolved.refusal.empty() && !resolved.refused_by_device)) {
        in.why_not = resolved.refusal;
        return in;
    }
    const ResolvedRun& run = *resolved.run;
    // The first kernel that runs at these sizes (its `when` holds: flash_bf16 has one entry per
    // head dimension); then its registers and static shared memory from the newest run that
    // launched that entry, at these parameters if there is one. A run of another entry says
    // nothing about this one.
    auto g = std::find_if(run.geometry.begin(), run.geometry.end(),
                          [](const LaunchGeometry& x) { return !x.spec->entry.empty(); });
    if (g == run.geometry.end()) {
        bool has_kernel = false;
        for (const auto& ls : r.launches) has_kernel |= !ls.entry.empty();
        in.why_not = has_kernel ? "None of this rung's kernels runs at these sizes (no launch's `when` holds)."
                                : "This rung launches library routines only (cuBLAS): it has no kernel of its own to "
                                  "look at.";
        return in;
    }
    const LaunchSpec* spec = g->spec;
    in.scope = run.scope;
    in.entry = spec->entry;
    in.when = spec->when.text();
    if (const StoredRun* best = measured_run(r, params, spec->entry)) {
        const LaunchResources* l = best->record.launch_named(spec->entry);
        in.regs = l->kernel.regs_per_thread;
        in.static_smem = l->kernel.static_smem_bytes;
        in.measured = true;
        in.measured_at = best->record.params;
        in.measured_on = best->device.empty() ? std::string("a GPU") : best->device;
    }
    in.threads = static_cast<int>(g->threads());
    in.dynamic_smem = g->dynamic_smem;
    return in;
}

std::string Workbook::predicted_launch_refusal(const Rung& r, const ParamValues& params) {
    if (!ladder_) return "";
    OccupancyInputs in = occupancy_inputs(r, params);
    if (!in.why_not.empty() || !in.measured) return "";
    KernelResources k;
    k.regs_per_thread = in.regs;
    k.static_smem_bytes = in.static_smem;
    const LaunchSpec* spec = nullptr;
    for (const auto& ls : r.launches)
        if (ls.entry == in.entry) spec = &ls;
    std::vector<Expr> smem{spec ? spec->smem : Expr()};
    return launch_refusal(in.device, k, in.threads, in.dynamic_smem,
                          spec ? shrink_advice(r, spec->block, in.scope) : "", shrink_advice(r, smem, in.scope));
}

// [SECTION] Occupancy view

namespace {

struct LimitRow {
    const char* name;
    int blocks;
    std::string why;
};

std::string blocks_text(int b) {
    return b >= Occupancy::kUnlimited ? "no limit" : std::to_string(b) + (b == 1 ? " block" : " blocks");
}

// One bar per resource, scaled to the block slots: the names whole ("shared memory" in bold is
// wider than 120 points), and the bars short enough that each row's count and "<- limit" stay
// inside the panel (a laptop's, or a window zoomed for HiDPI).
void draw_occupancy_limit_rows(const std::vector<LimitRow>& rows, const Occupancy& o, int cap, float s,
                               const Palette& pal, ImFont* bold) {
    float label_w = 120 * s, value_w = 0;
    for (const auto& row : rows) {
        label_w = std::max(label_w, ImGui::CalcTextSize(row.name).x * 1.1f + 10 * s);
        const std::string value = blocks_text(row.blocks) +
                                  (row.blocks > cap && row.blocks < Occupancy::kUnlimited ? " (past the slots)" : "");
        value_w = std::max(value_w, ImGui::CalcTextSize(value.c_str()).x);
    }
    value_w += ImGui::CalcTextSize(" <- limit").x + 3 * ImGui::GetStyle().ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const float bar_w = std::max(60 * s, std::min(avail * 0.45f, avail - label_w - value_w));
    const float h = ImGui::GetFrameHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (const auto& row : rows) {
        const bool limiting = std::find(o.limiters.begin(), o.limiters.end(), row.name) != o.limiters.end();
        ImGui::AlignTextToFramePadding();
        if (limiting) ImGui::PushFont(bold);
        ImGui::TextUnformatted(row.name);
        if (limiting) ImGui::PopFont();
        ImGui::SameLine(label_w);
        ImVec2 p = ImGui::GetCursorScreenPos();
        const float frac = row.blocks >= Occupancy::kUnlimited ? 1.0f : float(row.blocks) / float(cap);
        dl->AddRectFilled(p, ImVec2(p.x + bar_w, p.y + h), pal.panel_alt, 3 * s);
        dl->AddRectFilled(p, ImVec2(p.x + bar_w * std::min(frac, 1.0f), p.y + h),
                          limiting ? pal.accent : with_alpha(pal.muted, 0.45f), 3 * s);
        ImGui::Dummy(ImVec2(bar_w, h));
        ImGui::SameLine();
        ImGui::TextUnformatted((blocks_text(row.blocks) +
                                (row.blocks > cap && row.blocks < Occupancy::kUnlimited ? " (past the slots)" : ""))
                                   .c_str());
        if (limiting) {
            ImGui::SameLine();
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.accent), "<- limit");
        }
        item_tooltip(row.why);
    }
}

}  // namespace

// How occupancy moves: the same arithmetic at every value of the parameter that shapes the
// block (TPB, BM...), the kernel's registers as measured.
void Workbook::draw_occupancy_trend(const Rung& r, const ParamValues& params, const OccupancyInputs& in) {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    const DeviceLimits& d = in.device.limits;
    const LaunchSpec* spec = nullptr;
    for (const auto& ls : r.launches)
        if (ls.entry == in.entry) spec = &ls;
    std::string block_param = spec ? params_used(r, spec->block) : "";
    if (block_param.find(',') != std::string::npos) block_param = block_param.substr(0, block_param.find(','));
    const ParamSpec* ps = block_param.empty() ? nullptr : r.find_param(block_param);
    if (ps && ps->allowed().size() <= 16) {
        ImGui::TextDisabled("Occupancy as %s changes (same registers per thread):", ps->name.c_str());
        for (int64_t v : ps->allowed()) {
            ParamValues trial = params;
            trial[ps->name] = v;
            OccupancyInputs t = occupancy_inputs(r, trial);
            if (!t.why_not.empty()) continue;  // not a value the rung takes with the others
            Occupancy to = compute_occupancy(d, in.regs, in.static_smem + t.dynamic_smem, t.threads);
            std::string chip = ps->name + "=" + std::to_string(v) + ": " +
                               (to.blocks_per_sm ? std::to_string(int(100 * to.fraction() + 0.5)) + "% " + to.limiter
                                                 : std::string("cannot launch"));
            ImGui::SameLine();
            if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(chip.c_str()).x + 8 * s) ImGui::NewLine();
            const bool current = params.count(ps->name) && params.at(ps->name) == v;
            ImU32 col = !to.blocks_per_sm ? pal.bad : current ? pal.accent : pal.muted;
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(col), "%s%s", chip.c_str(), current ? " *" : "");
        }
    }
}

void Workbook::draw_occupancy() {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    if (!rung_) {
        text_centered("Pick a rung to see its occupancy.", pal.muted);
        return;
    }
    const Rung& r = *rung_;
    const ParamValues params = params_for(r);
    OccupancyInputs in = occupancy_inputs(r, params);
    if (!in.why_not.empty()) {
        ImGui::Dummy(ImVec2(0, 20 * s));
        text_centered(in.why_not, pal.muted);
        return;
    }
    const DeviceLimits& d = in.device.limits;
    const int64_t smem = in.static_smem + in.dynamic_smem;
    Occupancy o = compute_occupancy(d, in.regs, smem, in.threads);
    // Header: the result in one line.
    ImGui::PushFont(fonts_.bold);
    ImGui::Text("%d block%s of %d threads per SM = %d of %d warps (%.0f%%)", o.blocks_per_sm,
                o.blocks_per_sm == 1 ? "" : "s", in.threads, o.active_warps, o.max_warps, 100.0 * o.fraction());
    ImGui::PopFont();
    // Beside the header where it fits, else under it (a laptop's or a zoomed window's narrow panel).
    const std::string limited = std::string("limited by ") + (o.blocks_per_sm ? o.limiter : "(cannot launch)");
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(limited.c_str()).x) ImGui::NewLine();
    ImGui::TextDisabled("%s", limited.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.muted));
    ImGui::TextWrapped("%s (%s, limits %s): %d warps, %d blocks, %d registers, %s shared memory per SM",
                       printable(in.device.name, kDeviceNameChars).c_str(), in.device.arch().c_str(),
                       in.device_from.c_str(), d.max_warps_per_sm(), d.max_blocks_per_sm, d.regs_per_sm,
                       (std::to_string(d.smem_per_sm / 1024) + " KB").c_str());
    const std::string kernel = in.entry + (in.when.empty() ? "" : " (runs when " + in.when + ")");
    if (in.measured)
        ImGui::TextWrapped("Kernel %s: %d registers per thread, %lld B static shared memory (measured at %s on %s)",
                           kernel.c_str(), in.regs, (long long)in.static_smem, params_text(in.measured_at).c_str(),
                           in.measured_on.c_str());
    ImGui::PopStyleColor();
    if (!in.measured) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.warn));
        ImGui::TextWrapped("Kernel %s: registers per thread not measured yet: run the rung once (counted as 0 below).",
                           kernel.c_str());
        ImGui::PopStyleColor();
    }
    if (in.measured && in.measured_at != params) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.warn));
        ImGui::TextWrapped(
            "Registers were measured at other parameters: other tile sizes compile to other counts. Run to measure "
            "these.");
        ImGui::PopStyleColor();
    }
    ImGui::Spacing();

    // One bar per resource: the blocks it alone would allow, the smallest highlighted.
    const int64_t regs_warp =
        (int64_t(in.regs) * d.warp_size + d.reg_alloc_unit - 1) / d.reg_alloc_unit * d.reg_alloc_unit;
    std::vector<LimitRow> rows = {
        {"threads", o.by_threads,
         std::to_string(o.max_warps) + " warp slots / " + std::to_string(o.warps_per_block) + " warps per block"},
        {"blocks", o.by_blocks, "at most " + std::to_string(d.max_blocks_per_sm) + " blocks per SM"},
        {"registers", o.by_registers,
         std::to_string(in.regs) + " per thread x 32 = " + std::to_string(regs_warp) + " per warp; " +
             std::to_string(d.regs_per_sm) + " per SM in " + std::to_string(d.reg_sub_partitions) + " quarters"},
        {"shared memory", o.by_shared_memory,
         std::to_string(smem) + " B + " + std::to_string(d.reserved_smem_per_block) + " B reserved -> " +
             std::to_string(o.smem_per_block) + " B per block; " + std::to_string(d.smem_per_sm) + " B per SM"}};
    // Scaled to the block slots: no resource can seat more blocks than the SM has slots for.
    const int cap = std::max(1, d.max_blocks_per_sm);
    draw_occupancy_limit_rows(rows, o, cap, s, pal, fonts_.bold);
    ImGui::Spacing();
    draw_occupancy_trend(r, params, in);
    if (std::string why = predicted_launch_refusal(r, params); !why.empty()) {
        ImGui::Spacing();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.bad));
        ImGui::TextWrapped("Cannot launch: %s", why.c_str());
        ImGui::PopStyleColor();
    }
}

}  // namespace kl::gui
