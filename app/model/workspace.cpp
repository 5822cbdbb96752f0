#include "model/workspace.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "base/atomic_file.h"
#include "base/confined_path.h"
#include "base/errors.h"
#include "base/file_set.h"
#include "base/paths.h"
#include "base/toml_reader.h"
#include "model/manifest_load.h"
#include "model/manifest_read.h"
#include "model/operation.h"

namespace fs = std::filesystem;

namespace kl {

namespace {

std::string unique_id(const Ladder& L, const std::string& base, const std::string& dir) {
    for (int k = 1; k < 1000; ++k) {
        std::string id = k == 1 ? base : base + "_" + std::to_string(k);
        std::error_code ec;
        if (!L.find_rung(id) && !fs::exists(fs::path(dir) / (id + ".cu"), ec)) return id;
    }
    throw InputError(dir + ": too many forks of " + base);
}

// The rung's own table of the ladder's manifest, as written there (params, launches, model).
toml::table rung_table(const Ladder& L, const std::string& rung_id) {
    TomlReader r(L.manifest_path);
    if (const toml::array* rungs = r.root()["rung"].as_array())
        for (const auto& node : *rungs)
            if (const toml::table* t = node.as_table())
                if (t->get("id") && t->get("id")->value<std::string>() == rung_id) return *t;
    throw InputError(L.manifest_path + ": rung '" + rung_id + "' not found");
}

}  // namespace

std::string workspace_root() {
    const std::string root = data_dir() + "/workspace";
    check_outside_repository(root);
    return root;
}

void check_outside_repository(const std::string& root) {
    for (const std::string& tree : {data_root(), std::string(KL_SOURCE_DIR)})
        if (real_path_is_inside(root, tree))
            throw InputError("workspace " + root + " is inside the repository tree " + tree +
                             ": set XDG_DATA_HOME to a folder outside it");
}

std::string workspace_ladder_dir(const std::string& root, const std::string& ladder_id) {
    return root + "/" + ladder_id;
}

std::string workspace_manifest_path(const std::string& root, const std::string& ladder_id) {
    return workspace_ladder_dir(root, ladder_id) + "/manifest.toml";
}

ForkedRung fork_rung(const Ladder& ladder, const std::string& rung_id, const std::string& root,
                     const std::string& starter_source) {
    check_outside_repository(root);
    // The ladder with the learner's rungs as the workspace has them now (a new id must be new
    // among them too); a broken workspace manifest is refused here, before anything is written.
    Ladder L = ladder;
    L.rungs.erase(std::remove_if(L.rungs.begin(), L.rungs.end(), [](const Rung& r) { return r.learner; }),
                  L.rungs.end());
    std::error_code ec;
    if (fs::exists(workspace_manifest_path(root, L.id), ec))
        append_learner_rungs(L, workspace_manifest_path(root, L.id));
    const Rung* origin = L.find_rung(rung_id);
    if (!origin || origin->learner) throw InputError("ladder " + L.id + " has no rung '" + rung_id + "' to fork");
    if (origin->source_path.empty())
        throw InputError(L.id + "/" + rung_id + " calls a library routine: it has no source to fork");
    const std::string dir = workspace_ladder_dir(root, L.id);
    fs::create_directories(dir, ec);
    if (ec) throw InputError("cannot create the workspace folder " + dir + ": " + ec.message());

    ForkedRung out;
    out.id = unique_id(L, "mine_" + rung_id, dir);
    out.title = "mine: " + origin->title;
    out.source_path = dir + "/" + out.id + ".cu";
    out.manifest_path = workspace_manifest_path(root, L.id);

    toml::table entry = rung_table(L, rung_id);
    entry.erase("reference");
    entry.insert_or_assign("id", out.id);
    entry.insert_or_assign("title", out.title);
    entry.insert_or_assign("file", out.id + ".cu");
    entry.insert_or_assign("forked_from", rung_id);
    toml::table doc;
    if (fs::exists(out.manifest_path, ec)) doc = TomlReader(out.manifest_path).root();
    doc.insert_or_assign("workspace", toml::table{{"ladder", L.id}});
    if (!doc.get("rung")) doc.insert("rung", toml::array{});
    doc["rung"].as_array()->push_back(std::move(entry));
    std::ostringstream text;
    text << "# The learner's rungs of ladder " << L.id << " (docs/formats.md, section 5), read like\n"
         << "# kernels/" << L.id << "/ladder.toml. Written by Kernel Ladder when a rung is forked.\n\n"
         << doc << "\n";

    FileSet files;
    files.stage(out.source_path, read_file(starter_source.empty() ? origin->source_path : starter_source));
    files.stage(out.manifest_path, text.str());
    for (const auto& e : fs::directory_iterator(L.dir, ec)) {
        const std::string ext = e.path().extension().string();
        const fs::path copy = fs::path(dir) / e.path().filename();
        std::error_code e2;
        if ((ext == ".cuh" || ext == ".h") && e.is_regular_file(e2) && !fs::exists(copy, e2))
            files.stage(copy.string(), read_file(e.path().string()));
    }
    files.commit();
    return out;
}

void append_learner_rungs(Ladder& L, const std::string& workspace_manifest) {
    TomlReader r(workspace_manifest);
    const toml::table& root = r.root();
    r.allow_only(root, "", {"workspace", "rung"});
    const toml::table* wt = root.get("workspace") ? root.get("workspace")->as_table() : nullptr;
    if (!wt) r.fail(1, "workspace", "missing [workspace] table");
    r.allow_only(*wt, "workspace", {"ladder"});
    if (std::string id = r.string(*wt, "ladder", "workspace"); id != L.id)
        r.fail(line_of(*wt), "workspace.ladder", "'" + id + "' is not this folder's ladder '" + L.id + "'");
    const toml::node* rn = root.get("rung");
    if (!rn) return;
    const toml::array* rungs = rn->as_array();
    if (!rungs) r.fail(line_of(*rn), "rung", "expected [[rung]] entries");
    const std::string dir = fs::path(workspace_manifest).parent_path().string();
    int mine = 0;
    for (const auto& rung : L.rungs) mine += rung.learner;
    for (size_t i = 0; i < rungs->size(); ++i) {
        std::string field = "rung[" + std::to_string(i) + "]";
        const toml::table* t = rungs->get(i)->as_table();
        if (!t) r.fail(line_of(*rungs->get(i)), field, "expected a table");
        Rung rung = detail::read_learner_rung(r, *t, field, dir);
        field = "rung '" + rung.id + "'";
        if (L.find_rung(rung.id)) r.fail(rung.line, field + ".id", "the ladder already has a rung '" + rung.id + "'");
        if (rung.file.empty()) r.fail(rung.line, field + ".file", "missing: a learner's rung is its own .cu file");
        const Rung* origin = L.find_rung(rung.forked_from);
        if (!origin || origin->learner)
            r.fail(line_of(*t->get("forked_from")), field + ".forked_from",
                   "ladder " + L.id + " has no rung '" + rung.forked_from + "'");
        if (rung.operation.empty()) rung.operation = origin->operation;
        const Operation* op = find_operation(rung.operation);
        if (!op) r.fail(rung.line, field + ".operation", "unknown operation '" + rung.operation + "'");
        for (const auto& axis : op->size_axes())
            if (std::none_of(L.default_sizes.begin(), L.default_sizes.end(),
                             [&](const auto& s) { return s.first == axis.name; }))
                r.fail(rung.line, field + ".operation",
                       "operation " + rung.operation + " needs size axis '" + axis.name + "' of the ladder");
        if (rung.dtypes.empty()) rung.dtypes = origin->dtypes;
        for (DType d : rung.dtypes)
            if (std::find(L.dtypes.begin(), L.dtypes.end(), d) == L.dtypes.end())
                r.fail(rung.line, field + ".dtypes", to_string(d) + " is not one of the ladder's dtypes");
        detail::check_rung_names(r, rung, *op, field);
        // Sliders in the order of the rung it came from (the workspace file is written by toml++,
        // whose tables are sorted by name).
        auto rank = [&](const ParamSpec& p) {
            for (size_t k = 0; k < origin->params.size(); ++k)
                if (origin->params[k].name == p.name) return k;
            return origin->params.size();
        };
        std::stable_sort(rung.params.begin(), rung.params.end(),
                         [&](const ParamSpec& a, const ParamSpec& b) { return rank(a) < rank(b); });
        rung.index = static_cast<int>(L.rungs.size());
        rung.number = "M" + std::to_string(++mine);
        L.rungs.push_back(std::move(rung));
    }
}

std::vector<Rung> list_learner_rungs(const Ladder& ladder, const std::string& root) {
    Ladder L = ladder;
    L.rungs.erase(std::remove_if(L.rungs.begin(), L.rungs.end(), [](const Rung& r) { return r.learner; }),
                  L.rungs.end());
    const size_t own = L.rungs.size();
    const std::string m = workspace_manifest_path(root, L.id);
    std::error_code ec;
    if (fs::exists(m, ec)) append_learner_rungs(L, m);
    return std::vector<Rung>(L.rungs.begin() + static_cast<std::ptrdiff_t>(own), L.rungs.end());
}

// The learner's rungs go after the ladder's last teaching rung and before the references that
// follow it (the PyTorch peers), so that the strip shows "mine" beside the rungs it was forked from; every
// rung's position (Rung::index: its colour, its place on a plot's axis) follows the new order.
void merge_learner_rungs(Ladder& ladder, const std::string& root, std::string* error) {
    try {
        for (Rung& r : list_learner_rungs(ladder, root)) {
            if (ladder.find_rung(r.id)) continue;
            // After the last rung that is not a reference: references listed first stay first.
            auto last =
                std::find_if(ladder.rungs.rbegin(), ladder.rungs.rend(), [](const Rung& x) { return !x.reference; });
            ladder.rungs.insert(last.base(), std::move(r));
        }
        for (size_t i = 0; i < ladder.rungs.size(); ++i) ladder.rungs[i].index = static_cast<int>(i);
    } catch (const Error& e) {
        if (error) *error = e.what();
    }
}

}  // namespace kl
