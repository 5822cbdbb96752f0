// Text from a file made safe to show. Lesson and rung titles, a results file's device name, the
// messages that quote file content: any of them can hold terminal control sequences (OSC 52
// writes the clipboard, OSC 0 retitles the window, ESC [2J clears the screen), bytes that are
// not UTF-8, or a million characters. Everything the programs print or draw from a file goes
// through printable() first (docs/security.md, "Output").
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace kl {

constexpr size_t kNoCap = static_cast<size_t>(-1);
// How many characters of a file's string are shown (the cut ends in an ellipsis).
constexpr size_t kDeviceNameChars = 200;  // a results file's device name
constexpr size_t kTitleChars = 160;       // lesson, step, ladder, rung and run titles
constexpr size_t kMessageChars = 4096;    // one error line (it may quote a path and a value)

// One line of text: every control character (C0, tab and line breaks included; DEL; C1)
// becomes a visible escape ("\x1b", "\n", "\u009b"), as do Unicode's bidirectional overrides
// (text displayed in another order than it is stored); each byte that is not part of valid
// UTF-8 becomes "\xNN". At most `max_chars` characters (code points of `text`) are shown: a
// longer text keeps max_chars - 1 of them and ends in "…". The result holds no byte below 0x20
// and is valid UTF-8; without a cap, printable(printable(s)) == printable(s).
std::string printable(std::string_view text, size_t max_chars = kNoCap);

// The same for text of several lines (a compiler's log, PTX): line breaks and tabs stay.
std::string printable_lines(std::string_view text, size_t max_chars = kNoCap);

}  // namespace kl
