// Fuzz target: the window's settings reader (app/gui/settings.*, the file
// ~/.config/kernel-ladder/workbook.json): parse with the depth limit, read every field typed,
// clamp the numbers, and write the settings back out. What it writes must read back to the same
// settings: a round trip that changes them would lose the reader's progress at the next start.
// Built from the settings source alone (no window, no ImGui), so it builds without a display.
#include <stdexcept>
#include <string>

#include "gui/settings.h"
#include "fuzz_driver.h"

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "settings";
    t.extensions = {".json"};
    t.dictionary = {"\"theme\": ",
                    "\"zoom\": ",
                    "\"window\": {\"width\": ",
                    "\"height\": ",
                    "\"layout\": {",
                    "\"navigator_width\": ",
                    "\"text_fraction\": ",
                    "\"controls_height\": ",
                    "\"frame_overlay\": ",
                    "\"position\": {\"lesson\": ",
                    "\"step\": ",
                    "\"progress\": {\"first_kernel\": {",
                    "\"visited_steps\": [",
                    "\"cards_known\": [",
                    "\"answers\": {\"0\": ",
                    "\"answers\": {\"x\": 1}",
                    "\"answers\": {\"99999999999\": 1}",
                    "-2",
                    "1e300",
                    "-1e300",
                    "2147483648",
                    "-9223372036854775808",
                    "18446744073709551615",
                    "null",
                    "true",
                    "\"light\"",
                    "[",
                    "]",
                    "{",
                    "}",
                    ",",
                    ":",
                    "\""};
    t.run = [](const std::string& text) {
        kl::gui::Settings s = kl::gui::settings_from_json_text(text, "workbook.json");
        const std::string written = kl::gui::settings_to_json(s);
        const std::string again = kl::gui::settings_to_json(kl::gui::settings_from_json_text(written, "written"));
        if (again != written) throw std::logic_error("the settings changed in a write and read back:\n" + written);
    };
    return kl::fuzz::main_for(t, argc, argv);
}
