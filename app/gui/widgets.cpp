#include "gui/widgets.h"

#include <algorithm>
#include <map>
#include <vector>

#include "gui/ui_style.h"

namespace kl::gui {

void help_marker(const char* text) {
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) item_tooltip(text);
}

void item_tooltip(const std::string& text) {
    if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void section_label(const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().muted));
    ImGui::TextUnformatted(text);
    ImGui::PopStyleColor();
}

void text_centered(const std::string& text, ImU32 color) {
    float w = ImGui::CalcTextSize(text.c_str()).x;
    float avail = ImGui::GetContentRegionAvail().x;
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, (avail - w) * 0.5f));
    if (color) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(color));
    ImGui::TextUnformatted(text.c_str());
    if (color) ImGui::PopStyleColor();
}

void pill(const std::string& text, ImU32 fill, ImU32 ink) {
    ImVec2 size = ImGui::CalcTextSize(text.c_str());
    float px = ImGui::GetFontSize() * 0.45f, py = ImGui::GetFontSize() * 0.12f;
    ImVec2 p = ImGui::GetCursorScreenPos();
    ImVec2 box(size.x + 2 * px, size.y + 2 * py);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + box.x, p.y + box.y), fill, box.y * 0.5f);
    dl->AddText(ImVec2(p.x + px, p.y + py), ink, text.c_str());
    ImGui::Dummy(box);
}

namespace {
struct CalloutFrame {
    ImVec2 start;
    float width;
    ImDrawList* dl;
};
std::vector<CalloutFrame> g_callouts;
}  // namespace

void begin_callout(const char* id) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->ChannelsSplit(2);
    dl->ChannelsSetCurrent(1);
    float pad = ImGui::GetFontSize() * 0.6f;
    ImVec2 start = ImGui::GetCursorScreenPos();
    g_callouts.push_back({start, ImGui::GetContentRegionAvail().x, dl});
    ImGui::SetCursorScreenPos(ImVec2(start.x + pad + 3, start.y + pad));
    ImGui::BeginGroup();
    ImGui::PushID(id);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - pad - 3);
}

void end_callout(ImU32 edge, ImU32 fill) {
    IM_ASSERT(!g_callouts.empty() && "end_callout() without begin_callout()");
    ImGui::PopTextWrapPos();
    ImGui::PopID();
    ImGui::EndGroup();
    CalloutFrame f = g_callouts.back();
    g_callouts.pop_back();
    float pad = ImGui::GetFontSize() * 0.6f;
    ImVec2 end(f.start.x + f.width, ImGui::GetItemRectMax().y + pad);
    f.dl->ChannelsSetCurrent(0);
    f.dl->AddRectFilled(f.start, end, fill, 5.0f);
    f.dl->AddRectFilled(f.start, ImVec2(f.start.x + 3, end.y), edge, 2.0f);
    f.dl->ChannelsMerge();
    ImGui::SetCursorScreenPos(ImVec2(f.start.x, end.y));
    ImGui::Dummy(ImVec2(0, ImGui::GetStyle().ItemSpacing.y * 0.5f));
}

bool splitter(const char* id, bool vertical, float thickness, float length, float* value, float min_value,
              float max_value, float sign) {
    ImVec2 size = vertical ? ImVec2(thickness, length) : ImVec2(length, thickness);
    ImGui::InvisibleButton(id, size);
    bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
    if (hovered || active) ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
    ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    // A grip of three dots in the middle says there is something to drag (issue 38: the gaps
    // between panels read as plain space).
    const ImVec2 mid((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f);
    const float dot = std::max(1.0f, thickness * 0.16f), step = thickness * 0.6f;
    for (int i = -1; i <= 1; ++i)
        ImGui::GetWindowDrawList()->AddCircleFilled(
            vertical ? ImVec2(mid.x, mid.y + i * step) : ImVec2(mid.x + i * step, mid.y), dot, palette().faint);
    if (hovered || active) {
        ImU32 col = with_alpha(palette().accent, active ? 0.9f : 0.5f);
        if (vertical)
            ImGui::GetWindowDrawList()->AddLine(ImVec2((a.x + b.x) * 0.5f, a.y), ImVec2((a.x + b.x) * 0.5f, b.y), col,
                                                2);
        else
            ImGui::GetWindowDrawList()->AddLine(ImVec2(a.x, (a.y + b.y) * 0.5f), ImVec2(b.x, (a.y + b.y) * 0.5f), col,
                                                2);
    }
    if (!active) return false;
    float delta = vertical ? ImGui::GetIO().MouseDelta.x : ImGui::GetIO().MouseDelta.y;
    float before = *value;
    *value = std::clamp(*value + sign * delta, min_value, max_value);
    return *value != before;
}

bool primary_button(const char* label, const ImVec2& size, bool enabled) {
    const Palette& p = palette();
    ImGui::PushStyleColor(ImGuiCol_Button, ImGui::ColorConvertU32ToFloat4(p.accent));
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImGui::ColorConvertU32ToFloat4(mix(p.accent, IM_COL32_WHITE, 0.15f)));
    ImGui::PushStyleColor(ImGuiCol_ButtonActive, ImGui::ColorConvertU32ToFloat4(mix(p.accent, IM_COL32_BLACK, 0.15f)));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
    bool pressed = plain_button(label, size, enabled);
    ImGui::PopStyleColor(4);
    return pressed;
}

bool plain_button(const char* label, const ImVec2& size, bool enabled) {
    if (!enabled) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * 0.45f);
    bool pressed = ImGui::Button(label, size);
    if (!enabled) ImGui::PopStyleVar();
    return pressed && enabled;
}

bool segmented(const char* id, const char* const* labels, int count, int* current) {
    bool changed = false;
    ImGui::PushID(id);
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(2, ImGui::GetStyle().ItemSpacing.y));
    for (int i = 0; i < count; ++i) {
        if (i) ImGui::SameLine();
        bool on = *current == i;
        if (on) {
            ImGui::PushStyleColor(ImGuiCol_Button, ImGui::ColorConvertU32ToFloat4(palette().accent));
            ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImGui::ColorConvertU32ToFloat4(palette().accent));
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
        }
        bool pressed = ImGui::Button(labels[i]);
        test_target(std::string("seg:") + labels[i]);
        if (pressed && !on) {
            *current = i;
            changed = true;
        }
        if (on) ImGui::PopStyleColor(3);
    }
    ImGui::PopStyleVar();
    ImGui::PopID();
    return changed;
}

std::string fit_text(ImFont* font, const std::string& text, float width) {
    auto w = [&](const std::string& t) { return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0, t.c_str()).x; };
    if (w(text) <= width) return text;
    // Binary search over whole UTF-8 characters: a title of 100,000 characters costs a few dozen
    // measurements per frame, not one per character.
    std::vector<size_t> cuts;
    for (size_t i = 0; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) cuts.push_back(i);
    auto candidate = [&](size_t k) {
        std::string t = text.substr(0, cuts[k]);
        while (!t.empty() && t.back() == ' ') t.pop_back();
        return t.empty() ? t : t + "\xE2\x80\xA6";
    };
    size_t lo = 0, hi = cuts.size();  // candidate(k) fits for k < lo, does not for k >= hi
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w(candidate(mid)) <= width)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 ? candidate(lo - 1) : std::string();
}

namespace {
bool g_targets_on = false;
std::map<std::string, std::pair<ImVec2, ImVec2>> g_targets;
}  // namespace

void set_test_targets_enabled(bool on) { g_targets_on = on; }
void test_target(const std::string& name) {
    // Only what can be seen can be clicked: a widget scrolled out of its panel is not a target.
    if (g_targets_on && ImGui::IsItemVisible()) g_targets[name] = {ImGui::GetItemRectMin(), ImGui::GetItemRectMax()};
}
void test_target_rect(const std::string& name, ImVec2 min, ImVec2 max) {
    if (g_targets_on && ImGui::IsRectVisible(min, max)) g_targets[name] = {min, max};
}

bool find_test_target(const std::string& name, ImVec2* min, ImVec2* max) {
    auto it = g_targets.find(name);
    if (it == g_targets.end()) return false;
    *min = it->second.first;
    *max = it->second.second;
    return true;
}
void clear_test_targets() { g_targets.clear(); }

ImU32 with_alpha(ImU32 color, float alpha) {
    ImVec4 c = ImGui::ColorConvertU32ToFloat4(color);
    c.w *= alpha;
    return ImGui::ColorConvertFloat4ToU32(c);
}

ImU32 mix(ImU32 a, ImU32 b, float t) {
    ImVec4 x = ImGui::ColorConvertU32ToFloat4(a), y = ImGui::ColorConvertU32ToFloat4(b);
    return ImGui::ColorConvertFloat4ToU32(
        ImVec4(x.x + (y.x - x.x) * t, x.y + (y.y - x.y) * t, x.z + (y.z - x.z) * t, x.w + (y.w - x.w) * t));
}

}  // namespace kl::gui
