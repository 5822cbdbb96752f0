#include "course/lesson.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>
#include <utility>

#include "base/atomic_file.h"
#include "base/confined_path.h"
#include "base/errors.h"
#include "base/toml_reader.h"
#include "course/figure_vocabulary.h"
#include "course/sweep_spec.h"
#include "model/arch.h"
#include "model/run_metrics.h"
#include "model/run_modes.h"

namespace fs = std::filesystem;

namespace kl {

namespace detail {  // exercise.cpp
StepExercise read_step_exercise(TomlReader& r, const toml::node& n, const std::string& field, const std::string& dir,
                                const Ladder* ladder, const LessonStep& step);
}  // namespace detail

namespace {

const Ladder* find_ladder(const std::vector<Ladder>& ladders, const std::string& id) {
    for (const auto& l : ladders)
        if (l.id == id) return &l;
    return nullptr;
}

std::map<std::string, int64_t> read_int_table(TomlReader& r, const toml::table& t, const char* key,
                                              const std::string& field) {
    std::map<std::string, int64_t> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    const toml::table* tt = n->as_table();
    if (!tt) r.fail(line_of(*n), field + "." + key, "expected a table { NAME = integer }");
    for (const auto& [k, v] : *tt) {
        if (!v.is_integer()) r.fail(line_of(v), field + "." + key + "." + std::string(k.str()), "expected an integer");
        out[std::string(k.str())] = *v.value<int64_t>();
    }
    return out;
}

std::string read_text_file(TomlReader& r, const std::string& dir, const toml::table& t, const char* key,
                           const std::string& field) {
    std::string rel = r.string(t, key, field);
    std::string why;
    std::string path = confined_file(dir, rel, &why);
    if (path.empty()) r.fail(line_of(*t.get(key)), field + "." + key, why);
    try {
        return read_file(path);
    } catch (const InputError& e) { r.fail(line_of(*t.get(key)), field + "." + key, e.what()); }
}

// predict = { metric = "gbps", tolerance = 0.25, ask = "...", at = { TPB = 128 }, why = "..." }
// or no_predict = "why not". `at` names parameters of the step's rung or size axes of its ladder.
void read_prediction_at(TomlReader& r, const toml::table& pt, const std::string& f, const toml::table& step,
                        const std::vector<Ladder>& ladders, LessonStep* s) {
    const toml::node* an = pt.get("at");
    if (!an) return;
    const toml::table* at = an->as_table();
    if (!at) r.fail(line_of(*an), f + ".at", "expected a table of parameters and sizes, e.g. { TPB = 128 }");
    auto str = [&](const char* key) {
        const toml::node* v = step.get(key);
        return v && v->is_string() ? **v->as_string() : std::string();
    };
    std::string ladder = str("ladder"), rung = str("rung");
    const Ladder* L = find_ladder(ladders, ladder);
    const Rung* R = L ? L->find_rung(rung) : nullptr;  // unknown: read_step reports the step's own field
    for (const auto& [key, node] : *at) {
        std::string k(key.str());
        auto v = node.value<int64_t>();
        if (!v || !node.is_integer()) r.fail(line_of(node), f + ".at." + k, "expected an integer");
        bool known = !R;
        if (L)
            for (const auto& [axis, value] : L->default_sizes) known |= axis == k;
        if (R)
            for (const auto& p : R->params) known |= p.name == k;
        if (!known)
            r.fail(line_of(node), f + ".at." + k,
                   "'" + k + "' is neither a parameter of rung '" + rung + "' nor a size of ladder '" + ladder + "'");
        s->predict_at[k] = *v;
    }
}

void read_prediction(TomlReader& r, const toml::table& t, const std::string& field, const std::vector<Ladder>& ladders,
                     LessonStep* s) {
    s->no_predict = r.string_or(t, "no_predict", "", field);
    const toml::node* n = t.get("predict");
    if (!n) return;
    const toml::table* pt = n->as_table();
    std::string f = field + ".predict";
    if (!pt) r.fail(line_of(*n), f, "expected { metric = \"gbps\", tolerance = 0.25, why = \"...\" }");
    r.allow_only(*pt, f, {"metric", "tolerance", "why", "ask", "at"});
    s->predict_metric = r.string(*pt, "metric", f);
    if (!is_run_metric(s->predict_metric))
        r.fail(line_of(*pt), f + ".metric",
               "'" + s->predict_metric +
                   "' is not one of ms, us, gbps, tflops, pct_copy, pct_gemm, pct_reference, peak_gib");
    const toml::node* tol = pt->get("tolerance");
    auto tv = tol ? tol->value<double>() : std::nullopt;
    if (!tv || *tv <= 0 || *tv > 1) r.fail(line_of(*pt), f + ".tolerance", "expected a fraction in (0, 1], e.g. 0.25");
    s->predict_tolerance = *tv;
    s->predict_why = r.string_or(*pt, "why", "", f);  // empty: the window shows the step's answer
    s->predict_ask = r.string_or(*pt, "ask", "", f);
    if (!t.get("rung")) r.fail(line_of(*n), f, "a prediction needs a step that runs a rung");
    if (!s->no_predict.empty()) r.fail(line_of(*n), f, "a step has predict or no_predict, not both");
    read_prediction_at(r, *pt, f, t, ladders, s);
}

// A step's Markdown may hold one line `<!-- reveal -->`: what follows discusses the measurement,
// and the window keeps it folded until the learner has kept a prediction (or asked to see it).
// The marker is taken out of the text, so handouts and bindings never see it.
void split_reveal(TomlReader& r, int line, const std::string& field, LessonStep* s) {
    const std::string marker = "<!-- reveal -->";
    size_t at = s->text.find(marker);
    if (at == std::string::npos) return;
    if ((at != 0 && s->text[at - 1] != '\n') || s->text.find(marker, at + 1) != std::string::npos)
        r.fail(line, field + ".text", "'" + marker + "' must stand alone at the start of a line, once");
    if (s->predict_metric.empty()) r.fail(line, field + ".text", "'" + marker + "' needs a step with predict");
    size_t end = at + marker.size();
    if (end < s->text.size() && s->text[end] == '\n') ++end;
    s->text.erase(at, end - at);
    s->reveal_at = at;
}

// runner = { warmup = N, reps = N, l2 = "cold"|"warm" }: a step that demonstrates a measuring mistake.
RunnerPreset read_runner_preset(TomlReader& r, const toml::node& n, const std::string& field) {
    RunnerPreset p;
    const toml::table* rt = n.as_table();
    if (!rt) r.fail(line_of(n), field, "expected { warmup = N, reps = N, l2 = \"cold\"|\"warm\" }");
    r.allow_only(*rt, field, {"warmup", "reps", "l2", "mode"});
    if (rt->get("warmup")) p.warmup = static_cast<int>(r.integer_in(*rt, "warmup", field, 0, 1000));
    if (rt->get("reps")) p.reps = static_cast<int>(r.integer_in(*rt, "reps", field, 0, 100000));
    if (rt->get("l2")) {
        std::string l2 = r.string(*rt, "l2", field);
        if (l2 != "cold" && l2 != "warm")
            r.fail(line_of(*rt->get("l2")), field + ".l2", "expected \"cold\" or \"warm\"");
        p.cold_l2 = l2 == "cold";
    }
    if (rt->get("mode")) {  // [modes]
        p.mode = r.string(*rt, "mode", field);
        if (p.mode.empty() || !parse_run_mode(p.mode))
            r.fail(line_of(*rt->get("mode")), field + ".mode", "expected " + run_mode_names());
    }
    return p;
}

// `plot` and `metric` against the figure vocabulary (figure_vocabulary.h).
void check_plot_and_metric(TomlReader& r, const toml::table& t, const std::string& field, LessonStep& s) {
    std::optional<PlotKind> kind = plot_kind_from_name(s.plot);
    if (!s.plot.empty() && !kind)
        r.fail(s.line, field + ".plot", "unknown plot '" + s.plot + "' (" + plot_kind_list(false) + ")");
    s.plot_kind = kind;
    if (s.metric.empty()) return;
    std::optional<Metric> metric = metric_from_name(s.metric);
    if (!kind || !metric || !metric_fits(*kind, *metric))
        r.fail(line_of(*t.get("metric")), field + ".metric",
               "'" + s.metric + "' does not fit plot '" + s.plot + "' (" + metrics_by_kind() + ")");
    s.plot_kind = kind;
    s.plot_metric = metric;
}

// The step's ladder, rung, parameters, sizes and sweep axis against the loaded ladders.
void check_ladder_references(TomlReader& r, const toml::table& t, const std::string& field, const LessonStep& s,
                             const std::vector<Ladder>& ladders) {
    if (s.ladder.empty()) {
        if (!s.rung.empty() || !s.params.empty() || !s.sizes.empty())
            r.fail(s.line, field, "rung, params and sizes need a ladder");
        return;
    }
    const Ladder* L = find_ladder(ladders, s.ladder);
    if (!L) r.fail(line_of(*t.get("ladder")), field + ".ladder", "unknown ladder '" + s.ladder + "'");
    const Rung* rung = nullptr;
    if (!s.rung.empty()) {
        rung = L->find_rung(s.rung);
        if (!rung)
            r.fail(line_of(*t.get("rung")), field + ".rung", "ladder " + L->id + " has no rung '" + s.rung + "'");
    }
    for (const auto& [name, v] : s.params) {
        if (!rung) r.fail(s.line, field + ".params", "params need a rung");
        const ParamSpec* p = rung->find_param(name);
        if (!p)
            r.fail(line_of(*t.get("params")), field + ".params." + name,
                   "rung " + rung->id + " has no parameter '" + name + "'");
        if (!p->accepts(v))
            r.fail(line_of(*t.get("params")), field + ".params." + name,
                   std::to_string(v) + " is not allowed (" + p->describe_allowed() + ")");
    }
    auto has_axis = [&](const std::string& name) {
        for (const auto& [k, v] : L->default_sizes)
            if (k == name) return true;
        return false;
    };
    for (const auto& [name, v] : s.sizes) {
        if (!has_axis(name))
            r.fail(line_of(*t.get("sizes")), field + ".sizes." + name,
                   "ladder " + L->id + " has no size axis '" + name + "'");
        if (v < 0) r.fail(line_of(*t.get("sizes")), field + ".sizes." + name, "must not be negative");
    }
    if (!s.sweep_axis.empty() && !has_axis(s.sweep_axis) && !(rung && rung->find_param(s.sweep_axis)))
        r.fail(line_of(*t.get("sweep")), field + ".sweep.axis",
               "'" + s.sweep_axis + "' is neither a size axis of " + L->id +
                   (rung ? " nor a parameter of " + rung->id : ""));
    for (const auto& tied : s.sweep_tie)  // ties follow a size axis (M = N = K)
        if (!has_axis(tied) || !has_axis(s.sweep_axis))
            r.fail(line_of(*t.get("sweep")), field + ".sweep.tie", "'" + tied + "': only size axes can be tied");
}

// trace = { rung = "...", params = { ... } }: a rung of the step's ladder with a kernel, and
// parameters it has, at values it accepts.
StepTrace read_step_trace(TomlReader& r, const toml::node& n, const std::string& f, const LessonStep& s,
                          const std::vector<Ladder>& ladders) {
    const toml::table* tt = n.as_table();
    if (!tt) r.fail(line_of(n), f, "expected { rung = \"...\", params = { NAME = integer } }");
    r.allow_only(*tt, f, {"rung", "params"});
    StepTrace tr;
    tr.rung = r.string_or(*tt, "rung", s.rung, f);
    tr.params = read_int_table(r, *tt, "params", f);
    const Ladder* L = find_ladder(ladders, s.ladder);
    if (!L) r.fail(line_of(n), f, "a trace needs a step with a ladder");
    const Rung* rung = L->find_rung(tr.rung);
    if (!rung) r.fail(line_of(n), f + ".rung", "ladder " + L->id + " has no rung '" + tr.rung + "'");
    if (rung->source_path.empty() || rung->is_triton())
        r.fail(line_of(n), f + ".rung", L->id + "/" + tr.rung + " has no CUDA kernel to trace");
    for (const auto& [name, v] : tr.params) {
        const ParamSpec* p = rung->find_param(name);
        if (!p) r.fail(line_of(n), f + ".params." + name, "rung " + rung->id + " has no parameter '" + name + "'");
        if (!p->accepts(v))
            r.fail(line_of(n), f + ".params." + name,
                   std::to_string(v) + " is not allowed (" + p->describe_allowed() + ")");
    }
    return tr;
}

LessonStep read_step(TomlReader& r, const toml::table& t, const std::string& field, const std::string& dir,
                     const std::vector<Ladder>& ladders) {
    r.allow_only(t, field, {"title",   "text",       "ladder", "rung",    "params",   "sizes",  "dtype",
                            "plot",    "metric",     "sweep",  "look_at", "question", "answer", "runner",
                            "predict", "no_predict", "device", "tool",    "exercise", "trace"});
    LessonStep s;
    s.line = line_of(t);
    s.title = r.string(t, "title", field);
    s.text_path = r.string(t, "text", field);
    s.text = read_text_file(r, dir, t, "text", field);
    s.ladder = r.string_or(t, "ladder", "", field);
    s.rung = r.string_or(t, "rung", "", field);
    s.dtype = r.string_or(t, "dtype", "", field);
    s.plot = r.string_or(t, "plot", "", field);
    s.metric = r.string_or(t, "metric", "", field);
    s.device = r.string_or(t, "device", "", field);
    s.look_at = r.string_or(t, "look_at", "", field);
    s.tool = r.string_or(t, "tool", "", field);  // [calculator]
    if (!s.tool.empty() && s.tool != "calculator")
        r.fail(line_of(*t.get("tool")), field + ".tool", "unknown tool '" + s.tool + "' (calculator)");
    s.question = r.string_or(t, "question", "", field);
    s.answer = r.string_or(t, "answer", "", field);
    s.params = read_int_table(r, t, "params", field);
    s.sizes = read_int_table(r, t, "sizes", field);
    if (const toml::node* sw = t.get("sweep")) {
        SweepSpec spec = read_sweep_spec(r, *sw, field + ".sweep");
        std::tie(s.sweep_axis, s.sweep_values, s.sweep_tie) = std::tie(spec.axis, spec.values, spec.tie);
    }
    if (const toml::node* rn = t.get("runner")) s.runner = read_runner_preset(r, *rn, field + ".runner");
    read_prediction(r, t, field, ladders, &s);
    check_plot_and_metric(r, t, field, s);
    if (!s.dtype.empty() && !parse_dtype(s.dtype)) r.fail(s.line, field + ".dtype", "unknown dtype '" + s.dtype + "'");
    check_ladder_references(r, t, field, s, ladders);
    if (const toml::node* tn = t.get("trace")) s.trace = read_step_trace(r, *tn, field + ".trace", s, ladders);
    if (const toml::node* en = t.get("exercise"))
        s.exercise = detail::read_step_exercise(r, *en, field + ".exercise", dir, find_ladder(ladders, s.ladder), s);
    return s;
}

// track = "core" (the default) | "appendix", and an appendix's needs = "sm_90": the architecture
// its live steps need, which the lesson list shows.
void read_track(TomlReader& r, const toml::table& lt, Lesson* L) {
    L->track = r.string_or(lt, "track", "core", "lesson");
    if (L->track != "core" && L->track != "appendix")
        r.fail(line_of(*lt.get("track")), "lesson.track", "'" + L->track + "' is not \"core\" or \"appendix\"");
    L->needs = r.string_or(lt, "needs", "", "lesson");
    if (!L->appendix()) {
        if (lt.get("needs")) r.fail(line_of(*lt.get("needs")), "lesson.needs", "only an appendix lesson needs a GPU");
        return;
    }
    if (!lt.get("needs"))
        r.fail(line_of(lt), "lesson.needs", "an appendix names the architecture it needs, e.g. \"sm_90\"");
    ArchName a = parse_arch(L->needs);
    if (a.cc < 0 || a.specific)
        r.fail(line_of(*lt.get("needs")), "lesson.needs",
               "'" + L->needs + "' is not an architecture such as \"sm_90\"");
}

}  // namespace

Lesson load_lesson(const std::string& manifest_path, const std::vector<Ladder>& ladders) {
    TomlReader r(manifest_path);
    const toml::table& root = r.root();
    r.allow_only(root, "", {"lesson", "step", "check", "card", "exercise"});
    const toml::table* lt = root.get("lesson") ? root.get("lesson")->as_table() : nullptr;
    if (!lt) r.fail(1, "lesson", "missing [lesson] table");
    r.allow_only(*lt, "lesson", {"id", "number", "title", "summary", "track", "needs"});
    Lesson L;
    L.manifest_path = manifest_path;
    L.dir = fs::path(manifest_path).parent_path().string();
    L.id = r.string(*lt, "id", "lesson");
    L.number = static_cast<int>(r.integer_in(*lt, "number", "lesson", 0, 9999));
    L.title = r.string(*lt, "title", "lesson");
    L.summary = r.string_or(*lt, "summary", "", "lesson");
    read_track(r, *lt, &L);
    const toml::array* steps = root.get("step") ? root.get("step")->as_array() : nullptr;
    if (!steps || steps->empty()) r.fail(1, "step", "a lesson needs at least one [[step]]");
    for (size_t i = 0; i < steps->size(); ++i) {
        std::string f = "step[" + std::to_string(i) + "]";
        const toml::table* t = steps->get(i)->as_table();
        if (!t) r.fail(line_of(*steps->get(i)), f, "expected a table");
        L.steps.push_back(read_step(r, *t, f, L.dir, ladders));
        split_reveal(r, line_of(*t), f, &L.steps.back());
    }
    if (const toml::node* cn = root.get("check")) {
        const toml::array* arr = cn->as_array();
        if (!arr) r.fail(line_of(*cn), "check", "expected [[check]] entries");
        for (size_t i = 0; i < arr->size(); ++i) {
            std::string f = "check[" + std::to_string(i) + "]";
            const toml::table* t = arr->get(i)->as_table();
            if (!t) r.fail(line_of(*arr->get(i)), f, "expected a table");
            r.allow_only(*t, f, {"question", "answer", "choices", "correct"});
            CheckQuestion q;
            q.question = r.string(*t, "question", f);
            q.answer = r.string(*t, "answer", f);
            for (const auto& [c, line] : r.strings(*t, "choices")) q.choices.push_back(c);
            if (t->get("correct")) {
                q.correct = static_cast<int>(r.integer_in(*t, "correct", f, 0, 1 << 20));
                if (q.correct < 0 || q.correct >= static_cast<int>(q.choices.size()))
                    r.fail(line_of(*t->get("correct")), f + ".correct",
                           "index " + std::to_string(q.correct) + " is not one of the " +
                               std::to_string(q.choices.size()) + " choices");
            } else if (!q.choices.empty()) {
                r.fail(line_of(*t), f + ".correct", "missing: multiple choice needs the index of the right choice");
            }
            L.checks.push_back(q);
        }
    }
    if (const toml::node* cn = root.get("card")) {
        const toml::array* arr = cn->as_array();
        if (!arr) r.fail(line_of(*cn), "card", "expected [[card]] entries");
        for (size_t i = 0; i < arr->size(); ++i) {
            std::string f = "card[" + std::to_string(i) + "]";
            const toml::table* t = arr->get(i)->as_table();
            if (!t) r.fail(line_of(*arr->get(i)), f, "expected a table");
            r.allow_only(*t, f, {"front", "back"});
            L.cards.push_back({r.string(*t, "front", f), r.string(*t, "back", f)});
        }
    }
    if (const toml::node* en = root.get("exercise")) {
        const toml::table* t = en->as_table();
        if (!t) r.fail(line_of(*en), "exercise", "expected a table");
        r.allow_only(*t, "exercise", {"title", "text"});
        L.exercise_title = r.string(*t, "title", "exercise");
        L.exercise_text = read_text_file(r, L.dir, *t, "text", "exercise");
    }
    return L;
}

std::vector<Lesson> load_all_lessons(const std::string& lessons_root, const std::vector<Ladder>& ladders,
                                     std::vector<LessonLoadError>* errors) {
    std::vector<std::string> folders;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(lessons_root, ec)) {
        std::error_code e2;  // a symlink loop here is a folder to skip, not a crash
        if (e.is_directory(e2) && fs::exists(e.path() / "lesson.toml", e2)) folders.push_back(e.path().string());
    }
    std::sort(folders.begin(), folders.end());
    std::vector<Lesson> out;
    std::set<std::string> ids;
    for (const auto& f : folders) {
        try {
            Lesson l = load_lesson(f + "/lesson.toml", ladders);
            if (!ids.insert(l.id).second)
                throw InputError(f + "/lesson.toml: lesson.id: duplicate lesson id '" + l.id + "'");
            out.push_back(std::move(l));
        } catch (const Error& e) {
            if (errors) errors->push_back({fs::path(f).filename().string(), e.what()});
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Lesson& a, const Lesson& b) {
        return std::make_pair(a.appendix(), a.number) < std::make_pair(b.appendix(), b.number);
    });
    return out;
}

const LessonStep* find_lesson_sweep(const std::vector<Lesson>& lessons, const std::string& ladder,
                                    const std::string& rung, const std::string& axis) {
    const LessonStep* any = nullptr;
    for (const auto& l : lessons)
        for (const auto& s : l.steps) {
            if (s.ladder != ladder || s.sweep_axis != axis || s.sweep_values.empty()) continue;
            if (s.rung == rung) return &s;
            if (!any) any = &s;
        }
    return any;
}

}  // namespace kl
