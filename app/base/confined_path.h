// Paths named inside a lesson or ladder manifest (a step's `text`, a rung's `file`) must stay
// inside that manifest's folder: a shared lesson must not be able to embed ~/.ssh/id_rsa in a
// handout, or make NVRTC read /dev/zero. See docs/security.md.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <string>

namespace kl {

// Resolves `rel` against `base_dir`. Refused (returns "" and sets *why): an empty or absolute
// path, a `..` component, a path that does not exist, a symlink loop, anything whose real path
// leaves the real `base_dir`, and anything that is not a regular file (folders, FIFOs, devices,
// sockets). On success returns base_dir/rel, lexically normalised.
std::string confined_file(const std::string& base_dir, const std::string& rel, std::string* why);

// True when `p` lies in `root`, component by component (both real, normalised paths).
bool path_is_under(const std::filesystem::path& root, const std::filesystem::path& p);

// True when the real path of `p` (links resolved as far as it exists) lies inside the real `tree`:
// the check the cache and the workspace make against the data root and the source tree.
bool real_path_is_inside(const std::filesystem::path& p, const std::filesystem::path& tree);

// What a file of this st_mode is, for a refusal: "a FIFO", "a device file", "a folder"...
std::string file_kind_name(mode_t mode);

}  // namespace kl
