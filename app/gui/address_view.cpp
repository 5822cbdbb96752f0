#include "gui/address_view.h"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <set>
#include <vector>

#include "base/atomic_file.h"
#include "base/errors.h"

namespace kl::gui {

namespace {

std::string trace_lookup_key(const std::string& ladder, const StepTrace& spec) {
    std::string k = ladder + "/" + spec.rung;
    for (const auto& [n, v] : spec.params) k += " " + n + "=" + std::to_string(v);
    return k;
}

// A colour per sector (the access's distinct sectors, in address order) or per bank.
ImU32 address_cell_colour(int index, int count) {
    const float hue = count <= 1 ? 0.58f : float(index % 32) / float(std::min(count, 32));
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(hue, 0.55f, 0.85f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}

void draw_access_tooltip(const AddressTrace& t, const WarpAccess& a, int lane) {
    ImGui::BeginTooltip();
    const TracedSite& s = t.sites[a.site];
    ImGui::Text("lane %d, %s.%s %d B (PTX line %d)", lane, a.store ? "st" : "ld", a.shared ? "shared" : "global",
                a.bytes, s.ptx_line);
    ImGui::TextUnformatted(s.text.c_str());
    if (a.lanes[lane]) {
        const uint64_t addr = *a.lanes[lane];
        if (a.shared)
            ImGui::Text("shared offset %#" PRIx64 ", word %" PRIu64 ", bank %d", addr, addr / 4, bank_of(addr));
        else
            ImGui::Text("address %#" PRIx64 ", sector %#" PRIx64, addr, addr / kSectorBytes);
    } else {
        ImGui::TextUnformatted("this lane did not make this access");
    }
    ImGui::EndTooltip();
}

// One row: the access's label, then 32 cells.
void draw_access_row(const AddressTrace& t, int index, float cell, float label_w) {
    const WarpAccess& a = t.accesses[index];
    char label[96];
    if (a.shared)
        std::snprintf(label, sizeof label, "#%d %s.shared %dB  %d-way (ideal %d)", index, a.store ? "st" : "ld",
                      a.bytes, a.bank_degree, a.ideal_degree);
    else
        std::snprintf(label, sizeof label, "#%d %s.global %dB  %d sectors (ideal %d)", index, a.store ? "st" : "ld",
                      a.bytes, a.sectors, a.ideal_sectors);
    ImGui::TextUnformatted(label);
    ImGui::SameLine(label_w);
    std::vector<uint64_t> sectors;
    for (const auto& l : a.lanes)
        if (l) sectors.push_back(*l / kSectorBytes);
    std::sort(sectors.begin(), sectors.end());
    sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    for (int lane = 0; lane < kWarpLanes; ++lane) {
        const ImVec2 c0(p0.x + float(lane) * cell, p0.y), c1(c0.x + cell - 2, c0.y + cell - 2);
        ImU32 col = ImGui::GetColorU32(ImGuiCol_FrameBg);
        if (a.lanes[lane]) {
            const uint64_t addr = *a.lanes[lane];
            const int idx =
                a.shared ? bank_of(addr)
                         : int(std::lower_bound(sectors.begin(), sectors.end(), addr / kSectorBytes) - sectors.begin());
            col = address_cell_colour(idx, a.shared ? kSharedBanks : int(sectors.size()));
        }
        dl->AddRectFilled(c0, c1, col, 2);
        if (ImGui::IsMouseHoveringRect(c0, c1)) draw_access_tooltip(t, a, lane);
    }
    ImGui::Dummy(ImVec2(cell * kWarpLanes, std::max(cell, ImGui::GetTextLineHeight())));
}

}  // namespace

void find_step_trace(AddressViewState& st, const std::string& ladder, const StepTrace& spec, const std::string& dir) {
    const std::string key = trace_lookup_key(ladder, spec);
    if (key == st.loaded_for) return;
    st = AddressViewState{};
    st.loaded_for = key;
    std::string first_error;
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".json") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        try {
            AddressTrace t = parse_address_trace(read_file(f, 64 << 20), f);
            if (!trace_matches(t, ladder, spec.rung, spec.params)) continue;
            st.trace = std::move(t);
            st.file = f;
            return;
        } catch (const Error& e) {
            if (first_error.empty()) first_error = e.what();
        }
    }
    st.error = !first_error.empty() ? first_error
                                    : "no recorded trace of " + key + " under " + dir +
                                          " yet: record one on a GPU with `kladder trace " + ladder + " " + spec.rung +
                                          " --json FILE` (docs/formats.md, Address traces)";
}

void draw_address_view(AddressViewState& st, const LessonStep* step, const std::string& traces_dir, float scale) {
    if (!step || !step->trace) {
        ImGui::TextWrapped(
            "This step has no address view. The coalescing, transpose and bank-conflict steps of "
            "lesson 3 have one.");
        return;
    }
    find_step_trace(st, step->ladder, *step->trace, traces_dir);
    if (!st.trace) {
        ImGui::TextWrapped("%s", st.error.c_str());
        return;
    }
    const AddressTrace& t = *st.trace;
    // A file that says it is no recording (the tests' fixture) is never shown as one.
    const bool fixture = t.device.find("not a recording") != std::string::npos;
    if (fixture) ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "Not a recording: %s", t.device.c_str());
    ImGui::TextWrapped("%s %s, %s: block (%" PRId64 ", %" PRId64 ", %" PRId64 "), warp %d of %s/%s.",
                       fixture ? "Made for a test, not traced:" : "Recorded on", t.device.c_str(), t.date.c_str(),
                       t.block[0], t.block[1], t.block[2], t.warp, t.ladder.c_str(), t.rung.c_str());
    std::string params;
    for (const auto& [k, v] : t.params) params += k + "=" + std::to_string(v) + " ";
    for (const auto& [k, v] : t.sizes) params += k + "=" + std::to_string(v) + " ";
    ImGui::TextDisabled("%s(%s)", params.c_str(), st.file.c_str());
    ImGui::TextWrapped(
        "Each row is one load or store of the warp, each cell one lane: global accesses are coloured "
        "by 32-byte sector, shared ones by bank. Hover a cell for its address.");
    if (t.dropped > 0)
        ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "%" PRIu64 " records were dropped: the grid stops short.",
                           t.dropped);
    // The 32 lanes fit beside the labels: cells between 6 and 18 points wide.
    const float label_w = ImGui::CalcTextSize("#0000 ld.global 16B  32 sectors (ideal 16)  ").x;
    const float fit = (ImGui::GetContentRegionAvail().x - label_w - ImGui::GetStyle().ScrollbarSize) / kWarpLanes;
    const float cell = std::clamp(fit, 6 * scale, 18 * scale);
    ImGui::BeginChild("##address_grid", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGuiListClipper clip;
    clip.Begin(int(t.accesses.size()), std::max(cell, ImGui::GetTextLineHeight()) + ImGui::GetStyle().ItemSpacing.y);
    while (clip.Step())
        for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) draw_access_row(t, i, cell, label_w);
    for (const auto& n : t.not_traced) ImGui::TextDisabled("not traced: %s", n.c_str());
    ImGui::EndChild();
}

}  // namespace kl::gui
