// A rung's launches in a ladder manifest: grid and block expressions, shared memory, arguments
// (buffers, expressions and TMA tensor maps) and library routines.
#define TOML_EXCEPTIONS 1
#include "model/manifest_read.h"

#include <string>
#include <vector>

#include "base/errors.h"

namespace kl::detail {

Expr read_expr(const TomlReader& r, const toml::node& n, const std::string& field) {
    std::string text;
    if (auto s = n.value<std::string>())
        text = *s;
    else if (auto i = n.value<int64_t>())
        text = std::to_string(*i);
    else
        r.fail(line_of(n), field, "expected an expression (string or integer)");
    try {
        return Expr::parse(text);
    } catch (const InputError& e) { r.fail(line_of(n), field, e.what()); }
}

namespace {

std::vector<Expr> read_dims(TomlReader& r, const toml::table& t, const std::string& field) {
    const toml::node* n = t.get(field);
    if (!n) r.fail(line_of(t), field, "missing");
    std::vector<Expr> out;
    if (auto arr = n->as_array()) {
        if (arr->empty() || arr->size() > 3) r.fail(line_of(*n), field, "expected 1 to 3 expressions");
        for (size_t i = 0; i < arr->size(); ++i)
            out.push_back(read_expr(r, *arr->get(i), field + "[" + std::to_string(i) + "]"));
    } else {
        out.push_back(read_expr(r, *n, field));
    }
    return out;
}

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// "tmap(A, rows=M, cols=K, box_rows=BM, box_cols=64, swizzle=128)". The buffer name is checked
// against the operation's buffers later (check_names), like a plain buffer argument.
void read_tensor_map(TomlReader& r, int line, const std::string& field, ArgSpec& a) {
    const std::string usage =
        " (expected tmap(<buffer>, rows=<expr>, cols=<expr>, box_rows=<expr>, box_cols=<expr>[, swizzle=0|32|64|128]))";
    std::string body = trim(a.text);
    if (body.size() < 6 || body.back() != ')') r.fail(line, field, "'" + a.text + "': missing ')'" + usage);
    body = body.substr(5, body.size() - 6);  // between "tmap(" and the last ')'
    // Split at top-level commas: expressions may hold calls such as min(a, b).
    std::vector<std::string> parts;
    int depth = 0;
    std::string cur;
    for (char c : body) {
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (depth < 0) r.fail(line, field, "'" + a.text + "': unbalanced parentheses");
        if (c == ',' && depth == 0) {
            parts.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    parts.push_back(trim(cur));
    if (depth != 0) r.fail(line, field, "'" + a.text + "': unbalanced parentheses");
    a.kind = ArgSpec::Kind::TensorMap;
    a.tmap.buffer = parts[0];
    bool name_ok = !a.tmap.buffer.empty();
    for (char c : a.tmap.buffer) name_ok = name_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!name_ok) r.fail(line, field, "'" + a.text + "': the first item must be a buffer name" + usage);
    std::set<std::string> seen;
    for (size_t i = 1; i < parts.size(); ++i) {
        auto eq = parts[i].find('=');
        if (eq == std::string::npos) r.fail(line, field, "'" + parts[i] + "' is not key=value" + usage);
        std::string key = trim(parts[i].substr(0, eq)), value = trim(parts[i].substr(eq + 1));
        if (!seen.insert(key).second) r.fail(line, field, "'" + key + "' given twice in '" + a.text + "'");
        if (key == "swizzle") {
            if (value == "0")
                a.tmap.swizzle = 0;
            else if (value == "32")
                a.tmap.swizzle = 32;
            else if (value == "64")
                a.tmap.swizzle = 64;
            else if (value == "128")
                a.tmap.swizzle = 128;
            else
                r.fail(line, field, "swizzle=" + value + ": expected 0, 32, 64 or 128 (bytes)");
            continue;
        }
        Expr* target = key == "rows"       ? &a.tmap.rows
                       : key == "cols"     ? &a.tmap.cols
                       : key == "box_rows" ? &a.tmap.box_rows
                       : key == "box_cols" ? &a.tmap.box_cols
                                           : nullptr;
        if (!target) r.fail(line, field, "unknown key '" + key + "' in '" + a.text + "'" + usage);
        try {
            *target = Expr::parse(value);
        } catch (const InputError& e) { r.fail(line, field, key + ": " + e.what()); }
    }
    for (const char* key : {"rows", "cols", "box_rows", "box_cols"})
        if (!seen.count(key)) r.fail(line, field, "'" + a.text + "': missing " + key + usage);
}

ArgSpec read_arg(TomlReader& r, const toml::node& n, const std::string& field) {
    auto s = n.value<std::string>();
    auto i = n.value<int64_t>();
    if (!s && !i) r.fail(line_of(n), field, "expected a buffer name or an expression");
    ArgSpec a;
    a.text = s ? *s : std::to_string(*i);
    if (s && trim(*s).rfind("tmap(", 0) == 0) {
        read_tensor_map(r, line_of(n), field, a);
        return a;
    }
    std::string body = a.text;
    auto colon = body.rfind(':');
    if (colon != std::string::npos) {
        std::string type = body.substr(colon + 1);
        body = body.substr(0, colon);
        if (type == "i32")
            a.type = ArgSpec::Type::I32;
        else if (type == "i64")
            a.type = ArgSpec::Type::I64;
        else if (type == "f32")
            a.type = ArgSpec::Type::F32;
        else
            r.fail(line_of(n), field, "unknown scalar type ':" + type + "' (expected i32, i64 or f32)");
    }
    if (a.type == ArgSpec::Type::F32) {
        char* end = nullptr;
        double v = std::strtod(body.c_str(), &end);
        if (end && *end == '\0' && end != body.c_str()) {
            a.is_literal = true;
            a.literal = v;
            return a;
        }
    }
    try {
        a.value = Expr::parse(body);
    } catch (const InputError& e) { r.fail(line_of(n), field, e.what()); }
    return a;
}

}  // namespace

LaunchSpec read_launch(TomlReader& r, const toml::table& t, const std::string& field) {
    r.allow_only(t, field, {"entry", "builtin", "when", "repeat", "grid", "block", "smem", "args"});
    LaunchSpec l;
    l.line = line_of(t);
    l.entry = r.string_or(t, "entry", "", field);
    l.builtin = r.string_or(t, "builtin", "", field);
    if (l.entry.empty() == l.builtin.empty()) r.fail(l.line, field, "give exactly one of entry or builtin");
    if (!l.entry.empty()) {
        l.grid = read_dims(r, t, "grid");
        if (t.get("block")) l.block = read_dims(r, t, "block");  // required for CUDA rungs (triton_manifest.cpp)
        l.smem = t.get("smem") ? read_expr(r, *t.get("smem"), field + ".smem") : Expr::parse("0");
    }
    if (const toml::node* w = t.get("when")) {
        if (!w->is_string()) r.fail(line_of(*w), field + ".when", "expected a condition in quotes, e.g. \"d == 64\"");
        l.when = read_expr(r, *w, field + ".when");
        l.when_where = r.path() + ":" + std::to_string(line_of(*w)) + ": " + field + ".when";
    }
    if (const toml::node* n = t.get("repeat")) l.repeat = read_expr(r, *n, field + ".repeat");
    const toml::array* args = t.get("args") ? t.get("args")->as_array() : nullptr;
    if (!args) r.fail(l.line, field + ".args", "missing (a list of buffer names and expressions)");
    for (size_t i = 0; i < args->size(); ++i)
        l.args.push_back(read_arg(r, *args->get(i), field + ".args[" + std::to_string(i) + "]"));
    return l;
}

}  // namespace kl::detail
