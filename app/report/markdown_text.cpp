#include "report/markdown_text.h"

#include <algorithm>
#include <cctype>

#include "base/printable.h"

namespace kl::report {

namespace {

// One line: line breaks and tabs become spaces, other control characters visible escapes.
std::string one_printable_line(std::string_view text) {
    std::string flat(text);
    for (char& c : flat)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    return printable(flat);
}

bool starts_with_ci(std::string_view text, size_t at, std::string_view word) {
    if (text.size() - at < word.size()) return false;
    for (size_t k = 0; k < word.size(); ++k)
        if (std::tolower(static_cast<unsigned char>(text[at + k])) != word[k]) return false;
    return true;
}

size_t run_length(std::string_view text, size_t at, char c) {
    size_t n = 0;
    while (at + n < text.size() && text[at + n] == c) ++n;
    return n;
}

// "<http://...>", "<https://...>" or "<mailto:...>" closed on the same line without spaces or
// another "<": CommonMark's autolink. Returns its length, or 0.
size_t safe_autolink(std::string_view line, size_t at) {
    if (!starts_with_ci(line, at + 1, "http://") && !starts_with_ci(line, at + 1, "https://") &&
        !starts_with_ci(line, at + 1, "mailto:"))
        return 0;
    for (size_t k = at + 1; k < line.size(); ++k) {
        const auto c = static_cast<unsigned char>(line[k]);
        if (c == '>') return k + 1 - at;
        if (c <= ' ' || c == '<') return 0;
    }
    return 0;
}

// "<!-- ... -->" closed on the same line: its length, or 0.
size_t closed_comment(std::string_view line, size_t at) {
    if (line.compare(at, 4, "<!--") != 0) return 0;
    size_t end = line.find("-->", at + 4);
    if (line.compare(at + 4, 1, ">") == 0 || line.compare(at + 4, 2, "->") == 0) return 0;
    return end == std::string_view::npos ? 0 : end + 3 - at;
}

// One line of prose outside fenced code. Code spans are matched on the line only: one that a
// renderer would continue on the next line is escaped as prose here (shown with "&lt;"), never
// the reverse, which would leave live HTML.
void escape_prose_line(std::string_view line, std::string& out) {
    for (size_t i = 0; i < line.size();) {
        const char c = line[i];
        if (c == '\\' && i + 1 < line.size()) {  // an escaped character is text already
            out.append(line, i, 2);
            i += 2;
        } else if (c == '`') {
            const size_t n = run_length(line, i, '`');
            size_t close = i + n;
            while ((close = line.find('`', close)) != std::string_view::npos && run_length(line, close, '`') != n)
                close += run_length(line, close, '`');
            const size_t end = close == std::string_view::npos ? i + n : close + n;  // unmatched: literal
            out.append(line, i, end - i);
            i = end;
        } else if (c == '<' && i + 1 < line.size() &&
                   (std::isalpha(static_cast<unsigned char>(line[i + 1])) || line[i + 1] == '/' || line[i + 1] == '!' ||
                    line[i + 1] == '?')) {
            size_t keep = safe_autolink(line, i);
            if (!keep) keep = closed_comment(line, i);
            if (keep) {
                out.append(line, i, keep);
                i += keep;
            } else {
                out += "&lt;";
                ++i;
            }
        } else {
            out += c;
            ++i;
        }
    }
}

// A line that opens a fenced code block wherever it stands: three or more backticks or tildes
// at column 0. (An indented fence may belong to a list item whose next unindented line ends
// the item and the code with it: a renderer would read raw HTML there, so such a fence is
// escaped as prose, which costs at worst an "&lt;" shown in code.)
bool opens_fence(std::string_view line, char* fence_char, size_t* fence_length) {
    if (line.empty() || (line[0] != '`' && line[0] != '~')) return false;
    const size_t n = run_length(line, 0, line[0]);
    if (n < 3 || (line[0] == '`' && line.find('`', n) != std::string_view::npos)) return false;
    *fence_char = line[0];
    *fence_length = n;
    return true;
}

// The closing fence of one opened by `fence_char` x `fence_length`: up to three spaces, at least
// as many of the same character, nothing else.
bool closes_fence(std::string_view line, char fence_char, size_t fence_length) {
    size_t indent = 0;
    while (indent < line.size() && indent < 4 && line[indent] == ' ') ++indent;
    if (indent > 3 || run_length(line, indent, fence_char) < fence_length) return false;
    return line.find_first_not_of(std::string(1, fence_char) + " \r\n", indent) == std::string_view::npos;
}

}  // namespace

std::string markdown_text(std::string_view text) {
    const std::string line = one_printable_line(text);
    std::string out;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '\\':
            case '`':
            case '*':
            case '_':
            case '[':
            case ']':
            case '(':
            case ')':
            case '!':
            case '#':
            case '|':
            case '~':
                out += '\\';
                out += c;
                break;
            case ':':  // "http://" would be linked by GFM's extended autolinks
                out += line.compare(i + 1, 2, "//") == 0 ? "\\:" : ":";
                break;
            case '.':  // and so would "www.example.com"
                out += i >= 3 && starts_with_ci(line, i - 3, "www") ? "\\." : ".";
                break;
            default: out += c;
        }
    }
    return out;
}

std::string markdown_prose(std::string_view markdown, bool starts_line) {
    std::string out;
    char fence_char = 0;
    size_t fence_length = 0;
    bool fenced = false;
    for (size_t start = 0; start < markdown.size();) {
        size_t end = markdown.find('\n', start);
        const size_t next = end == std::string_view::npos ? markdown.size() : end + 1;
        std::string_view line = markdown.substr(start, next - start);
        if (fenced) {
            out.append(line);  // code: HTML there is shown as it is written
            fenced = !closes_fence(line, fence_char, fence_length);
        } else if ((start > 0 || starts_line) && opens_fence(line, &fence_char, &fence_length)) {
            out.append(line);
            fenced = true;
        } else {
            escape_prose_line(line, out);
        }
        start = next;
    }
    return out;
}

std::string markdown_code_cell(std::string_view text) {
    std::string line = one_printable_line(text);
    size_t longest = 0;
    for (size_t i = 0; i < line.size(); ++i)
        if (line[i] == '`') longest = std::max(longest, run_length(line, i, '`'));
    std::string cell;
    for (char c : line) cell += c == '|' ? std::string("\\|") : std::string(1, c);
    const std::string fence(longest + 1, '`');
    // A space inside the fence keeps a backtick at either end from joining it (CommonMark strips one).
    const bool pad = !cell.empty() && (cell.front() == '`' || cell.back() == '`' || cell.front() == ' ');
    return fence + (pad ? " " + cell + " " : cell) + fence;
}

}  // namespace kl::report
