// The learner's workspace: rungs the learner writes, kept outside the repository in
// $XDG_DATA_HOME/kernel-ladder/workspace/<ladder>/ (or ~/.local/share/...), one folder per
// ladder holding manifest.toml (the learner's [[rung]] entries, docs/formats.md section 5) and
// their .cu files. A learner's rung is a rung like the others (same inputs, reference,
// tolerances, timing), marked Rung::learner with Rung::forked_from, numbered M1, M2, ... after
// the ladder's own rungs. No CUDA.
//
// API (stable; the window's editor and "Make it mine" build on it):
//   workspace_root()                      $XDG_DATA_HOME/kernel-ladder/workspace; throws
//                                         InputError when that lies inside the repository tree
//   workspace_ladder_dir(root, ladder)    root/<ladder>
//   workspace_manifest_path(root, ladder) root/<ladder>/manifest.toml
//   fork_rung(ladder, rung, root[, starter])
//       copies the rung's .cu (or `starter`, an exercise's starter file) to
//       root/<ladder>/mine_<rung>.cu (mine_<rung>_2.cu, ... when taken) and appends its manifest
//       entry (id mine_<rung>, title "mine: <title>", forked_from = <rung>); the ladder folder's
//       own headers (*.cuh, *.h) are copied beside it so that its #includes still resolve. Both
//       files are written all-or-nothing; never anything inside the repository tree.
//   list_learner_rungs(ladder, root)      the learner's rungs of that ladder (throws InputError)
//   merge_learner_rungs(ladder, root, &error)
//       appends them to a loaded ladder (rungs already there are kept: merge into a freshly
//       loaded ladder to see removals); a broken workspace leaves the ladder as it was and
//       says why in one line ("<file>:<line>: <field>: <problem>")
//   append_learner_rungs(ladder, manifest) the same from one workspace manifest, throwing
//
// The workspace is untrusted input like any manifest: the same validation, and each rung's
// `file` confined to its workspace ladder folder (confined_path.h), which is the only place a
// learner's source is ever read from.
#pragma once
#include <string>
#include <vector>

#include "model/manifest.h"

namespace kl {

std::string workspace_root();
// Throws InputError when `root` is (or would be) inside the repository tree (the data root or
// the source folder the program was built from).
void check_outside_repository(const std::string& root);
std::string workspace_ladder_dir(const std::string& root, const std::string& ladder_id);
std::string workspace_manifest_path(const std::string& root, const std::string& ladder_id);

struct ForkedRung {
    std::string id, title, source_path, manifest_path;
};
ForkedRung fork_rung(const Ladder& ladder, const std::string& rung_id, const std::string& root,
                     const std::string& starter_source = "");

std::vector<Rung> list_learner_rungs(const Ladder& ladder, const std::string& root);
void merge_learner_rungs(Ladder& ladder, const std::string& root, std::string* error);
void append_learner_rungs(Ladder& ladder, const std::string& workspace_manifest);

}  // namespace kl
