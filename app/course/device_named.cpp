#include "course/device_named.h"

#include <algorithm>
#include <cctype>

namespace kl {

std::string device_gpu_name(const std::string& device) {
    static const std::string kProfile = " (profile)";
    if (device.size() > kProfile.size() &&
        device.compare(device.size() - kProfile.size(), kProfile.size(), kProfile) == 0)
        return device.substr(0, device.size() - kProfile.size());
    return device;
}

std::string device_short_name(const std::string& device) {
    const std::string name = device_gpu_name(device);
    for (size_t at = 0; at < name.size();) {
        size_t end = name.find(' ', at);
        std::string word = name.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (std::any_of(word.begin(), word.end(), [](unsigned char c) { return std::isdigit(c); }))
            return word.substr(0, word.find('-'));  // "A100-SXM4-40GB": the A100
        if (end == std::string::npos) break;
        at = end + 1;
    }
    return name;
}

namespace {

// The paragraphs of `text` with their offsets; the whole text when an `{{ if }}` spans two.
std::vector<std::pair<size_t, std::string>> named_check_paragraphs(const std::string& text) {
    std::vector<std::pair<size_t, std::string>> out;
    for (size_t at = 0;;) {
        size_t end = text.find("\n\n", at);
        out.push_back({at, text.substr(at, end == std::string::npos ? std::string::npos : end + 2 - at)});
        if (end == std::string::npos) break;
        at = end + 2;
    }
    for (const auto& [offset, p] : out) {
        std::vector<Binding> bs = find_bindings(p, nullptr);
        long depth = 0;
        for (const Binding& b : bs) depth += b.kind == Binding::Kind::If ? 1 : b.kind == Binding::Kind::End ? -1 : 0;
        if (depth != 0) return {{0, text}};
    }
    return out;
}

bool text_names_word(const std::string& text, const std::string& word) {
    if (word.empty()) return false;
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
        return s;
    };
    // As a word: the T4 is not named by "float4".
    const std::string t = lower(text), w = lower(word);
    auto joins = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    for (size_t at = t.find(w); at != std::string::npos; at = t.find(w, at + 1))
        if ((at == 0 || !joins(t[at - 1])) && (at + w.size() == t.size() || !joins(t[at + w.size()]))) return true;
    return false;
}

}  // namespace

std::vector<ForeignFigure> foreign_figures(const std::string& text, const NumberSources& sources,
                                           const std::string& shown) {
    std::vector<ForeignFigure> out;
    const std::string shown_gpu = device_gpu_name(shown), shown_short = device_short_name(shown);
    for (const auto& [offset, paragraph] : named_check_paragraphs(text)) {
        std::vector<BoundValue> values;
        const std::string rendered = sources.render(paragraph, &values);
        const bool presents_shown = text_names_word(rendered, shown_short) || text_names_word(rendered, "this GPU") ||
                                    text_names_word(rendered, "your GPU") || text_names_word(rendered, "this device") ||
                                    text_names_word(rendered, "measured here");
        for (const BoundValue& v : values) {
            // A recorded measurement (a datasheet figure or a typed number has no date; the
            // learner's own run is the shown GPU's).
            if (!v.ok || v.withheld || v.text || v.live || v.date.empty()) continue;
            if (device_gpu_name(v.device) == shown_gpu || text_names_word(rendered, device_short_name(v.device)))
                continue;
            if (!presents_shown && !v.as_shown_device) continue;
            out.push_back({offset, v.shown, v.device});
            break;
        }
    }
    return out;
}

namespace {
// The sentence of `rendered` around [at, at + len): from the end of the previous sentence (". ",
// "? ", "! ", a paragraph or a table row's start) to the end of its own.
std::string sentence_around(const std::string& rendered, size_t at, size_t len) {
    auto ends_sentence = [&](size_t i) {  // ". " or ".\n" (and ?, !) at i, a blank line, a table row
        const char c = rendered[i], next = i + 1 < rendered.size() ? rendered[i + 1] : ' ';
        return ((c == '.' || c == '?' || c == '!') && (next == ' ' || next == '\n')) ||
               (c == '\n' && (next == '\n' || next == '|'));
    };
    size_t begin = at;
    while (begin > 0 && !ends_sentence(begin - 1)) --begin;
    size_t end = at + len;
    while (end < rendered.size() && !ends_sentence(end)) ++end;
    return rendered.substr(begin, end - begin);
}
}  // namespace

std::vector<ForeignFigure> borrowed_as_own(const std::string& text, const NumberSources& sources,
                                           const std::string& shown) {
    std::vector<ForeignFigure> out;
    const std::string shown_gpu = device_gpu_name(shown);
    for (const auto& [offset, paragraph] : named_check_paragraphs(text)) {
        std::vector<BoundValue> values;
        const std::string rendered = sources.render(paragraph, &values);
        size_t cursor = 0;
        std::string last_sentence;
        for (const BoundValue& v : values) {
            if (!v.ok || v.withheld || v.text || v.shown.empty()) continue;
            const size_t at = rendered.find(v.shown, cursor);
            if (at == std::string::npos) continue;
            cursor = at + v.shown.size();
            // A card figure stated as the shown GPU's, answered by another GPU's card.
            if (!v.as_shown_device || v.live || v.date.empty() || device_gpu_name(v.device) == shown_gpu) continue;
            const std::string sentence = sentence_around(rendered, at, v.shown.size());
            if (sentence == last_sentence) continue;
            if (text_names_word(sentence, "your GPU") || text_names_word(sentence, "this GPU") ||
                text_names_word(sentence, "this device") || text_names_word(sentence, "measured here")) {
                out.push_back({offset, v.shown, v.device});
                last_sentence = sentence;
            }
        }
    }
    return out;
}

}  // namespace kl
