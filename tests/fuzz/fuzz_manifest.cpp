// Fuzz target: the ladder manifest loader (app/model/manifest.*) and what runs on a loaded
// ladder before any GPU work: parameter ranges, defaults, constraints, launch geometry.
#include <string>

#include "base/errors.h"
#include "base/paths.h"
#include "fuzz_driver.h"
#include "fuzz_targets_common.h"
#include "model/manifest.h"
#include "model/manifest_load.h"

namespace {
std::string g_dir;

void exercise(const kl::Ladder& L) {
    std::map<std::string, int64_t> sizes(L.default_sizes.begin(), L.default_sizes.end());
    for (const auto& r : L.rungs) {
        for (const auto& p : r.params) {
            auto allowed = p.allowed();
            p.describe_allowed();
            if (!allowed.empty()) kl::resolve_params(r, {{p.name, allowed.back()}});
        }
        kl::ParamValues pv = kl::resolve_params(r, {});
        for (kl::DType dt : r.dtypes) {
            kl::Scope scope = kl::make_scope(sizes, pv, dt, 132);
            try {
                kl::check_constraints(r, scope);
                for (const auto& l : r.launches) {
                    for (const auto& g : l.grid) g.eval(scope);
                    for (const auto& b : l.block) b.eval(scope);
                    if (!l.smem.empty()) l.smem.eval(scope);
                }
                if (!r.model.bytes.empty()) r.model.bytes.eval(scope);
                if (!r.model.flops.empty()) r.model.flops.eval(scope);
            } catch (const kl::InputError&) {}
            kl::compile_defines(r, pv, dt);
        }
    }
}
}  // namespace

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "manifest";
    t.extensions = {".toml"};
    t.dictionary = {"[[rung]]",
                    "[ladder]",
                    "[[rung.launch]]",
                    "[[rung.constraint]]",
                    "[rung.params]",
                    "[rung.model]",
                    "id = ",
                    "file = \"../../etc/passwd\"",
                    "file = \"/dev/zero\"",
                    "pow2 = true",
                    "min = ",
                    "max = ",
                    "default = ",
                    "values = [",
                    "grid = ",
                    "block = ",
                    "args = [",
                    "tmap(",
                    "expr = \"",
                    "\"\"\"",
                    "= 9223372036854775807",
                    "= -9223372036854775808",
                    "= 1e999",
                    "{",
                    "}",
                    "=",
                    "\n"};
    t.setup = [] { g_dir = kl::fuzz::scratch_with_copies(kl::kernels_dir(), ".cu"); };
    t.run = [](const std::string& text) {
        std::string path = g_dir + "/ladder.toml";
        kl::fuzz::write_text(path, text);
        exercise(kl::load_ladder(path));
    };
    return kl::fuzz::main_for(t, argc, argv);
}
