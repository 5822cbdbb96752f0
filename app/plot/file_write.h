// Writing export files so that a reader never sees half a file.
#pragma once

#include <string>
#include <string_view>

namespace kl::plot {

// The outcome of writing one file. `error` is one readable line naming the path; empty on success.
// `reason` (set by write_file_atomically) is that line without the path ("folder '/x' does not
// exist"), for callers that name the file otherwise (a staging copy written for its final place).
struct WriteResult {
    std::string path;
    std::string error;
    std::string reason{};
    bool ok() const { return error.empty(); }
    explicit operator bool() const { return ok(); }
};

// Writes `bytes` to a temporary file in the destination folder, flushes it to disk and renames
// it over `path` (atomic on POSIX file systems). On any failure the temporary file is removed,
// an existing file at `path` is left untouched, and the error says what failed
// ("cannot write '/x/fig.png': folder '/x' does not exist").
WriteResult write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace kl::plot
