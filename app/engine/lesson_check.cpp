#include "lesson_check.h"

#include <cctype>
#include <filesystem>
#include <regex>

#include "device_card.h"
#include "errors.h"
#include "prediction.h"
#include "toml_reader.h"

namespace fs = std::filesystem;

namespace kl {

std::vector<LessonText> lesson_texts(const Lesson& lesson) {
    std::vector<LessonText> out;
    std::string toml = lesson.manifest_path + ": ";
    auto add = [&](const std::string& where, const std::string& text) {
        if (!text.empty()) out.push_back({where, text});
    };
    for (size_t i = 0; i < lesson.steps.size(); ++i) {
        const LessonStep& s = lesson.steps[i];
        std::string f = toml + "step[" + std::to_string(i) + "].";
        add((fs::path(lesson.dir) / s.text_path).string(), s.text);
        add(f + "look_at", s.look_at);
        add(f + "question", s.question);
        add(f + "answer", s.answer);
        add(f + "predict.ask", s.predict_ask);
        add(f + "predict.why", s.predict_why);
        add(f + "no_predict", s.no_predict);
        if (s.exercise) {  // a live exercise's words follow the same rule
            add(f + "exercise.title", s.exercise->title);
            add(f + "exercise.text", s.exercise->text);
        }
    }
    for (size_t i = 0; i < lesson.checks.size(); ++i) {
        const CheckQuestion& q = lesson.checks[i];
        std::string f = toml + "check[" + std::to_string(i) + "].";
        add(f + "question", q.question);
        add(f + "answer", q.answer);
        for (size_t c = 0; c < q.choices.size(); ++c) add(f + "choices[" + std::to_string(c) + "]", q.choices[c]);
    }
    for (size_t i = 0; i < lesson.cards.size(); ++i) {
        add(toml + "card[" + std::to_string(i) + "].front", lesson.cards[i].front);
        add(toml + "card[" + std::to_string(i) + "].back", lesson.cards[i].back);
    }
    add((fs::path(lesson.dir) / "exercise").string() + " text", lesson.exercise_text);
    return out;
}

std::vector<AllowedNumber> load_allowed_numbers(const std::string& path) {
    std::vector<AllowedNumber> out;
    std::error_code ec;
    if (!fs::exists(path, ec)) return out;
    TomlReader r(path);
    r.allow_only(r.root(), "", {"allow"});
    const toml::node* n = r.root().get("allow");
    if (!n) return out;
    const toml::array* arr = n->as_array();
    if (!arr) r.fail(line_of(*n), "allow", "expected [[allow]] entries");
    for (size_t i = 0; i < arr->size(); ++i) {
        std::string f = "allow[" + std::to_string(i) + "]";
        const toml::table* t = arr->get(i)->as_table();
        if (!t) r.fail(line_of(*arr->get(i)), f, "expected a table");
        r.allow_only(*t, f, {"lesson", "text", "source"});
        AllowedNumber a;
        a.line = line_of(*t);
        a.lesson = r.string(*t, "lesson", f);
        a.text = r.string(*t, "text", f);
        a.source = r.string(*t, "source", f);
        if (a.source.size() < 8) r.fail(a.line, f + ".source", "say where the number comes from");
        std::vector<UnitNumber> one = find_unit_numbers(a.text);
        if (one.size() != 1 || one[0].text != a.text)
            r.fail(a.line, f + ".text", "'" + a.text + "' is not one number with a unit");
        out.push_back(a);
    }
    return out;
}

std::vector<UnitNumber> find_unit_numbers(const std::string& text) {
    // A number (digits, thousands commas, decimals), an optional space, then a unit of time,
    // bandwidth or FLOP rate that is not the start of a longer word; seconds only after a space
    // ("0.1 s", not "counting 1s").
    static const std::regex re(
        "([0-9][0-9,]*(\\.[0-9]+)?)( ?(ms|µs|μs|us|ns|GB/s|TB/s|MB/s|GiB/s|TiB/s|TFLOP/s|GFLOP/s|PFLOP/s|"
        "TFLOPS|GFLOPS|TFLOPs|GFLOPs|cycles)| s)(?![A-Za-z0-9/])");
    std::vector<UnitNumber> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
        size_t pos = static_cast<size_t>(it->position(0));
        // Not part of an identifier or a longer number ("x2ms", "sm_90 s").
        if (pos > 0) {
            unsigned char c = static_cast<unsigned char>(text[pos - 1]);
            if (std::isalnum(c) || c == '_' || c == '.') continue;
        }
        out.push_back({pos, it->str(0)});
    }
    return out;
}

namespace {
int line_at(const std::string& text, size_t offset) {
    int line = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
    return line;
}
}  // namespace

std::vector<std::string> check_lessons(const std::vector<Lesson>& lessons, const NumberSources& sources,
                                       const std::vector<AllowedNumber>& allowed) {
    std::vector<std::string> out;
    for (const Lesson& lesson : lessons) {
        std::string folder = fs::path(lesson.dir).filename().string();
        // Predict, then reveal: a step that runs a rung asks for a prediction or says why not.
        for (size_t i = 0; i < lesson.steps.size(); ++i) {
            const LessonStep& s = lesson.steps[i];
            std::string where = lesson.manifest_path + ": step[" + std::to_string(i) + "]";
            if (!s.rung.empty() && s.predict_metric.empty() && s.no_predict.empty())
                out.push_back(
                    where + ": runs a rung but neither asks for a prediction (predict) nor says why not (no_predict)");
            // A learner without a GPU must still see the reveal: the judged run must be recorded.
            if (!s.predict_metric.empty()) {
                Binding b = prediction_binding(s);
                BoundValue v = sources.resolve(b);
                if (!v.ok)
                    out.push_back(where + ".predict: no recording answers it (`{{ " + b.source + " }}`: " + v.error +
                                  "); record that run or change predict.at");
            }
        }
        for (const LessonText& t : lesson_texts(lesson)) {
            bool markdown = t.where.size() > 3 && t.where.compare(t.where.size() - 3, 3, ".md") == 0;
            auto at = [&](size_t offset) {
                return t.where + (markdown ? ":" + std::to_string(line_at(t.text, offset)) : "");
            };
            std::vector<std::string> errors;
            std::vector<Binding> bs = find_bindings(t.text, &errors);
            for (const auto& e : errors) out.push_back(t.where + ": malformed binding " + e);
            std::string rest = t.text;
            for (const auto& b : bs) {
                BoundValue v = sources.resolve(b);
                if (!v.ok) out.push_back(at(b.begin) + ": `{{ " + b.source + " }}` resolves to nothing: " + v.error);
                for (size_t i = b.begin; i < b.end; ++i) rest[i] = ' ';
            }
            for (const auto& num : find_unit_numbers(rest)) {
                bool ok = false;
                for (const auto& a : allowed)
                    if ((a.lesson == "*" || a.lesson == folder) && a.text == num.text) ok = a.used = true;
                if (!ok)
                    out.push_back(at(num.pos) + ": unbound measured number '" + num.text +
                                  "' (bind it to a recording, or allow-list it with its source)");
            }
        }
    }
    for (const auto& a : allowed)
        if (!a.used)
            out.push_back("numbers_allowed.toml:" + std::to_string(a.line) + ": '" + a.text + "' (" + a.lesson +
                          ") is no longer in the lessons: remove the entry");
    return out;
}

std::vector<std::string> check_device_cards(const NumberSources& sources, const std::string& cards_dir) {
    std::vector<std::string> out;
    for (const auto& [slug, doc] : make_device_cards(sources.recorded())) {
        std::string path = (fs::path(cards_dir) / (slug + ".json")).string();
        const DeviceCard* have = nullptr;
        for (const auto& c : sources.cards())
            if (fs::path(c.path).filename() == slug + ".json") have = &c;
        if (!have)
            out.push_back(path + ": missing: run `kladder make-cards`");
        else if (have->doc != doc)
            out.push_back(path + ": differs from what the recordings make today: run `kladder make-cards`");
    }
    return out;
}

}  // namespace kl
