#include "course/exercise.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/confined_path.h"
#include "base/errors.h"
#include "base/toml_reader.h"
#include "course/lesson.h"
#include "course/prediction.h"
#include "model/run_plan.h"

namespace kl {

namespace {

std::string trim_blanks(const std::string& s) {
    size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<std::string> split_and(const std::string& text) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (;;) {
        size_t p = text.find(" and ", start);
        parts.push_back(trim_blanks(text.substr(start, p == std::string::npos ? std::string::npos : p - start)));
        if (p == std::string::npos) break;
        start = p + 5;
    }
    return parts;
}

bool parse_number(const std::string& s, double* out) {
    if (s.empty() || s.size() > 24) return false;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v)) return false;
    *out = v;
    return true;
}

// The run metrics of prediction.h, and the check's own errors (goals may bound the error).
bool is_goal_metric(const std::string& m) { return is_run_metric(m) || m == "rel_l2" || m == "max_abs"; }
std::optional<double> goal_metric(const RunRecord& r, const std::string& m) {
    if (m == "rel_l2" || m == "max_abs") {
        if (!r.correctness) return std::nullopt;
        return m == "rel_l2" ? r.correctness->rel_l2 : r.correctness->max_abs;
    }
    return run_metric_value(r, m);
}

bool known_ref(const std::string& ref) {
    if (ref == "device.copy_gbps" || ref == "device.sgemm_tflops" || ref == "device.bf16_tflops") return true;
    if (ref.rfind("like.", 0) == 0) return is_goal_metric(ref.substr(5));
    // rung.ID.METRIC: ID a rung id (letters, digits, '_'), checked against the ladder at load
    if (ref.rfind("rung.", 0) != 0) return false;
    const size_t dot = ref.find('.', 5);
    if (dot == std::string::npos || dot == 5) return false;
    for (size_t i = 5; i < dot; ++i)
        if (!std::isalnum(static_cast<unsigned char>(ref[i])) && ref[i] != '_') return false;
    return is_goal_metric(ref.substr(dot + 1));
}

// "rung.naive.us" -> {"naive", "us"}
std::pair<std::string, std::string> split_rung_ref(const std::string& ref) {
    const size_t dot = ref.find('.', 5);
    return {ref.substr(5, dot - 5), ref.substr(dot + 1)};
}

GoalClause parse_clause(const std::string& goal, const std::string& text) {
    auto fail = [&](const std::string& why) -> GoalClause {
        throw InputError("goal '" + goal + "': '" + text + "': " + why);
    };
    GoalClause c;
    c.text = text;
    if (text == "correct") {
        c.correct_only = true;
        return c;
    }
    static const std::pair<const char*, GoalClause::Op> ops[] = {
        {">=", GoalClause::Op::Ge}, {"<=", GoalClause::Op::Le}, {">", GoalClause::Op::Gt}, {"<", GoalClause::Op::Lt}};
    size_t at = std::string::npos, len = 0;
    for (const auto& [sym, op] : ops) {
        size_t p = text.find(sym);
        if (p != std::string::npos) {
            at = p;
            len = std::string(sym).size();
            c.op = op;
            break;
        }
    }
    if (at == std::string::npos) return fail("expected 'correct' or METRIC >= VALUE (>=, >, <=, <)");
    c.metric = trim_blanks(text.substr(0, at));
    if (!is_goal_metric(c.metric))
        return fail("unknown metric '" + c.metric + "' (gbps, tflops, us, ms, pct_copy, ...)");
    std::string rhs = trim_blanks(text.substr(at + len));
    const size_t star = rhs.find('*');
    std::string number = star == std::string::npos ? rhs : trim_blanks(rhs.substr(0, star));
    std::string ref = star == std::string::npos ? "" : trim_blanks(rhs.substr(star + 1));
    if (star == std::string::npos && !parse_number(rhs, &c.factor)) {  // a bare reference
        number = "";
        ref = rhs;
    }
    if (!number.empty() && !parse_number(number, &c.factor)) return fail("'" + number + "' is not a number");
    if (!ref.empty() && !known_ref(ref))
        return fail("unknown reference '" + ref + "' (device.copy_gbps, device.sgemm_tflops, device.bf16_tflops, " +
                    "like.METRIC, rung.ID.METRIC)");
    c.ref = ref;
    return c;
}

const char* op_text(GoalClause::Op op) {
    switch (op) {
        case GoalClause::Op::Ge: return ">=";
        case GoalClause::Op::Gt: return ">";
        case GoalClause::Op::Le: return "<=";
        case GoalClause::Op::Lt: return "<";
    }
    return ">=";
}

bool compare(double lhs, GoalClause::Op op, double rhs) {
    switch (op) {
        case GoalClause::Op::Ge: return lhs >= rhs;
        case GoalClause::Op::Gt: return lhs > rhs;
        case GoalClause::Op::Le: return lhs <= rhs;
        case GoalClause::Op::Lt: return lhs < rhs;
    }
    return false;
}

std::string num(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, std::fabs(v) >= 100 ? "%.0f" : "%.3g", v);
    return buf;
}

bool all_correct(const GoalContext& ctx, std::string* why) {
    std::vector<const RunRecord*> runs{ctx.mine};
    runs.insert(runs.end(), ctx.hidden.begin(), ctx.hidden.end());
    for (const RunRecord* r : runs) {
        if (!r) continue;
        std::string size;
        for (const auto& [k, v] : r->sizes) size += (size.empty() ? "" : " ") + k + "=" + std::to_string(v);
        if (!r->error.empty()) {
            *why = "at " + size + ": " + r->error_kind + ": " + r->error;
            return false;
        }
        if (!r->correctness || !r->correctness->passed) {
            *why = "at " + size + ": " + (r->correctness ? r->correctness->summary() : std::string("not checked"));
            return false;
        }
    }
    return ctx.mine != nullptr;
}

}  // namespace

Goal parse_goal(const std::string& text) {
    Goal g;
    g.text = text;
    if (trim_blanks(text).empty())
        throw InputError("goal: empty (e.g. \"correct and gbps >= 0.8 * device.copy_gbps\")");
    if (text.size() > 400) throw InputError("goal: longer than 400 characters");
    for (const std::string& part : split_and(text)) g.clauses.push_back(parse_clause(text, part));
    return g;
}

std::vector<std::string> goal_rungs(const Goal& goal) {
    std::vector<std::string> ids;
    for (const GoalClause& c : goal.clauses) {
        if (c.ref.rfind("rung.", 0) != 0) continue;
        const std::string id = split_rung_ref(c.ref).first;
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
    return ids;
}

GoalVerdict evaluate_goal(const Goal& goal, const GoalContext& ctx) {
    GoalVerdict v;
    v.met = true;
    for (const GoalClause& c : goal.clauses) {
        std::string line;
        bool ok = false;
        if (c.correct_only) {
            std::string why;
            ok = all_correct(ctx, &why);
            line = ok ? "correct at every size (" + std::to_string(1 + ctx.hidden.size()) + " checked)"
                      : "correct: " + (why.empty() ? std::string("no run") : why);
        } else {
            std::optional<double> mine = ctx.mine ? goal_metric(*ctx.mine, c.metric) : std::nullopt;
            std::optional<double> ref = 1.0;
            std::string ref_text;
            if (c.ref.rfind("device.", 0) == 0) {
                const Calibration* cal = ctx.calibration ? &*ctx.calibration : nullptr;
                ref = !cal || !cal->valid()            ? std::nullopt
                      : c.ref == "device.copy_gbps"    ? std::optional<double>(cal->copy_gbps)
                      : c.ref == "device.sgemm_tflops" ? std::optional<double>(cal->sgemm_tflops)
                                                       : std::optional<double>(cal->bf16_tflops);
            } else if (c.ref.rfind("rung.", 0) == 0) {
                const auto [id, metric] = split_rung_ref(c.ref);
                const auto it = ctx.rungs.find(id);
                ref = it != ctx.rungs.end() && it->second && it->second->error.empty()
                          ? goal_metric(*it->second, metric)
                          : std::nullopt;
            } else if (!c.ref.empty()) {
                ref = ctx.like ? goal_metric(*ctx.like, c.ref.substr(5)) : std::nullopt;
            }
            if (!c.ref.empty() && ref)
                ref_text = (c.factor != 1 ? num(c.factor) + " x " : "") + c.ref + " " + num(*ref) + " = ";
            if (!mine || !ref) {
                line = c.text + ": no measurement (" + (!mine ? c.metric : c.ref) + ")";
            } else {
                const double lhs = mine.value_or(0), rhs = c.factor * ref.value_or(0);
                ok = compare(lhs, c.op, rhs);
                const std::string unit = run_metric_unit(c.metric);
                line = c.metric + " " + num(lhs) + (unit.empty() ? "" : " " + unit) + " " + op_text(c.op) + " " +
                       ref_text + num(rhs);
            }
        }
        line += ok ? ": met" : ": not met";
        if (!ok && v.met) v.summary = "goal not met: " + line;
        v.met = v.met && ok;
        v.lines.push_back(line);
    }
    if (v.met) v.summary = "goal met";
    return v;
}

// [SECTION] [step.exercise] in lesson.toml (called by lesson.cpp's read_step)
namespace detail {

namespace {
constexpr size_t kMaxExerciseHints = 8, kMaxHintChars = 1000;

// `hints` (revealed one at a time, in order) and `solution` (a file of the lesson folder).
void read_exercise_extras(TomlReader& r, const toml::table& t, const std::string& field, const std::string& dir,
                          StepExercise& e) {
    if (const toml::node* hn = t.get("hints")) {
        const toml::array* arr = hn->as_array();
        if (!arr || arr->empty() || arr->size() > kMaxExerciseHints)
            r.fail(line_of(*hn), field + ".hints", "expected 1 to 8 strings, from the first nudge to the last");
        for (size_t i = 0; i < arr->size(); ++i) {
            const std::string f = field + ".hints[" + std::to_string(i) + "]";
            const auto v = arr->get(i)->value<std::string>();
            if (!v || !arr->get(i)->is_string()) r.fail(line_of(*arr->get(i)), f, "expected a string");
            if (v->find_first_not_of(" \t\r\n") == std::string::npos) r.fail(line_of(*arr->get(i)), f, "empty");
            if (v->size() > kMaxHintChars) r.fail(line_of(*arr->get(i)), f, "longer than 1000 characters");
            e.hints.push_back(*v);
        }
    }
    e.solution_file = r.string_or(t, "solution", "", field);
    if (!e.solution_file.empty()) {
        std::string why;
        e.solution_path = confined_file(dir, e.solution_file, &why);
        if (e.solution_path.empty()) r.fail(line_of(*t.get("solution")), field + ".solution", why);
    }
}
}  // namespace

StepExercise read_step_exercise(TomlReader& r, const toml::node& n, const std::string& field, const std::string& dir,
                                const Ladder* ladder, const LessonStep& step) {
    const toml::table* t = n.as_table();
    if (!t) r.fail(line_of(n), field, "expected a table ([step.exercise])");
    r.allow_only(
        *t, field,
        {"title", "text", "starter", "starter_file", "goal", "sizes", "hidden_sizes", "hints", "solution", "dtype"});
    StepExercise e;
    e.line = line_of(*t);
    if (!ladder) r.fail(e.line, field, "an exercise needs the step's ladder");
    e.title = r.string(*t, "title", field);
    e.text = r.string_or(*t, "text", "", field);
    e.starter_rung = r.string_or(*t, "starter", step.rung, field);
    const Rung* starter = ladder->find_rung(e.starter_rung);
    if (!starter) r.fail(e.line, field + ".starter", "ladder " + ladder->id + " has no rung '" + e.starter_rung + "'");
    if (starter->source_path.empty())
        r.fail(e.line, field + ".starter", "'" + e.starter_rung + "' calls a library routine: nothing to fork");
    e.starter_file = r.string_or(*t, "starter_file", "", field);
    if (!e.starter_file.empty()) {
        std::string why;
        e.starter_path = confined_file(dir, e.starter_file, &why);
        if (e.starter_path.empty()) r.fail(line_of(*t->get("starter_file")), field + ".starter_file", why);
    }
    // A data type of its own: a tensor-core exercise on the step of an fp32 rung it must beat.
    e.dtype = r.string_or(*t, "dtype", step.dtype, field);
    std::optional<DType> dtype = e.dtype.empty() ? std::nullopt : parse_dtype(e.dtype);
    if (!e.dtype.empty() &&
        (!dtype || std::find(starter->dtypes.begin(), starter->dtypes.end(), *dtype) == starter->dtypes.end()))
        r.fail(e.line, field + ".dtype",
               "'" + e.dtype + "' is not a data type the starter '" + e.starter_rung + "' takes");
    e.goal = r.string(*t, "goal", field);
    try {
        e.beat = goal_rungs(parse_goal(e.goal));
    } catch (const InputError& err) { r.fail(line_of(*t->get("goal")), field + ".goal", err.what()); }
    for (const std::string& id : e.beat) {  // a rung to beat: of this ladder, the starter's operation
        const Rung* b = ladder->find_rung(id);
        const int line = line_of(*t->get("goal"));
        if (!b) r.fail(line, field + ".goal", "ladder " + ladder->id + " has no rung '" + id + "' to beat");
        if (b->operation != starter->operation)
            r.fail(line, field + ".goal",
                   "rung '" + id + "' computes " + b->operation + ", the starter " + starter->operation +
                       ": they do not run beside each other");
    }
    read_exercise_extras(r, *t, field, dir, e);
    e.sizes = step.sizes;
    if (const toml::node* sn = t->get("sizes")) {
        const toml::table* st = sn->as_table();
        if (!st) r.fail(line_of(*sn), field + ".sizes", "expected a table of size axes, e.g. { rows = 4096 }");
        for (const auto& [k, v] : *st) {
            if (!v.is_integer()) r.fail(line_of(v), field + ".sizes." + std::string(k.str()), "expected an integer");
            e.sizes[std::string(k.str())] = *v.value<int64_t>();
        }
    }
    // Every size the exercise runs must be one the starter accepts (axes, constraints, launches).
    auto check_size = [&](const std::map<std::string, int64_t>& sizes, int line, const std::string& f) {
        RunOptions ro;
        ro.sizes = sizes;
        ro.dtype = dtype;
        try {
            resolve_run(*ladder, *starter, ro, 0);
        } catch (const InputError& err) { r.fail(line, f, err.what()); }
    };
    check_size(e.sizes, e.line, field + ".sizes");
    if (const toml::node* hn = t->get("hidden_sizes")) {
        const toml::array* arr = hn->as_array();
        if (!arr || arr->size() > 8)
            r.fail(line_of(*hn), field + ".hidden_sizes", "expected at most 8 tables, e.g. [{ n = 1000003 }]");
        for (size_t i = 0; i < arr->size(); ++i) {
            const std::string f = field + ".hidden_sizes[" + std::to_string(i) + "]";
            const toml::table* st = arr->get(i)->as_table();
            if (!st || st->empty())
                r.fail(line_of(*arr->get(i)), f, "expected a table of size axes, e.g. { n = 4097 }");
            std::map<std::string, int64_t> sizes;
            for (const auto& [k, v] : *st) {
                const std::string axis(k.str());
                bool known = false;
                for (const auto& [name, value] : ladder->default_sizes) known |= name == axis;
                if (!known) r.fail(line_of(v), f + "." + axis, "not a size axis of ladder " + ladder->id);
                if (!v.is_integer() || *v.value<int64_t>() < 1 || *v.value<int64_t>() > (int64_t(1) << 34))
                    r.fail(line_of(v), f + "." + axis, "expected an integer in 1..2^34");
                sizes[axis] = *v.value<int64_t>();
            }
            std::map<std::string, int64_t> full = e.sizes;
            for (const auto& [k, v] : sizes) full[k] = v;
            check_size(full, line_of(*arr->get(i)), f);
            e.hidden_sizes.push_back(std::move(sizes));
        }
    }
    return e;
}

}  // namespace detail

}  // namespace kl
