// Notices that a file changed on disk: the learner saved it in their own editor, or the window
// saved it. Polled (modification time and size, at most once per `interval`), not inotify: one
// file, checked once a second, costs nothing, and polling also sees a file replaced by a rename
// (editors and base/atomic_file write that way), which an inotify watch on the old inode misses.
#pragma once
#include <chrono>
#include <string>

namespace kl::gui {

struct FileStamp {
    bool exists = false;
    long long mtime_ns = 0, size = 0;
    bool operator==(const FileStamp& o) const { return exists == o.exists && mtime_ns == o.mtime_ns && size == o.size; }
    bool operator!=(const FileStamp& o) const { return !(*this == o); }
};
FileStamp stamp_of(const std::string& path);

class FileWatch {
  public:
    using Clock = std::chrono::steady_clock;
    explicit FileWatch(Clock::duration interval = std::chrono::seconds(1)) : interval_(interval) {}
    // Starts watching `path` as it is now (no change reported for its current state).
    void watch(const std::string& path);
    // Takes the file's current state as seen (after the window wrote it itself).
    void accept();
    const std::string& path() const { return path_; }
    // True once per change, when the file's stamp differs from the last one seen. Looks at the
    // disk only when `interval` has passed since the last look (or `force`).
    bool changed(Clock::time_point now, bool force = false);
    // Whether changed() would report a change, without taking it as seen (an idle window asks
    // this between frames, at most once per `interval`, to know whether to draw one).
    bool differs(Clock::time_point now);

  private:
    std::string path_;
    FileStamp seen_;
    Clock::duration interval_;
    Clock::time_point last_look_{}, last_peek_{};
};

}  // namespace kl::gui
