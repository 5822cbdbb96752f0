// Writing export files so that a reader never sees half a file.
#pragma once

#include <string>
#include <string_view>

namespace kl::plot {

// The outcome of writing one file. `error` is one readable line naming the path; empty on success.
struct WriteResult {
  std::string path;
  std::string error;
  bool ok() const { return error.empty(); }
  explicit operator bool() const { return ok(); }
};

// Writes `bytes` to a temporary file in the destination folder, flushes it to disk and renames
// it over `path` (atomic on POSIX file systems). On any failure the temporary file is removed,
// an existing file at `path` is left untouched, and the error says what failed
// ("cannot write '/x/fig.png': folder '/x' does not exist").
WriteResult write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace kl::plot
