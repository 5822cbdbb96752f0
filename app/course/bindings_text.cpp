// Bindings in lesson text: finding {{...}} and parsing its fields, and formatting a bound value
// the way the text shows it. The values themselves come from bindings.cpp.
// [SECTION] index: parsing / formatting
#include "course/bindings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

namespace kl {

// [SECTION] Parsing

namespace {

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Splits on blanks; "double quoted" parts keep their blanks (quotes removed).
bool tokenize(const std::string& s, std::vector<std::string>* out) {
    std::string cur;
    bool quoted = false, any = false;
    for (char c : s) {
        if (c == '"') {
            quoted = !quoted;
            any = true;
        } else if (!quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
            if (any) out->push_back(cur);
            cur.clear();
            any = false;
        } else {
            cur += c;
            any = true;
        }
    }
    if (any) out->push_back(cur);
    return !quoted;
}

bool parse_format(const std::string& format, Binding* b, std::string* why) {
    std::vector<std::string> ftok;
    tokenize(format, &ftok);
    const bool computed = b->kind == Binding::Kind::Expr;
    for (const auto& f : ftok) {
        if (f == "bare") {
            b->bare = true;
        } else if (f.size() == 2 && f[0] == '.' && f[1] >= '0' && f[1] <= '6') {
            b->decimals = f[1] - '0';
        } else if (computed && (f == "pct" || f == "x" || f == "ratio")) {
            b->as = f;
        } else if (computed && f.rfind("unit=", 0) == 0 && f.size() > 5 && f.size() < 16) {
            b->as = "unit:" + f.substr(5);  // the result's unit, where the arithmetic cannot name it
        } else if (computed && f == "paired") {
            b->paired = true;
        } else {
            return *why = "unknown format '" + f + "' (bare, .0 to .6" +
                          (computed ? ", pct, x, ratio, unit=U, paired)" : "; pct, x, ratio, paired after =)"),
                   false;
        }
    }
    return true;
}

bool parse_one(const std::string& inner, Binding* b, std::string* why) {
    if (inner == "else" || inner == "end") {
        b->kind = inner == "else" ? Binding::Kind::Else : Binding::Kind::End;
        return true;
    }
    if (inner.rfind("if ", 0) == 0) {
        b->kind = Binding::Kind::If;
        return parse_computed(inner.substr(3), true, b, why);
    }
    std::string spec = inner, format;
    if (size_t bar = inner.find('|'); bar != std::string::npos) {
        spec = inner.substr(0, bar);
        format = inner.substr(bar + 1);
    }
    if (!spec.empty() && spec[0] == '=') {
        b->kind = Binding::Kind::Expr;
        return parse_format(format, b, why) && parse_computed(spec.substr(1), false, b, why);
    }
    std::vector<std::string> tok;
    if (!tokenize(spec, &tok)) return *why = "unbalanced double quote", false;
    if (tok.size() < 2) return *why = "expected TARGET METRIC [KEY=VALUE ...]", false;
    b->target = tok[0];
    b->metric = tok[1];
    static const std::regex target_re("device|peer/[a-z0-9_]+|[a-z0-9_]+/[a-z0-9_]+");
    if (!std::regex_match(b->target, target_re))
        return *why = "target '" + b->target + "' is not LADDER/RUNG, device or peer/WHAT", false;
    static const std::regex name_re("[A-Za-z_][A-Za-z0-9_]*");
    if (!std::regex_match(b->metric, name_re)) return *why = "metric '" + b->metric + "' is not a name", false;
    for (size_t i = 2; i < tok.size(); ++i) {
        size_t eq = tok[i].find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == tok[i].size())
            return *why = "'" + tok[i] + "' is not KEY=VALUE", false;
        std::string k = tok[i].substr(0, eq);
        if (!std::regex_match(k, name_re)) return *why = "key '" + k + "' is not a name", false;
        for (const auto& [ok, ov] : b->keys)
            if (ok == k) return *why = "key '" + k + "' is given twice", false;
        b->keys.emplace_back(k, tok[i].substr(eq + 1));
    }
    return parse_format(format, b, why);
}

}  // namespace

std::vector<Binding> find_bindings(const std::string& text, std::vector<std::string>* errors) {
    std::vector<Binding> out;
    size_t pos = 0;
    while ((pos = text.find("{{", pos)) != std::string::npos) {
        size_t close = text.find("}}", pos + 2);
        size_t next_open = text.find("{{", pos + 2);
        if (close == std::string::npos || (next_open != std::string::npos && next_open < close)) {
            if (errors) errors->push_back("`" + text.substr(pos, 40) + "`: '{{' without a closing '}}'");
            pos += 2;
            continue;
        }
        Binding b;
        b.begin = pos;
        b.end = close + 2;
        b.source = trim(text.substr(pos + 2, close - pos - 2));
        std::string why;
        if (parse_one(b.source, &b, &why))
            out.push_back(std::move(b));
        else if (errors)
            errors->push_back("`{{ " + b.source + " }}`: " + why);
        pos = close + 2;
    }
    // Conditional prose nests: every `if` has its `end`, an `else` or `end` has its `if`.
    std::vector<const Binding*> open;
    for (const Binding& b : out) {
        if (b.kind == Binding::Kind::If) open.push_back(&b);
        if ((b.kind == Binding::Kind::Else || b.kind == Binding::Kind::End) && open.empty() && errors)
            errors->push_back("`{{ " + b.source + " }}`: without its `{{ if ... }}`");
        if (b.kind == Binding::Kind::End && !open.empty()) open.pop_back();
    }
    for (const Binding* b : open)
        if (errors) errors->push_back("`{{ " + b->source + " }}`: without its `{{ end }}`");
    return out;
}

std::optional<int64_t> parse_bound_int(const std::string& s) {
    static const std::regex pow_re("2\\^([0-9]{1,2})"), int_re("-?[0-9]{1,18}");
    std::smatch m;
    if (std::regex_match(s, m, pow_re)) {
        int e = std::stoi(m[1]);
        if (e > 62) return std::nullopt;
        return int64_t(1) << e;
    }
    if (std::regex_match(s, int_re)) return std::stoll(s);
    return std::nullopt;
}

// [SECTION] Formatting

namespace {
std::string group_thousands(const std::string& digits) {
    // digits: "-1234567.89" -> "-1,234,567.89"
    size_t start = digits[0] == '-' ? 1 : 0;
    size_t dot = digits.find('.');
    size_t int_end = dot == std::string::npos ? digits.size() : dot;
    std::string out = digits.substr(0, start);
    for (size_t i = start; i < int_end; ++i) {
        out += digits[i];
        size_t left = int_end - i - 1;
        if (left > 0 && left % 3 == 0) out += ',';
    }
    return out + digits.substr(int_end);
}
}  // namespace

std::string format_bound(double value, const std::string& unit, int decimals, bool bare) {
    char buf[64];
    double a = std::fabs(value);
    if (decimals >= 0) {
        std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    } else if (a != 0 && (a < 1e-3 || a >= 1e15)) {
        std::snprintf(buf, sizeof buf, "%.1e", value);  // errors: 4.1e-06
    } else {
        int digits = a == 0 ? 0 : static_cast<int>(std::floor(std::log10(a)));
        int dec = std::max(0, 2 - digits);
        std::snprintf(buf, sizeof buf, "%.*f", dec, value);
    }
    std::string s = group_thousands(buf);
    if (bare || unit.empty()) return s;
    return s + (unit == "%" || unit == "x" ? "" : " ") + unit;
}

}  // namespace kl
