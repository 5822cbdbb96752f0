#include "gui/file_watch.h"

#include <sys/stat.h>

namespace kl::gui {

FileStamp stamp_of(const std::string& path) {
    FileStamp s;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return s;
    s.exists = true;
    s.mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    s.size = (long long)st.st_size;
    return s;
}

void FileWatch::watch(const std::string& path) {
    path_ = path;
    seen_ = stamp_of(path);
    last_look_ = Clock::now();
}

void FileWatch::accept() {
    if (!path_.empty()) seen_ = stamp_of(path_);
}

bool FileWatch::changed(Clock::time_point now, bool force) {
    if (path_.empty() || (!force && now - last_look_ < interval_)) return false;
    last_look_ = now;
    FileStamp s = stamp_of(path_);
    if (s == seen_) return false;
    seen_ = s;
    return true;
}

bool FileWatch::differs(Clock::time_point now) {
    if (path_.empty() || now - last_peek_ < interval_) return false;
    last_peek_ = now;
    return stamp_of(path_) != seen_;
}

}  // namespace kl::gui
