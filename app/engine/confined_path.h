// Paths named inside a lesson or ladder manifest (a step's `text`, a rung's `file`) must stay
// inside that manifest's folder: a shared lesson must not be able to embed ~/.ssh/id_rsa in a
// handout, or make NVRTC read /dev/zero. See docs/security.md.
#pragma once
#include <string>

namespace kl {

// Resolves `rel` against `base_dir`. Refused (returns "" and sets *why): an empty or absolute
// path, a `..` component, a path that does not exist, a symlink loop, anything whose real path
// leaves the real `base_dir`, and anything that is not a regular file (folders, FIFOs, devices,
// sockets). On success returns base_dir/rel, lexically normalised.
std::string confined_file(const std::string& base_dir, const std::string& rel, std::string* why);

}  // namespace kl
