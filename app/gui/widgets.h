// The workbook's small widget vocabulary on top of ImGui (Tracy keeps one too): the pieces every
// panel uses, so that panels look alike and read alike.
#pragma once
#include <imgui.h>

#include <string>

namespace kl::gui {

// "(?)" in the muted colour; hovering shows `text` wrapped at a readable width.
void help_marker(const char* text);
// A tooltip with wrapped text, shown while the last item is hovered.
void item_tooltip(const std::string& text);
// Muted small capitals-style label that opens a section ("PARAMETERS").
void section_label(const char* text);
// Text centred in the available width.
void text_centered(const std::string& text, ImU32 color = 0);
// A rounded tag: "PASS", "fp32", "live".
void pill(const std::string& text, ImU32 fill, ImU32 ink);
// A box with a coloured left edge around what is drawn between begin and end (not nestable).
void begin_callout(const char* id);
void end_callout(ImU32 edge, ImU32 fill);
// A draggable divider of `thickness` pixels; adds the mouse movement to `value` (clamped).
bool splitter(const char* id, bool vertical, float thickness, float length, float* value, float min_value,
              float max_value, float sign = 1.0f);
// A button drawn in the accent colour (the primary action of a panel).
bool primary_button(const char* label, const ImVec2& size = ImVec2(0, 0), bool enabled = true);
bool plain_button(const char* label, const ImVec2& size = ImVec2(0, 0), bool enabled = true);
// A row of mutually exclusive buttons; returns true when `current` changed.
bool segmented(const char* id, const char* const* labels, int count, int* current);

// `text` cut to `width` pixels in `font`, with an ellipsis when it had to be cut.
std::string fit_text(ImFont* font, const std::string& text, float width);

// [SECTION] Test targets: a scripted test (--script) clicks widgets by name, not by pixel.
// test_target() records the last item's rectangle under `name` while scripting is on.
void set_test_targets_enabled(bool on);
void test_target(const std::string& name);
// The same for a rectangle that is not an item (a line of the code editor), when it is visible.
void test_target_rect(const std::string& name, ImVec2 min, ImVec2 max);
bool find_test_target(const std::string& name, ImVec2* min, ImVec2* max);
void clear_test_targets();

ImU32 with_alpha(ImU32 color, float alpha);
ImU32 mix(ImU32 a, ImU32 b, float t);

}  // namespace kl::gui
