// `kladder class merge SUBMISSIONS/ -o CLASS/ --key class.key` (docs/class-mode.md): every file of
// the folder verified (course/class_merge.h), then the class folder written all or nothing
// (report/class_handout.h). Each file not merged is one stderr line naming it and the problem; one
// bad file never stops the merge. Exit 0 when every file merged, 2 when some did not (the class
// folder is written either way), 2 with nothing written when the folders or the key are unusable.
// Nothing outside the two folders and the key is read or written.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/confined_path.h"
#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "cli/commands.h"
#include "course/class_merge.h"
#include "report/class_handout.h"

namespace fs = std::filesystem;

namespace kl::cli {

namespace {

struct MergeOptions {
    std::string dir, out, key;
};

// The class folder may be neither the submissions folder nor inside it, nor hold it.
void check_folders(const MergeOptions& o) {
    std::error_code ec;
    const fs::path in = fs::weakly_canonical(o.dir, ec), out = fs::weakly_canonical(o.out, ec);
    if (path_is_under(in, out) || path_is_under(out, in))
        throw InputError("-o " + o.out + ": the class folder must be outside the submissions folder " + o.dir +
                         " (and not hold it)");
}

int merge(const MergeOptions& o) {
    const ClassKey key = load_class_key(o.key);
    check_folders(o);
    const ClassMerge m = merge_class(o.dir, key, load_datasheets(assets_dir() + "/devices"));
    const std::vector<std::string> written = report::write_class_folder(m, key.id(), o.out, {});
    for (const auto& p : m.problems) std::fprintf(stderr, "kladder: %s\n", printable(p, kMessageChars).c_str());
    int accepted = 0;
    for (const auto& e : m.entries) accepted += !e.refused() && !e.flagged();
    std::printf(
        "%zu submissions merged (%d accepted, %zu refused or flagged), %zu files not merged; %zu files written to %s\n",
        m.entries.size(), accepted, m.entries.size() - size_t(accepted), m.problems.size(), written.size(),
        printable(o.out).c_str());
    return m.problems.empty() ? 0 : static_cast<int>(ExitCode::BadInput);
}

}  // namespace

Action add_class_merge_command(CLI::App& app) {
    auto opt = std::make_shared<MergeOptions>();
    app.add_option("submissions", opt->dir, "the folder of submission files (*.json; nothing else is read)")
        ->required();
    app.add_option("-o,--output", opt->out, "the class folder to write (leaderboards, handout, gradebook)")->required();
    app.add_option("--key", opt->key, "the class key file the submissions were signed with")->required();
    return [opt] { return merge(*opt); };
}

}  // namespace kl::cli
