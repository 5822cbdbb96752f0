// Reading and validating a ladder.toml (a rung's launches: manifest_launch.cpp; the Triton rungs'
// fields: triton_manifest.cpp). toml++ is used header-only; this is the one file that includes it
// for manifests (lesson.cpp is the other): fast builds.
#include "model/manifest_load.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "base/checked_int.h"
#include "base/confined_path.h"
#include "base/errors.h"
#include "base/toml_reader.h"
#include "model/arch.h"
#include "model/manifest_read.h"
#include "model/operation.h"
#include "model/triton_manifest.h"

namespace fs = std::filesystem;

namespace kl {

// [SECTION] Parsing

namespace {

using detail::read_expr;
using detail::read_launch;

bool valid_id(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
            return false;
    return true;
}

std::vector<DType> read_dtypes(TomlReader& r, const toml::table& t, const std::string& field) {
    std::vector<DType> out;
    for (const auto& [s, line] : r.strings(t, field)) {
        auto d = parse_dtype(s);
        if (!d) r.fail(line, field, "unknown dtype '" + s + "' (expected fp32, bf16 or fp16)");
        out.push_back(*d);
    }
    return out;
}

ParamSpec read_param(TomlReader& r, const std::string& name, const toml::node& n, const std::string& field) {
    const toml::table* t = n.as_table();
    if (!t) r.fail(line_of(n), field, "expected a table { default = ..., values = [...] or min/max }");
    r.allow_only(*t, field, {"default", "values", "min", "max", "pow2", "help", "before", "lab"});
    ParamSpec p;
    p.name = name;
    p.default_value = r.integer(*t, "default", field);
    p.help = r.string_or(*t, "help", "", field);
    p.lab = r.boolean_or(*t, "lab", false, field);
    if (t->get("values")) {
        for (auto [v, line] : r.integers(*t, "values", field)) p.values.push_back(v);
        if (p.values.empty()) r.fail(line_of(*t), field + ".values", "must not be empty");
        if (t->get("min") || t->get("max")) r.fail(line_of(*t), field, "give either values or min/max, not both");
    } else {
        p.min = r.integer(*t, "min", field);
        p.max = r.integer(*t, "max", field);
        p.pow2 = r.boolean_or(*t, "pow2", false, field);
        if (p.min > p.max)
            r.fail(line_of(*t), field, "min " + std::to_string(p.min) + " > max " + std::to_string(p.max));
        if (p.pow2 && p.allowed().empty())
            r.fail(line_of(*t), field,
                   "no power of two lies in " + std::to_string(p.min) + ".." + std::to_string(p.max));
    }
    if (!p.accepts(p.default_value))
        r.fail(line_of(*t), field + ".default",
               std::to_string(p.default_value) + " is not allowed (" + p.describe_allowed() + ")");
    if (t->get("before")) {
        p.before = r.integer(*t, "before", field);
        if (!p.accepts(*p.before))
            r.fail(line_of(*t), field + ".before",
                   std::to_string(*p.before) + " is not allowed (" + p.describe_allowed() + ")");
    }
    return p;
}

// `arch`, `min_arch` and `min_arch_why`: well-formed names, and a reason for every need.
void read_arch_need(TomlReader& r, const toml::table& t, const std::string& field, Rung& rung) {
    if (!rung.arch.empty() && parse_arch(rung.arch).cc < 50)
        r.fail(line_of(*t.get("arch")), field + ".arch", "'" + rung.arch + "' is not an architecture (sm_80, sm_90a)");
    rung.min_arch = r.string_or(t, "min_arch", "", field);
    rung.min_arch_why = r.string_or(t, "min_arch_why", "", field);
    if (!rung.min_arch.empty()) {
        ArchName need = parse_arch(rung.min_arch);
        if (need.cc < 50 || need.specific)
            r.fail(line_of(*t.get("min_arch")), field + ".min_arch",
                   "'" + rung.min_arch + "' is not an architecture such as sm_80 (no \"a\" suffix)");
        if (rung.min_arch_why.empty())
            r.fail(line_of(*t.get("min_arch")), field + ".min_arch_why",
                   "missing: say which instruction or feature needs " + rung.min_arch);
    } else if (!rung.min_arch_why.empty()) {
        r.fail(line_of(*t.get("min_arch_why")), field + ".min_arch", "missing: min_arch_why explains a min_arch");
    }
    ArchName target = parse_arch(rung.arch);
    if (target.specific && rung.min_arch.empty()) rung.min_arch = arch_name(target.cc);
}

// [[rung.constraint]]: expressions over parameters and sizes that must hold, with the message.
void read_constraints(TomlReader& r, const toml::table& t, const std::string& field, Rung& rung) {
    if (const toml::node* cs = t.get("constraint")) {
        const toml::array* arr = cs->as_array();
        if (!arr) r.fail(line_of(*cs), field + ".constraint", "expected [[rung.constraint]] entries");
        for (size_t i = 0; i < arr->size(); ++i) {
            std::string f = field + ".constraint[" + std::to_string(i) + "]";
            const toml::table* ct = arr->get(i)->as_table();
            if (!ct) r.fail(line_of(*arr->get(i)), f, "expected a table with expr and message");
            r.allow_only(*ct, f, {"expr", "message"});
            Constraint c;
            c.line = line_of(*ct);
            if (!ct->get("expr")) r.fail(c.line, f + ".expr", "missing");
            c.where = r.path() + ":" + std::to_string(line_of(*ct->get("expr"))) + ": " + f + ".expr";
            c.expr = read_expr(r, *ct->get("expr"), f + ".expr");
            c.message = r.string(*ct, "message", f);
            rung.constraints.push_back(c);
        }
    }
}

// [rung.scratch]: name = "elements" or "elements:dtype", device buffers the runner allocates.
void read_scratch(TomlReader& r, const toml::table& t, const std::string& field, Rung& rung) {
    if (const toml::node* sc = t.get("scratch")) {
        const toml::table* st = sc->as_table();
        if (!st) r.fail(line_of(*sc), field + ".scratch", "expected a table name = \"elements\"");
        for (const auto& [key, node] : *st) {
            ScratchSpec s;
            s.name = std::string(key.str());
            std::string f = field + ".scratch." + s.name;
            auto text = node.value<std::string>();
            if (!text) r.fail(line_of(node), f, "expected a string expression, e.g. \"n\" or \"rows:f32\"");
            std::string body = *text;
            auto colon = body.rfind(':');
            if (colon != std::string::npos) {
                s.dtype = parse_dtype(body.substr(colon + 1));
                if (!s.dtype) r.fail(line_of(node), f, "unknown dtype '" + body.substr(colon + 1) + "'");
                body = body.substr(0, colon);
            }
            try {
                s.elements = Expr::parse(body);
            } catch (const InputError& e) { r.fail(line_of(node), f, e.what()); }
            rung.scratch.push_back(s);
        }
    }
}

// `short`: one line of at most kShortLabelChars characters (uniqueness is the ladder's check).
std::string read_short_label(TomlReader& r, const toml::table& t, const std::string& field) {
    if (!t.get("short")) return "";
    std::string s = r.string(t, "short", field);
    size_t chars = 0;
    bool control = false;
    for (unsigned char c : s) {
        chars += (c & 0xC0) != 0x80;  // UTF-8: count the first byte of each character
        control = control || c < 0x20 || c == 0x7F;
    }
    const int line = line_of(*t.get("short"));
    if (s.empty() || s.find_first_not_of(' ') == std::string::npos) r.fail(line, field + ".short", "is empty");
    if (control) r.fail(line, field + ".short", "must be one line of text (no control characters)");
    if (chars > kShortLabelChars)
        r.fail(line, field + ".short",
               std::to_string(chars) + " characters, at most " + std::to_string(kShortLabelChars) +
                   " (it names a bar on a plot axis)");
    return s;
}

// `number`: what the strip, plot axes, `kladder list` and lesson text call the rung ("14", "04b"):
// 1 to 4 letters and digits (uniqueness is the ladder's check, manifest_rungs.cpp).
std::string read_rung_number(TomlReader& r, const toml::table& t, const std::string& field) {
    if (!t.get("number")) return "";
    std::string s = r.string(t, "number", field);
    bool ok = !s.empty() && s.size() <= 4;
    for (unsigned char c : s) ok = ok && std::isalnum(c);
    if (!ok)
        r.fail(line_of(*t.get("number")), field + ".number",
               "'" + s + "' must be 1 to 4 letters and digits (\"14\", \"04b\")");
    return s;
}

Rung read_rung(TomlReader& r, const toml::table& t, const std::string& field, const std::string& dir,
               bool learner = false) {
    if (learner)  // a learner's rung (workspace.h) also says which rung it was forked from
        r.allow_only(
            t, field,
            {"id", "title", "file", "operation", "idea", "dtypes", "arch", "min_arch", "min_arch_why", "compute",
             "kind", "constexprs", "graph", "params", "constraint", "launch", "scratch", "model", "forked_from"});
    else
        r.allow_only(t, field, {"id",         "title",     "short",   "number",     "lab",      "file",
                                "operation",  "idea",      "dtypes",  "arch",       "min_arch", "min_arch_why",
                                "compute",    "reference", "kind",    "constexprs", "graph",    "params",
                                "constraint", "launch",    "scratch", "model"});
    Rung rung;
    rung.learner = learner;
    if (learner) rung.forked_from = r.string(t, "forked_from", field);
    rung.line = line_of(t);
    rung.id = r.string(t, "id", field);
    if (!valid_id(rung.id))
        r.fail(rung.line, field + ".id", "'" + rung.id + "' must be lower-case letters, digits and _");
    rung.title = r.string(t, "title", field);
    rung.short_label = read_short_label(r, t, field);
    rung.idea = r.string_or(t, "idea", "", field);
    rung.file = r.string_or(t, "file", "", field);
    rung.operation = r.string_or(t, "operation", "", field);
    rung.arch = r.string_or(t, "arch", "", field);
    read_arch_need(r, t, field, rung);
    rung.compute = r.string_or(t, "compute", "", field);
    if (!rung.compute.empty() && rung.compute != "tf32")
        r.fail(line_of(*t.get("compute")), field + ".compute",
               "unknown precision '" + rung.compute + "' (expected tf32, or leave it out)");
    rung.reference = r.boolean_or(t, "reference", false, field);
    if (!learner) {
        rung.lab = r.boolean_or(t, "lab", false, field);
        rung.number = read_rung_number(r, t, field);
    }
    rung.graph = r.boolean_or(t, "graph", false, field);
    if (t.get("dtypes")) rung.dtypes = read_dtypes(r, t, "dtypes");
    if (!rung.file.empty()) {
        std::string why;
        rung.source_path = confined_file(dir, rung.file, &why);
        if (rung.source_path.empty()) r.fail(line_of(*t.get("file")), field + ".file", why);
    }
    if (const toml::node* params = t.get("params")) {
        const toml::table* pt = params->as_table();
        if (!pt) r.fail(line_of(*params), field + ".params", "expected a table of parameters");
        for (const auto& [key, node] : *pt) {
            std::string name(key.str());
            rung.params.push_back(read_param(r, name, node, field + ".params." + name));
        }
        // toml++ tables are unordered; keep manifest order for sliders.
        std::sort(rung.params.begin(), rung.params.end(), [&](const ParamSpec& a, const ParamSpec& b) {
            return line_of(*pt->get(a.name)) < line_of(*pt->get(b.name));
        });
    }
    read_constraints(r, t, field, rung);
    const toml::node* ls = t.get("launch");
    const toml::array* larr = ls ? ls->as_array() : nullptr;
    if (!larr || larr->empty())
        r.fail(rung.line, field + ".launch", "missing: a rung needs at least one [[rung.launch]]");
    for (size_t i = 0; i < larr->size(); ++i) {
        std::string f = field + ".launch[" + std::to_string(i) + "]";
        const toml::table* lt = larr->get(i)->as_table();
        if (!lt) r.fail(line_of(*larr->get(i)), f, "expected a table");
        rung.launches.push_back(read_launch(r, *lt, f));
        if (!rung.launches.back().entry.empty() && rung.file.empty())
            r.fail(rung.launches.back().line, f + ".entry", "a kernel launch needs the rung's file");
    }
    read_rung_kind(r, t, field, rung);  // kind, constexprs, Triton's launch rules (triton_manifest.cpp)
    read_scratch(r, t, field, rung);
    if (const toml::node* m = t.get("model")) {
        const toml::table* mt = m->as_table();
        if (!mt) r.fail(line_of(*m), field + ".model", "expected a table");
        r.allow_only(*mt, field + ".model", {"bytes", "flops", "note"});
        if (mt->get("bytes")) rung.model.bytes = read_expr(r, *mt->get("bytes"), field + ".model.bytes");
        if (mt->get("flops")) rung.model.flops = read_expr(r, *mt->get("flops"), field + ".model.flops");
        rung.model.note = r.string_or(*mt, "note", "", field + ".model");
    }
    return rung;
}

// Every name an expression of the rung uses must be a size axis, a parameter, esize or num_sms;
// every buffer argument must name a buffer of the operation or a scratch buffer.
void check_names(TomlReader& r, Rung& rung, const Operation& op, const std::string& field) {
    std::set<std::string> known = {"esize", "num_sms"};
    for (const auto& a : op.size_axes()) known.insert(a.name);
    for (const auto& p : rung.params) known.insert(p.name);
    Problem probe;
    for (const auto& a : op.size_axes()) probe.sizes[a.name] = 1;
    std::set<std::string> buffers;
    for (const auto& b : op.buffers(probe)) buffers.insert(b.name);
    for (const auto& s : rung.scratch) buffers.insert(s.name);
    auto check = [&](const Expr& e, int line, const std::string& f) {
        for (const auto& n : e.names())
            if (!known.count(n)) r.fail(line, f, "unknown name '" + n + "' in '" + e.text() + "'");
    };
    for (const auto& c : rung.constraints) check(c.expr, c.line, field + ".constraint");
    for (auto& l : rung.launches) {
        for (const auto& e : l.grid) check(e, l.line, field + ".launch.grid");
        for (const auto& e : l.block) check(e, l.line, field + ".launch.block");
        if (!l.smem.empty()) check(l.smem, l.line, field + ".launch.smem");
        if (!l.when.empty()) check(l.when, l.line, field + ".launch.when");
        if (!l.repeat.empty()) check(l.repeat, l.line, field + ".launch.repeat");
        for (auto& a : l.args) {
            if (a.is_literal) continue;
            if (a.kind == ArgSpec::Kind::TensorMap) {
                const std::string f = field + ".launch.args '" + a.text + "'";
                if (!buffers.count(a.tmap.buffer)) r.fail(l.line, f, "unknown buffer '" + a.tmap.buffer + "'");
                for (const Expr* e : {&a.tmap.rows, &a.tmap.cols, &a.tmap.box_rows, &a.tmap.box_cols})
                    check(*e, l.line, f);
                if (!l.builtin.empty())
                    r.fail(l.line, f, "a tensor map can only be passed to a kernel, not to builtin " + l.builtin);
                continue;
            }
            auto names = a.value.names();
            if (names.size() == 1 && a.value.text() == *names.begin() && buffers.count(a.value.text())) {
                a.kind = ArgSpec::Kind::Buffer;
                a.buffer = a.value.text();
                continue;
            }
            check(a.value, l.line, field + ".launch.args '" + a.text + "'");
        }
    }
    for (const auto& s : rung.scratch) check(s.elements, rung.line, field + ".scratch." + s.name);
    for (const auto& [name, e] : rung.constexprs) check(e, rung.line, field + ".constexprs." + name);
    if (!rung.model.bytes.empty()) check(rung.model.bytes, rung.line, field + ".model.bytes");
    if (!rung.model.flops.empty()) check(rung.model.flops, rung.line, field + ".model.flops");
}

}  // namespace

// For the learner's workspace (workspace.cpp): its rungs are read and checked as these are.
namespace detail {
Rung read_learner_rung(TomlReader& r, const toml::table& t, const std::string& field, const std::string& dir) {
    return read_rung(r, t, field, dir, true);
}
void check_rung_names(TomlReader& r, Rung& rung, const Operation& op, const std::string& field) {
    check_names(r, rung, op, field);
}
}  // namespace detail

Ladder load_ladder(const std::string& manifest_path) {
    TomlReader r(manifest_path);
    const toml::table& root = r.root();
    r.allow_only(root, "", {"ladder", "rung"});
    const toml::table* lt = root.get("ladder") ? root.get("ladder")->as_table() : nullptr;
    if (!lt) r.fail(1, "ladder", "missing [ladder] table");
    r.allow_only(*lt, "ladder", {"id", "title", "operation", "summary", "sizes", "dtypes"});
    Ladder L;
    L.manifest_path = manifest_path;
    L.dir = fs::path(manifest_path).parent_path().string();
    L.id = r.string(*lt, "id", "ladder");
    if (!valid_id(L.id)) r.fail(line_of(*lt), "ladder.id", "'" + L.id + "' must be lower-case letters, digits and _");
    L.title = r.string(*lt, "title", "ladder");
    L.operation = r.string(*lt, "operation", "ladder");
    L.summary = r.string_or(*lt, "summary", "", "ladder");
    L.dtypes = lt->get("dtypes") ? read_dtypes(r, *lt, "dtypes") : std::vector<DType>{DType::F32};
    const Operation* ladder_op = find_operation(L.operation);
    if (!ladder_op)
        r.fail(line_of(*lt->get("operation")), "ladder.operation", "unknown operation '" + L.operation + "'");
    if (const toml::node* s = lt->get("sizes")) {
        const toml::table* st = s->as_table();
        if (!st) r.fail(line_of(*s), "ladder.sizes", "expected a table { axis = value }");
        for (const auto& [key, node] : *st) {
            auto v = node.value<int64_t>();
            if (!v || *v < 0)
                r.fail(line_of(node), "ladder.sizes." + std::string(key.str()), "expected a non-negative integer");
            L.default_sizes.emplace_back(std::string(key.str()), *v);
        }
        std::sort(L.default_sizes.begin(), L.default_sizes.end(), [&](const auto& a, const auto& b) {
            return line_of(*st->get(a.first)) < line_of(*st->get(b.first));
        });
    }
    for (const auto& axis : ladder_op->size_axes()) {
        bool found = false;
        for (const auto& [name, v] : L.default_sizes) found |= name == axis.name;
        if (!found)
            r.fail(line_of(*lt), "ladder.sizes", "missing size axis '" + axis.name + "' of operation " + L.operation);
    }
    const toml::array* rungs = root.get("rung") ? root.get("rung")->as_array() : nullptr;
    if (!rungs || rungs->empty()) r.fail(1, "rung", "a ladder needs at least one [[rung]]");
    std::set<std::string> ids;
    for (size_t i = 0; i < rungs->size(); ++i) {
        std::string field = "rung[" + std::to_string(i) + "]";
        const toml::table* t = rungs->get(i)->as_table();
        if (!t) r.fail(line_of(*rungs->get(i)), field, "expected a table");
        Rung rung = read_rung(r, *t, field, L.dir);
        field = "rung '" + rung.id + "'";
        if (!ids.insert(rung.id).second) r.fail(rung.line, field + ".id", "duplicate rung id");
        for (const Rung& other : L.rungs)  // a short label names one rung on an axis
            if (!rung.short_label.empty() && (other.label() == rung.short_label || other.title == rung.short_label))
                r.fail(line_of(*t->get("short")), field + ".short",
                       "'" + rung.short_label + "' is already rung '" + other.id + "''s label");
        if (rung.operation.empty()) rung.operation = L.operation;
        const Operation* op = find_operation(rung.operation);
        if (!op) r.fail(rung.line, field + ".operation", "unknown operation '" + rung.operation + "'");
        if (rung.dtypes.empty()) rung.dtypes = L.dtypes;
        for (DType d : rung.dtypes)
            if (std::find(L.dtypes.begin(), L.dtypes.end(), d) == L.dtypes.end())
                r.fail(rung.line, field + ".dtypes", to_string(d) + " is not one of the ladder's dtypes");
        for (const auto& axis : op->size_axes()) {
            bool found = false;
            for (const auto& [name, v] : L.default_sizes) found |= name == axis.name;
            if (!found)
                r.fail(rung.line, field + ".operation",
                       "operation " + rung.operation + " needs size axis '" + axis.name + "' in [ladder].sizes");
        }
        check_names(r, rung, *op, field);
        rung.index = static_cast<int>(L.rungs.size());
        L.rungs.push_back(std::move(rung));
    }
    finish_rungs(L);  // numbers, lab twins, the teaching rungs' parameter limit (manifest_rungs.cpp)
    return L;
}

std::vector<Ladder> load_all_ladders(const std::string& kernels_root, std::vector<std::string>* errors) {
    std::vector<std::string> manifests;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(kernels_root, ec)) {
        fs::path m = entry.path() / "ladder.toml";
        std::error_code e2;  // a symlink loop here is a folder to skip, not a crash
        if (entry.is_directory(e2) && fs::exists(m, e2)) manifests.push_back(m.string());
    }
    if (ec && errors) errors->push_back("cannot list " + kernels_root + ": " + ec.message());
    std::sort(manifests.begin(), manifests.end());
    std::vector<Ladder> out;
    std::set<std::string> ids;
    for (const auto& m : manifests) {
        try {
            Ladder L = load_ladder(m);
            if (!ids.insert(L.id).second) throw InputError(m + ": ladder.id: duplicate ladder id '" + L.id + "'");
            out.push_back(std::move(L));
        } catch (const Error& e) {
            if (errors) errors->push_back(e.what());
        }
    }
    return out;
}

}  // namespace kl
