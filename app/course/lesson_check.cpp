#include "course/lesson_check.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <optional>
#include <set>

#include "base/errors.h"
#include "base/toml_reader.h"
#include "course/device_named.h"
#include "course/prediction.h"
#include "course/reveal.h"
#include "model/device_card.h"

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

namespace {

// The unit a table header or caption names as a whole token ("naive ms", "TFLOP/s", "in GB/s:"),
// or "".
std::string unit_named_in(const std::string& text) {
    static const std::regex re(
        "(^|[^A-Za-z0-9/])(ms|µs|μs|us|ns|GB/s|TB/s|MB/s|GiB/s|TiB/s|TFLOP/s|GFLOP/s|PFLOP/s|TFLOPS|GFLOPS)"
        "(?![A-Za-z0-9/])");
    std::smatch m;
    return std::regex_search(text, m, re) ? m.str(2) : "";
}

std::vector<std::string> table_cells(const std::string& line, std::vector<size_t>* starts) {
    std::vector<std::string> cells;
    size_t a = line.find('|');
    while (a != std::string::npos) {
        size_t b = line.find('|', a + 1);
        if (b == std::string::npos) break;
        std::string cell = line.substr(a + 1, b - a - 1);
        size_t lead = cell.find_first_not_of(' ');
        size_t trail = cell.find_last_not_of(' ');
        cells.push_back(lead == std::string::npos ? "" : cell.substr(lead, trail - lead + 1));
        if (starts) starts->push_back(a + 1 + (lead == std::string::npos ? 0 : lead));
        a = b;
    }
    return cells;
}

}  // namespace

std::vector<UnitNumber> find_table_unit_numbers(const std::string& text) {
    // A Markdown table whose header cell names a unit ("naive ms"), or whose caption (the last
    // non-empty line before it) does ("..., in TFLOP/s:"), quotes that unit in every bare number
    // of the column: "435" under "TFLOP/s" is "435 TFLOP/s" to the checker.
    static const std::regex bare("(~|≈)?[0-9][0-9,]*(\\.[0-9]+)?");
    std::vector<std::string> lines;
    std::vector<size_t> offsets;
    for (size_t pos = 0; pos <= text.size();) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        lines.push_back(text.substr(pos, nl - pos));
        offsets.push_back(pos);
        pos = nl + 1;
    }
    std::vector<UnitNumber> out;
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
        bool header = lines[i].rfind("|", 0) == 0 && lines[i + 1].rfind("|", 0) == 0 &&
                      lines[i + 1].find("---") != std::string::npos && (i == 0 || lines[i - 1].rfind("|", 0) != 0);
        if (!header) continue;
        std::string caption;
        for (size_t k = i; k-- > 0 && caption.empty();)
            if (lines[k].find_first_not_of(' ') != std::string::npos) caption = lines[k];
        const std::string caption_unit = unit_named_in(caption);
        std::vector<std::string> head = table_cells(lines[i], nullptr);
        for (size_t r = i + 2; r < lines.size() && lines[r].rfind("|", 0) == 0; ++r) {
            std::vector<size_t> starts;
            std::vector<std::string> cells = table_cells(lines[r], &starts);
            for (size_t c = 1; c < cells.size(); ++c) {
                std::string unit = c < head.size() ? unit_named_in(head[c]) : "";
                if (unit.empty()) unit = caption_unit;
                if (unit.empty() || !std::regex_match(cells[c], bare)) continue;
                out.push_back({offsets[r] + starts[c], cells[c] + " " + unit});
            }
        }
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

namespace {

// `figure` typed (not bound) in `text` as a number of its own: "24.1" in "24.1 GiB", not in "124.1".
bool types_figure(const std::string& text, const std::string& figure) {
    for (size_t at = text.find(figure); at != std::string::npos; at = text.find(figure, at + 1)) {
        auto number_char = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ','; };
        bool starts = at == 0 || !number_char(text[at - 1]);
        size_t end = at + figure.size();
        bool ends = end >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[end])) ||
                                            (end + 1 < text.size() && (text[end] == '.' || text[end] == ',') &&
                                             std::isdigit(static_cast<unsigned char>(text[end + 1]))));
        if (starts && ends) return true;
    }
    return false;
}

// Predict, then reveal: one prediction per step, with its own why, and nothing above the marker
// (or in what shows beside the prompt) that gives the predicted figure away.
void check_prediction(const Lesson& lesson, size_t i, const NumberSources& sources, const std::vector<Ladder>& ladders,
                      std::vector<std::string>* out) {
    const LessonStep& s = lesson.steps[i];
    const std::string where = lesson.manifest_path + ": step[" + std::to_string(i) + "]";
    if (s.predict_why.empty())
        out->push_back(where +
                       ".predict: no why of its own (predict.why): the verdict would explain the step's "
                       "question instead of this prediction");
    // The why explains the miss, so it says what the rung measured: a why that only restates the
    // model leaves the learner with the verdict's two numbers and no reason between them.
    const std::string rung_target = s.ladder + "/" + s.rung;
    const std::vector<Binding> why_bindings = find_bindings(s.predict_why, nullptr);
    const bool quotes_rung = std::any_of(why_bindings.begin(), why_bindings.end(), [&](const Binding& b) {
        return b.target == rung_target || std::any_of(b.operands.begin(), b.operands.end(),
                                                      [&](const Binding& o) { return o.target == rung_target; });
    });
    if (!s.predict_why.empty() && !quotes_rung)
        out->push_back(where + ".predict.why: quotes no measurement of " + rung_target +
                       ": bind what it measured and say why it differs from the model");
    static const std::regex second("\\b(predict|predicts|expect|will|should)\\b", std::regex::icase);
    if (std::regex_search(s.question, second))
        out->push_back(where +
                       ".question: asks for a second prediction beside predict; one prediction per step "
                       "(ask why, or move it to a step of its own)");
    const RevealGate gate(s, ladders, false);
    const std::string md = (fs::path(lesson.dir) / s.text_path).string();
    // The marker is what keeps the discussion of the measurement folded until the learner
    // commits: without it the whole page shows beside the prompt; with nothing after it, the
    // page never discusses what was measured.
    if (s.reveal_at == std::string::npos)
        out->push_back(md + ": step " + std::to_string(i + 1) + " (\"" + s.title + "\") predicts " + s.rung + " " +
                       s.predict_metric +
                       " but has no `<!-- reveal -->` line: its whole text shows before the prediction (put the "
                       "marker above what discusses the measurement)");
    else if (s.text.find_first_not_of(" \t\r\n", s.reveal_at) == std::string::npos)
        out->push_back(md + ": step " + std::to_string(i + 1) + " (\"" + s.title +
                       "\"): nothing after `<!-- reveal -->`: say what the measurement shows below the marker");
    const std::string above = s.text.substr(0, std::min(s.reveal_at, s.text.size()));
    const std::vector<std::pair<std::string, std::string>> shown = {{md, above},
                                                                    {where + ".look_at", s.look_at},
                                                                    {where + ".question", s.question},
                                                                    {where + ".predict.ask", s.predict_ask}};
    for (const auto& [place, text] : shown)
        for (const Binding& b : find_bindings(text, nullptr))
            if (gate.withholds(b) ||
                std::any_of(b.operands.begin(), b.operands.end(), [&](const Binding& o) { return gate.withholds(o); }))
                out->push_back(place + (place == md ? ":" + std::to_string(line_at(text, b.begin)) : "") + ": `{{ " +
                               b.source + " }}` shows the predicted figure before the prediction" +
                               (place == md ? " (move it below `<!-- reveal -->`)" : ""));
    BoundValue judged = sources.resolve(prediction_binding(s));
    if (!judged.ok) return;
    const std::string figure = format_bound(judged.value, judged.unit, -1, true);
    for (const auto& [place, text] : shown)
        if (types_figure(text, figure))
            out->push_back(place + ": types the predicted figure " + figure + " before the prediction");
    if (types_figure(s.answer, figure))
        out->push_back(where + ".answer: types the predicted figure " + figure + " (bind it, below the reveal)");
}

// Predict, then reveal across steps: an earlier step of the lesson (its text, past its own marker
// too, and its fields) must not quote the figure that step `j` asks the learner to predict.
void check_earlier_steps_keep(const Lesson& lesson, size_t j, const std::vector<Ladder>& ladders,
                              std::vector<std::string>* out) {
    const LessonStep& later = lesson.steps[j];
    // The judged run exactly, L2 state included: the gate withholds a warm figure with the cold
    // one it asks for (the strip shows either), but an earlier step about the warm cache may
    // quote its own warm figure before a later step asks for the cold one.
    const Binding judged = prediction_binding(later);
    std::string unresolved;
    const std::optional<WantedRun> judged_run = wanted_run(judged, ladders, &unresolved);
    const std::string family = run_metric_family(judged.metric);
    auto gives_away = [&](const Binding& b) {
        if (!judged_run || b.target != judged.target || run_metric_family(b.metric) != family) return false;
        const std::optional<WantedRun> quoted = wanted_run(b, ladders, &unresolved);
        return quoted && judged_run->same_run(*quoted);
    };
    for (size_t i = 0; i < j; ++i) {
        const LessonStep& s = lesson.steps[i];
        const std::string where = lesson.manifest_path + ": step[" + std::to_string(i) + "]";
        const std::vector<std::pair<std::string, std::string>> fields = {
            {(fs::path(lesson.dir) / s.text_path).string(), s.text},
            {where + ".look_at", s.look_at},
            {where + ".question", s.question},
            {where + ".answer", s.answer},
            {where + ".predict.why", s.predict_why},
            {where + ".predict.ask", s.predict_ask}};
        for (const auto& [place, text] : fields)
            for (const Binding& b : find_bindings(text, nullptr))
                if (gives_away(b) || std::any_of(b.operands.begin(), b.operands.end(), gives_away))
                    out->push_back(place + ": `{{ " + b.source + " }}` gives away step " + std::to_string(j + 1) +
                                   "'s prediction (" + later.rung + " " + later.predict_metric +
                                   ") before the learner reaches it");
    }
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
                if (sources.ladders()) check_prediction(lesson, i, sources, *sources.ladders(), &out);
                if (sources.ladders()) check_earlier_steps_keep(lesson, i, *sources.ladders(), &out);
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
            std::vector<std::pair<const Binding*, bool>> open_ifs;  // conditional prose: both versions written
            for (const auto& b : bs) {
                for (size_t i = b.begin; i < b.end; ++i) rest[i] = ' ';
                if (b.kind == Binding::Kind::If) open_ifs.push_back({&b, false});
                if (b.kind == Binding::Kind::Else && !open_ifs.empty()) open_ifs.back().second = true;
                if (b.kind == Binding::Kind::End && !open_ifs.empty()) {
                    if (!open_ifs.back().second)
                        out.push_back(at(open_ifs.back().first->begin) + ": `{{ " + open_ifs.back().first->source +
                                      " }}` has no `{{ else }}`: write the text for the other devices too");
                    open_ifs.pop_back();
                }
                if (b.kind == Binding::Kind::Else || b.kind == Binding::Kind::End) continue;
                std::string why;
                BoundValue v = b.kind == Binding::Kind::If ? BoundValue() : sources.resolve(b);
                if (b.kind == Binding::Kind::If && sources.holds(b, &why)) v.ok = true;
                if (!v.ok)
                    out.push_back(at(b.begin) + ": `{{ " + b.source +
                                  " }}` resolves to nothing: " + (why.empty() ? v.error : why));
            }
            std::vector<UnitNumber> numbers = find_unit_numbers(rest);
            for (auto& n : find_table_unit_numbers(rest)) numbers.push_back(std::move(n));
            for (const auto& num : numbers) {
                bool ok = false;
                for (const auto& a : allowed) {
                    if ((a.lesson != "*" && a.lesson != folder) || a.text != num.text) continue;
                    ok = a.used = true;
                    if (std::string why = citation_unnamed(a, t.text, num.pos); !why.empty())
                        out.push_back(at(num.pos) + ": " + why);
                }
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

namespace {
// A percentage of a roof: a computed `pct` whose expression divides by a device's rate.
bool percent_of_roof(const Binding& b) {
    if (b.kind != Binding::Kind::Expr || b.as != "pct") return false;
    for (size_t i = 0; i + 1 < b.expr.size(); ++i)
        if (b.expr[i] == "/" && b.expr[i + 1][0] == '$') {
            const Binding& o = b.operands[std::stoul(b.expr[i + 1].substr(1))];
            if (o.target == "device" &&
                (o.metric.find("gbps") != std::string::npos || o.metric.find("tflops") != std::string::npos))
                return true;
        }
    return false;
}
// Reads the shown GPU's facts: a `{{ device ... }}` operand without card=NAME.
bool reads_shown_device(const Binding& b) {
    return std::any_of(b.operands.begin(), b.operands.end(), [](const Binding& o) {
        return o.target == "device" &&
               std::none_of(o.keys.begin(), o.keys.end(), [](const auto& k) { return k.first == "card"; });
    });
}
bool reads_device(const Binding& b) {
    if (b.target == "device") return true;
    return std::any_of(b.operands.begin(), b.operands.end(), [](const Binding& o) { return o.target == "device"; });
}
}  // namespace

std::vector<std::string> check_lessons_on_devices(const std::vector<Lesson>& lessons, NumberSources& sources,
                                                  const std::vector<std::pair<std::string, DeviceInfo>>& devices) {
    std::vector<std::string> out;
    for (const auto& [profile, device] : devices) {
        sources.set_device(device, profile);
        const std::string under = " (under " + fs::path(profile).filename().string() + ")";
        for (const Lesson& lesson : lessons)
            for (const LessonText& t : lesson_texts(lesson)) {
                // Only what reads the device can change with it: the rest was checked above. What
                // a branch not shown on this device says is not read here (a T4 has no bf16 peak).
                std::vector<std::pair<bool, bool>> branches;  // per open `if`: the outer one shown, its value
                auto shown = [&] { return branches.empty() || branches.back().first; };
                for (const Binding& b : find_bindings(t.text, nullptr)) {
                    if (b.kind == Binding::Kind::Else && !branches.empty()) {
                        const bool outer = branches.size() < 2 || branches[branches.size() - 2].first;
                        branches.back().first = outer && !branches.back().second;
                    }
                    if (b.kind == Binding::Kind::End && !branches.empty()) branches.pop_back();
                    if (b.kind == Binding::Kind::Else || b.kind == Binding::Kind::End) continue;
                    std::string why;
                    std::optional<bool> held =
                        b.kind == Binding::Kind::If && shown() ? sources.holds(b, &why) : std::optional<bool>();
                    if (b.kind == Binding::Kind::If)
                        branches.push_back({shown() && held.value_or(true), held.value_or(true)});
                    if (!reads_device(b) || (b.kind != Binding::Kind::If && !shown())) continue;
                    std::string where =
                        t.where + ":" + std::to_string(line_at(t.text, b.begin)) + ": `{{ " + b.source + " }}`";
                    if (b.kind == Binding::Kind::If) {
                        if (!held && !why.empty()) out.push_back(where + " does not resolve" + under + ": " + why);
                        continue;
                    }
                    BoundValue v = sources.resolve(b);
                    if (!v.ok) out.push_back(where + " resolves to nothing" + under + ": " + v.error);
                    // Every operand of one GPU: a profile without a recording of its own borrows
                    // the preferred device's measured rates, and a ratio across two GPUs contradicts nothing.
                    else if (percent_of_roof(b) && v.value > 100 && v.gpus.size() <= 1)
                        out.push_back(where + " is " + v.shown + " of a roof" + under +
                                      ": above 100%, the text contradicts itself on this device");
                    // The shown GPU's facts in arithmetic with another GPU's measurement that could not
                    // be moved whole to that GPU (bindings.h, one_device_operands): a figure of no GPU.
                    else if (v.gpus.size() > 1 && reads_shown_device(b)) {
                        std::string gpus;
                        for (const auto& g : v.gpus) gpus += (gpus.empty() ? "" : " and the ") + device_short_name(g);
                        out.push_back(where + " computes from the " + gpus + " at once" + under +
                                      ": take every operand from one GPU (`card=NAME`, `LADDER/RUNG sm_count`)");
                    }
                }
                // The device named is the device shown: another GPU's figure says whose it is.
                const bool markdown = t.where.size() > 3 && t.where.compare(t.where.size() - 3, 3, ".md") == 0;
                for (const ForeignFigure& f : foreign_figures(t.text, sources, device.name))
                    out.push_back(t.where + (markdown ? ":" + std::to_string(line_at(t.text, f.offset)) : "") + ": " +
                                  f.figure + " is the " + device_short_name(f.measured) + "'s, shown as the " +
                                  device_short_name(device.name) + "'s" + under +
                                  ": name the GPU that measured it (`{{ LADDER/RUNG device }}`)");
                for (const ForeignFigure& f : borrowed_as_own(t.text, sources, device.name))
                    out.push_back(t.where + (markdown ? ":" + std::to_string(line_at(t.text, f.offset)) : "") + ": " +
                                  f.figure + " is the " + device_short_name(f.measured) +
                                  "'s card figure, in a sentence that says it is the " +
                                  device_short_name(device.name) + "'s" + under +
                                  ": branch on `{{ if device own_rates == 1 }}`");
            }
    }
    sources.clear_device();
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
