// Lesson text against the rungs' numbers (rung_numbers.h).
#include "course/rung_numbers.h"

#include <cctype>
#include <filesystem>
#include <regex>

#include "course/lesson_check.h"

namespace fs = std::filesystem;

namespace kl {

namespace {

const Ladder* ladder_named(const std::vector<Ladder>& ladders, const std::string& id) {
    for (const auto& L : ladders)
        if (L.id == id) return &L;
    return nullptr;
}

// The rung `id` means here: in the ladder named before "rung" or in the binding, else in the
// step's ladder, else in the one ladder that has such a rung (none when several do).
const Rung* rung_meant(const std::vector<Ladder>& ladders, const std::string& ladder, const std::string& step_ladder,
                       const std::string& id) {
    for (const std::string& l : {ladder, step_ladder})
        if (const Ladder* L = l.empty() ? nullptr : ladder_named(ladders, l)) return L->find_rung(id);
    const Rung* found = nullptr;
    for (const auto& L : ladders)
        if (const Rung* r = L.find_rung(id)) {
            if (found) return nullptr;
            found = r;
        }
    return found;
}

// "4" names rung "04" (the same number without its leading zero), "4b" rung "04b".
bool same_number(const std::string& own, const std::string& said) {
    auto bare = [](const std::string& n) {
        size_t z = 0;
        while (z + 1 < n.size() && n[z] == '0' && std::isdigit(static_cast<unsigned char>(n[z + 1]))) ++z;
        return n.substr(z);
    };
    return bare(own) == bare(said);
}

int line_of_offset(const std::string& text, size_t offset) {
    int line = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
    return line;
}

// "[ladder ]rung N['s] `id`", "... (id)" or "... {{ [= ]ladder/id ...": the number and the rung
// named beside it.
void check_text(const std::vector<Ladder>& ladders, const std::string& step_ladder, const std::string& where,
                const std::string& text, std::vector<std::string>* out) {
    static const std::regex mention(
        R"((?:\b([a-z_]+) )?\b[Rr]ung ([0-9]+[a-z]?)(?:'s)?,? (?:`([a-z0-9_]+)`|\(([a-z0-9_]+)[,)]|\{\{ (?:= )?([a-z0-9_]+)/([a-z0-9_]+)))");
    const bool markdown = where.size() > 3 && where.compare(where.size() - 3, 3, ".md") == 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), mention); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        const std::string number = m[2], before = m[1];
        const bool bound = m[5].matched;
        const std::string ladder = bound ? m[5].str() : ladder_named(ladders, before) ? before : "";
        const std::string id = bound ? m[6].str() : m[3].matched ? m[3].str() : m[4].str();
        const Rung* r = rung_meant(ladders, ladder, step_ladder, id);
        if (!r || same_number(r->number, number)) continue;
        out->push_back(where + (markdown ? ":" + std::to_string(line_of_offset(text, m.position(0))) : "") +
                       ": calls rung " + id + " 'rung " + number + "', but its number is " + r->number +
                       " (the strip's and `kladder list`'s)");
    }
}

}  // namespace

std::vector<std::string> check_rung_numbers(const std::vector<Lesson>& lessons, const std::vector<Ladder>& ladders) {
    std::vector<std::string> out;
    static const std::regex predict_rung(R"(^Predict rung ([0-9]+[a-z]?)\b)");
    for (const Lesson& lesson : lessons) {
        // Each text with the ladder of the step it belongs to (none for self-checks and cards).
        for (const LessonText& t : lesson_texts(lesson)) {
            std::string step_ladder;
            for (size_t i = 0; i < lesson.steps.size(); ++i) {
                const std::string field = lesson.manifest_path + ": step[" + std::to_string(i) + "].";
                if (t.where.rfind(field, 0) == 0 ||
                    t.where == (fs::path(lesson.dir) / lesson.steps[i].text_path).string())
                    step_ladder = lesson.steps[i].ladder;
            }
            check_text(ladders, step_ladder, t.where, t.text, &out);
        }
        for (size_t i = 0; i < lesson.steps.size(); ++i) {
            const LessonStep& s = lesson.steps[i];
            std::smatch m;
            const Ladder* L = ladder_named(ladders, s.ladder);
            const Rung* r = L && !s.rung.empty() ? L->find_rung(s.rung) : nullptr;
            if (!r || !std::regex_search(s.predict_ask, m, predict_rung)) continue;
            const std::string number = m[1];
            if (!same_number(r->number, number))
                out.push_back(lesson.manifest_path + ": step[" + std::to_string(i) +
                              "].predict.ask: asks about 'rung " + number + "', but the step's rung " + r->id +
                              " is number " + r->number);
        }
    }
    return out;
}

}  // namespace kl
