// Computed bindings and conditional prose (bindings.h): `{{ = A / B | pct }}` evaluates arithmetic
// over bound values, so that a ratio, a percentage or a per-SM figure follows its inputs instead
// of being typed beside them; `{{ if device l2_mib >= 40 }}` picks the prose that is true of the
// device shown. Grammar: docs/formats.md section 3.
// [SECTION] index: parsing / evaluation / resolving
#include <cmath>
#include <filesystem>
#include <regex>
#include <set>

#include "course/bindings.h"
#include "course/device_named.h"

namespace kl {

// [SECTION] Parsing

namespace {

const std::set<std::string> kOperators = {"+", "-", "*", "/", "(", ")", ","};
const std::set<std::string> kCompare = {"<", "<=", ">", ">=", "==", "!="};
const std::set<std::string> kFunctions = {"ceil", "floor", "min", "max"};

bool is_target(const std::string& t) {
    static const std::regex target_re("device|peer/[a-z0-9_]+|[a-z0-9_]+/[a-z0-9_]+");
    return std::regex_match(t, target_re);
}
bool is_number(const std::string& t) {
    static const std::regex number_re("[0-9]+(\\.[0-9]+)?");
    return std::regex_match(t, number_re);
}
bool is_key_value(const std::string& t) {
    static const std::regex kv_re("[A-Za-z_][A-Za-z0-9_]*=[^=].*");
    return std::regex_match(t, kv_re);
}

// "ceil((a" -> "ceil", "(", "(", "a"; "min(floor(a" -> "min", "(", "floor", "(", "a"; "b)," -> "b", ")", ",":
// parentheses and commas need no blanks.
std::vector<std::string> split_punctuation(const std::vector<std::string>& words) {
    std::vector<std::string> out;
    for (std::string w : words) {
        std::vector<std::string> tail;
        while (w.size() > 1 && (w.back() == ')' || w.back() == ',')) {
            tail.insert(tail.begin(), std::string(1, w.back()));
            w.pop_back();
        }
        // "min(floor(a": each function name and its parenthesis in turn.
        for (size_t open = w.find('('); open != std::string::npos && w.find('=') == std::string::npos;
             open = w.find('(')) {
            if (open > 0) out.push_back(w.substr(0, open));
            for (size_t i = open; i < w.size() && w[i] == '('; ++i) out.push_back("(");
            w = w.substr(w.find_first_not_of('(', open) == std::string::npos ? w.size()
                                                                             : w.find_first_not_of('(', open));
        }
        if (!w.empty()) out.push_back(w);
        out.insert(out.end(), tail.begin(), tail.end());
    }
    return out;
}

// Recursive descent over tokens: sum := product (+|- product)*; product := unary (*|/ unary)*;
// unary := - unary | NUMBER | $K | ( sum ) | FN ( sum [, sum] ). With `values` empty it only
// checks the syntax.
struct Quantity {
    double v = 0;
    std::string unit;
};
class Evaluator {
  public:
    Evaluator(const std::vector<std::string>& t, size_t from, size_t to, const std::vector<BoundValue>* values)
        : t_(t), pos_(from), to_(to), values_(values) {}
    bool run(Quantity* q, std::string* why) {
        why_ = why;
        if (!sum(q)) return false;
        if (pos_ != to_) return fail("unexpected '" + t_[pos_] + "'");
        return true;
    }

  private:
    const std::vector<std::string>& t_;
    size_t pos_, to_;
    const std::vector<BoundValue>* values_;
    std::string* why_ = nullptr;
    int depth_ = 0;

    bool fail(const std::string& w) { return *why_ = w, false; }
    bool at(const char* s) const { return pos_ < to_ && t_[pos_] == s; }
    bool sum(Quantity* q) {
        if (!product(q)) return false;
        while (at("+") || at("-")) {
            bool plus = t_[pos_++] == "+";
            Quantity r;
            if (!product(&r)) return false;
            if (!q->unit.empty() && !r.unit.empty() && q->unit != r.unit)
                return fail("adds " + r.unit + " to " + q->unit);
            q->v = plus ? q->v + r.v : q->v - r.v;
            if (q->unit.empty()) q->unit = r.unit;
        }
        return true;
    }
    bool product(Quantity* q) {
        if (!unary(q)) return false;
        while (at("*") || at("/")) {
            bool times = t_[pos_++] == "*";
            Quantity r;
            if (!unary(&r)) return false;
            if (!times && values_ && r.v == 0) return fail("divides by zero");
            q->v = times ? q->v * r.v : q->v / r.v;
            if (times || r.unit.empty())
                q->unit = q->unit.empty() ? r.unit : q->unit;
            else
                q->unit = q->unit == r.unit ? "" : q->unit.empty() ? "1/" + r.unit : q->unit + "/" + r.unit;
        }
        return true;
    }
    bool unary(Quantity* q) {
        if (++depth_ > 50) return fail("nested too deep");
        bool ok = primary(q);
        --depth_;
        return ok;
    }
    bool primary(Quantity* q) {
        if (pos_ >= to_) return fail("ends early");
        const std::string& t = t_[pos_++];
        if (t == "-") {
            if (!unary(q)) return false;
            q->v = -q->v;
            return true;
        }
        if (is_number(t)) return q->v = std::stod(t), true;
        if (t[0] == '$') {
            if (!values_) return true;
            const BoundValue& b = (*values_)[std::stoul(t.substr(1))];
            if (b.text) return fail("'" + b.shown + "' is a name, not a number");
            q->v = b.value;
            q->unit = b.unit;
            return true;
        }
        if (t == "(") {
            if (!sum(q)) return false;
            if (!at(")")) return fail("'(' without ')'");
            return ++pos_, true;
        }
        if (kFunctions.count(t)) return call(t, q);
        return fail("unexpected '" + t + "'");
    }
    bool call(const std::string& fn, Quantity* q) {
        if (!at("(")) return fail(fn + " needs (");
        ++pos_;
        if (!sum(q)) return false;
        if (fn == "min" || fn == "max") {
            Quantity r;
            if (!at(",")) return fail(fn + " takes two arguments");
            ++pos_;
            if (!sum(&r)) return false;
            q->v = fn == "min" ? std::min(q->v, r.v) : std::max(q->v, r.v);
        } else {
            q->v = fn == "ceil" ? std::ceil(q->v) : std::floor(q->v);
        }
        if (!at(")")) return fail(fn + "( without ')'");
        return ++pos_, true;
    }
};

size_t comparison_at(const std::vector<std::string>& t) {
    for (size_t i = 0; i < t.size(); ++i)
        if (kCompare.count(t[i])) return i;
    return t.size();
}

}  // namespace

bool parse_computed(const std::string& words_text, bool condition, Binding* b, std::string* why) {
    std::vector<std::string> words;
    std::string cur;
    bool quoted = false;
    for (char c : words_text + " ") {
        if (c == '"') quoted = !quoted;
        if (!quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
            if (!cur.empty()) words.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (quoted) return *why = "unbalanced double quote", false;
    std::vector<std::string> t = split_punctuation(words);
    for (size_t i = 0; i < t.size(); ++i) {
        if (kOperators.count(t[i]) || kCompare.count(t[i]) || kFunctions.count(t[i]) || is_number(t[i])) {
            b->expr.push_back(t[i]);
            continue;
        }
        if (!is_target(t[i]))
            return *why = "'" + t[i] + "' is not a number, an operator or a binding (TARGET METRIC ...)", false;
        std::string one = t[i];
        if (i + 1 >= t.size()) return *why = "'" + t[i] + "' has no metric", false;
        one += " " + t[++i];
        while (i + 1 < t.size() && is_key_value(t[i + 1])) one += " " + t[++i];
        std::vector<Binding> parsed = find_bindings("{{ " + one + " }}", nullptr);
        if (parsed.size() != 1 || parsed[0].kind != Binding::Kind::Value)
            return *why = "'" + one + "' is not TARGET METRIC [KEY=VALUE ...]", false;
        b->expr.push_back("$" + std::to_string(b->operands.size()));
        b->operands.push_back(parsed[0]);
    }
    if (b->expr.empty()) return *why = "empty expression", false;
    size_t cmp = comparison_at(b->expr);
    if (condition != (cmp < b->expr.size()))
        return *why = condition ? "a condition compares two expressions (< <= > >= == !=)"
                                : "a comparison belongs in {{ if ... }}",
               false;
    Quantity q;
    if (!condition) return Evaluator(b->expr, 0, b->expr.size(), nullptr).run(&q, why);
    if (comparison_at(std::vector<std::string>(b->expr.begin() + cmp + 1, b->expr.end())) < b->expr.size() - cmp - 1)
        return *why = "one comparison per condition", false;
    return Evaluator(b->expr, 0, cmp, nullptr).run(&q, why) &&
           Evaluator(b->expr, cmp + 1, b->expr.size(), nullptr).run(&q, why);
}

// [SECTION] Evaluation

std::vector<BoundValue> NumberSources::resolve_operands(const Binding& b) const {
    std::vector<BoundValue> vals;
    for (const Binding& o : b.operands) vals.push_back(resolve(o));
    if (!b.paired) return vals;
    auto is_run = [](const Binding& o) { return o.target != "device" && o.target.rfind("peer/", 0) != 0; };
    // Already one recording (or all live)?
    std::set<std::string> origins;
    bool all_ok = true;
    for (size_t i = 0; i < vals.size(); ++i)
        if (is_run(b.operands[i])) {
            all_ok = all_ok && vals[i].ok;
            origins.insert(vals[i].live ? "live" : vals[i].origin);
        }
    if (all_ok && origins.size() <= 1) return vals;
    // Else the first recording (in the order runs are searched) that has every run operand.
    std::vector<std::string> candidates;
    for (const Run& r : recorded_)
        if (std::find(candidates.begin(), candidates.end(), r.origin) == candidates.end() && !b.operands.empty() &&
            b.operands[0].target == r.record->ladder + "/" + r.record->rung)
            candidates.push_back(r.origin);
    for (const std::string& origin : candidates) {
        std::vector<BoundValue> pinned;
        bool ok = true;
        for (size_t i = 0; i < b.operands.size() && ok; ++i) {
            Binding o = b.operands[i];
            if (is_run(o)) o.keys.emplace_back("from", std::filesystem::path(origin).stem().string());
            pinned.push_back(resolve(o));
            ok = pinned.back().ok;
        }
        if (ok) return pinned;
    }
    for (auto& v : vals)
        if (v.ok) v = BoundValue::failed("no one recording holds every run of this paired comparison");
    return vals;
}

BoundValue NumberSources::resolve_expr(const Binding& b) const {
    BoundValue v;
    std::vector<BoundValue> vals = resolve_operands(b);
    for (size_t i = 0; i < vals.size(); ++i)
        if (!vals[i].ok) return v.error = "`" + b.operands[i].source + "`: " + vals[i].error, v;
    const std::string moved_to = one_device_operands(b, &vals);
    v.gpus = operand_gpus(b, vals);
    Quantity q;
    if (!Evaluator(b.expr, 0, b.expr.size(), &vals).run(&q, &v.error)) return v;
    v.ok = true;
    v.value = q.v;
    v.unit = q.unit;
    if (b.as == "pct") v.value *= 100, v.unit = "%";
    if (b.as == "x" || b.as == "ratio") v.unit = "x";
    if (b.as.rfind("unit:", 0) == 0) v.unit = b.as.substr(5);
    // Where it came from: every input's source line.
    for (const BoundValue& x : vals) {
        if (v.device.empty() || x.live) v.device = x.device, v.date = x.date, v.origin = x.origin;
        v.live = v.live || x.live;
        v.as_shown_device = v.as_shown_device || x.as_shown_device;
        // Device, date and run of each input; the files stay with the value's own source line.
        v.what += (v.what.empty() ? "" : "; ") + x.device + (x.date.empty() ? "" : ", " + x.date) + ": " + x.what;
    }
    v.what = "computed from " + (v.what.empty() ? std::string("numbers") : v.what);
    int decimals = b.decimals < 0 && v.unit == "x" && std::fabs(v.value) < 10 ? 2 : b.decimals;
    v.shown = format_bound(v.value, v.unit, decimals, b.bare);
    // A time or rate computed from another GPU's card says whose ("0.27 ms on the H100"); a share,
    // a count or a bare figure in brackets ("10% (H100) of the peak").
    const bool measure = v.unit != "%" && v.unit != "x" && !v.unit.empty() && !b.bare;
    if (!moved_to.empty()) {
        // Moved whole to the GPU that measured it: named, and no longer the shown GPU's.
        v.shown += measure ? " on the " + device_short_name(moved_to) : " (" + device_short_name(moved_to) + ")";
        v.as_shown_device = false;
    }
    for (size_t i = 0; i < vals.size() && moved_to.empty(); ++i)
        if (std::string elsewhere = measured_elsewhere(vals[i], !measure); !elsewhere.empty()) {
            v.shown += elsewhere;
            break;
        }
    // A tie: A / B whose difference lies inside both runs' own spreads.
    if (b.as == "ratio" && b.expr.size() == 3 && b.expr[1] == "/" && b.expr[0][0] == '$' && b.expr[2][0] == '$') {
        const BoundValue &a = vals[std::stoul(b.expr[0].substr(1))], &c = vals[std::stoul(b.expr[2].substr(1))];
        double diff = std::fabs(a.value - c.value);
        if (a.spread >= 0 && c.spread >= 0 && diff <= a.spread && diff <= c.spread)
            v.shown = "level (within the spread)";
    }
    return v;
}

std::optional<bool> NumberSources::holds(const Binding& cond, std::string* why) const {
    std::vector<BoundValue> vals = resolve_operands(cond);
    for (size_t i = 0; i < vals.size(); ++i)
        if (!vals[i].ok) return *why = "`" + cond.operands[i].source + "`: " + vals[i].error, std::nullopt;
    size_t cmp = comparison_at(cond.expr);
    Quantity l, r;
    if (!Evaluator(cond.expr, 0, cmp, &vals).run(&l, why) ||
        !Evaluator(cond.expr, cmp + 1, cond.expr.size(), &vals).run(&r, why))
        return std::nullopt;
    const std::string& op = cond.expr[cmp];
    if (op == "<") return l.v < r.v;
    if (op == "<=") return l.v <= r.v;
    if (op == ">") return l.v > r.v;
    if (op == ">=") return l.v >= r.v;
    if (op == "==") return l.v == r.v;
    return l.v != r.v;
}

}  // namespace kl
