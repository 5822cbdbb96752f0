// All-or-nothing writing of several files (an export's figure plus its results copy, a
// lesson's figures and handout). Each file is written in full to a hidden temporary sibling
// first; commit() then renames them into place, keeping every file it replaces until all
// renames succeeded, and puts them back if one fails. A FileSet that is destroyed without a
// commit removes its temporaries. Nothing it did not create is ever removed.
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace kl {

class FileSet {
  public:
    FileSet() = default;
    FileSet(const FileSet&) = delete;
    FileSet& operator=(const FileSet&) = delete;
    ~FileSet();

    // Writes `bytes` to a temporary file beside `path`. Throws InputError naming `shown_as`
    // (default `path`) when the folder is missing or not writable, when `path` exists and is not
    // a regular file (a folder, a symlink, a FIFO...), or when the write fails (a full disk).
    void stage(const std::string& path, std::string_view bytes, const std::string& shown_as = "");
    // Moves every staged file into place, or none (throws InputError; the old files stay).
    void commit();
    // Removes the temporaries now (as the destructor would) unless committed.
    void discard();

  private:
    struct Entry {
        std::string path, shown, temp, backup;
        bool existed = false, placed = false, backup_is_link = false;
    };
    void rollback();
    std::vector<Entry> entries_;
    bool committed_ = false;
};

// SIGINT, SIGTERM and SIGHUP while exporting: noted instead of ending the process at once, so
// that the export stops at its next file and removes what it staged (see check_interrupted).
class InterruptGuard {
  public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;
};
// Throws kl::Error (exit 2) "interrupted by signal N: nothing was written" after a signal.
void check_interrupted();

// The permissions a plain new file (`full` 0666) or folder (0777) gets: `full` minus the umask.
// A folder made private while it is staged (mkdtemp gives 0700) gets these before it is shown.
mode_t usual_mode(mode_t full);

}  // namespace kl
