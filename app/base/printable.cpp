#include "base/printable.h"

#include <cstdio>

namespace kl {

namespace {

// The code point that starts at text[i] and its length in bytes; length 0 where the bytes are
// not valid UTF-8 (a stray continuation byte, a cut sequence, an overlong form, a surrogate, a
// value above U+10FFFF).
struct CodePoint {
    char32_t value = 0;
    size_t length = 0;
};

CodePoint decode(std::string_view text, size_t i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) return {lead, 1};
    size_t length = 0;
    char32_t value = 0, smallest = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, value = lead & 0x1F, smallest = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, value = lead & 0x0F, smallest = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, value = lead & 0x07, smallest = 0x10000;
    } else {
        return {};
    }
    if (text.size() - i < length) return {};
    for (size_t k = 1; k < length; ++k) {
        const auto next = static_cast<unsigned char>(text[i + k]);
        if ((next & 0xC0) != 0x80) return {};
        value = (value << 6) | (next & 0x3F);
    }
    if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {};
    return {value, length};
}

// Code points a terminal or a text renderer acts on instead of showing: C0 and DEL, C1 (CSI,
// OSC and the rest in their 8-bit forms), and the bidirectional embeddings, overrides and
// isolates, which make text display in another order than it is stored.
bool is_control(char32_t c) {
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

void append_escape(std::string& out, char32_t c, bool raw_byte) {
    char buf[16];
    if (c == '\n') {
        out += "\\n";
    } else if (c == '\t') {
        out += "\\t";
    } else if (c == '\r') {
        out += "\\r";
    } else {
        std::snprintf(buf, sizeof buf, raw_byte || c < 0x80 ? "\\x%02x" : "\\u%04x", static_cast<unsigned>(c));
        out += buf;
    }
}

std::string escape(std::string_view text, size_t max_chars, bool keep_lines) {
    std::string out;
    out.reserve(text.size() < 4096 ? text.size() : 4096);
    size_t shown = 0;
    for (size_t i = 0; i < text.size();) {
        CodePoint cp = decode(text, i);
        const size_t length = cp.length ? cp.length : 1;
        if (shown + 1 >= max_chars && i + length < text.size()) {  // more than one character left
            if (max_chars > 0) out += "\xE2\x80\xA6";
            break;
        }
        if (shown >= max_chars) break;
        if (!cp.length)
            append_escape(out, static_cast<unsigned char>(text[i]), true);
        else if (keep_lines && (cp.value == '\n' || cp.value == '\t'))
            out += static_cast<char>(cp.value);
        else if (is_control(cp.value))
            append_escape(out, cp.value, false);
        else
            out.append(text, i, length);
        i += length;
        ++shown;
    }
    return out;
}

}  // namespace

std::string printable(std::string_view text, size_t max_chars) { return escape(text, max_chars, false); }

std::string printable_lines(std::string_view text, size_t max_chars) { return escape(text, max_chars, true); }

}  // namespace kl
