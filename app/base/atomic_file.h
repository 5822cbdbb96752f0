// The one atomic file writer (settings, caches, results, calibration, exported figures, the
// window's screenshots): readers see either the old content or the whole new content, never a
// torn file. The bytes go to a hidden temporary file in the same folder, are flushed to disk,
// get the permissions a plain new file would (0666 minus the umask) and are renamed over the
// target. On any failure the temporary file is removed and an existing file is left as it was.
// No CUDA here: the plot library links it (kl_atomic_file).
#pragma once
#include <string>
#include <string_view>

namespace kl {

// The outcome of writing one file. `error` is one readable line naming the path; empty on
// success. `reason` is that line without the path ("folder '/x' does not exist"), for callers
// that name the file otherwise.
struct WriteResult {
    std::string path;
    std::string error;
    std::string reason{};
    bool ok() const { return error.empty(); }
    explicit operator bool() const { return ok(); }
};

// Never throws: "cannot write '/x/fig.png': folder '/x' does not exist". Refuses to replace a
// folder, a device, a FIFO or a socket.
WriteResult try_write_file_atomically(const std::string& path, std::string_view bytes);
// The same, throwing InputError with that line.
void write_file_atomically(const std::string& path, std::string_view content);

// Reads a whole regular file (never a FIFO, device or folder: those could block or never end)
// of at most max_bytes. Throws InputError naming the path.
constexpr long long kMaxReadBytes = 256LL << 20;
std::string read_file(const std::string& path, long long max_bytes = kMaxReadBytes);

}  // namespace kl
