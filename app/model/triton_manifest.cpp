#include "model/triton_manifest.h"

#include "model/manifest_read.h"

namespace kl {

namespace {

void read_constexprs(const TomlReader& r, const toml::node& node, const std::string& field, Rung& rung) {
    const toml::table* ct = node.as_table();
    if (!ct) r.fail(line_of(node), field, "expected a table NAME = \"expression\"");
    for (const auto& [key, value] : *ct) {
        const std::string name(key.str()), f = field + "." + name;
        if (rung.find_param(name)) r.fail(line_of(value), f, "'" + name + "' is already a parameter of the rung");
        rung.constexprs.emplace_back(name, detail::read_expr(r, value, f));
    }
}

}  // namespace

void read_rung_kind(const TomlReader& r, const toml::table& t, const std::string& field, Rung& rung) {
    rung.kind = r.string_or(t, "kind", "cuda", field);
    if (rung.kind != "cuda" && rung.kind != "triton")
        r.fail(line_of(*t.get("kind")), field + ".kind", "unknown kind '" + rung.kind + "' (expected cuda or triton)");
    const toml::array* larr = t.get("launch")->as_array();  // read_rung checked it
    if (!rung.is_triton()) {
        if (const toml::node* c = t.get("constexprs"))
            r.fail(line_of(*c), field + ".constexprs", "only Triton rungs (kind = \"triton\") have constexprs");
        for (size_t i = 0; i < rung.launches.size(); ++i)
            if (!rung.launches[i].entry.empty() && rung.launches[i].block.empty())
                r.fail(rung.launches[i].line, field + ".launch[" + std::to_string(i) + "].block", "missing");
        return;
    }
    const std::string& file = rung.file;
    if (file.size() < 4 || file.compare(file.size() - 3, 3, ".py") != 0)
        r.fail(rung.line, field + ".file", "a Triton rung's file is a .py file with its @triton.jit kernel");
    for (const char* name : {"num_warps", "num_stages"})
        if (!rung.find_param(name))
            r.fail(rung.line, field + ".params." + name,
                   "missing: a Triton rung gives num_warps and num_stages as parameters (one value or several)");
    for (int64_t w : rung.find_param("num_warps")->allowed())
        if (w < 1 || w > 32 || (w & (w - 1)) != 0)
            r.fail(rung.line, field + ".params.num_warps", "values must be powers of two from 1 to 32");
    if (const toml::node* c = t.get("constexprs")) read_constexprs(r, *c, field + ".constexprs", rung);
    for (size_t i = 0; i < rung.launches.size(); ++i) {
        LaunchSpec& l = rung.launches[i];
        const std::string f = field + ".launch[" + std::to_string(i) + "]";
        if (!l.builtin.empty()) r.fail(l.line, f + ".builtin", "a Triton rung launches its own kernel only");
        const toml::table* lt = larr->get(i)->as_table();
        for (const char* key : {"block", "smem"})
            if (lt->get(key))
                r.fail(line_of(*lt->get(key)), f + "." + key,
                       "leave it out: a Triton program has num_warps * 32 threads and the shared memory its compiler "
                       "asks for");
        for (const auto& a : l.args)
            if (a.kind == ArgSpec::Kind::TensorMap)
                r.fail(l.line, f + ".args", "'" + a.text + "': Triton rungs take no tensor maps");
        l.block = {Expr::parse("num_warps * 32")};
    }
}

}  // namespace kl
