#include "plot/file_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace kl::plot {

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

WriteResult failure(const std::string& path, const std::string& why) {
    return {path, "cannot write " + quoted(path) + ": " + why, why};
}

std::string errno_text(int err) { return std::strerror(err); }

// Permissions a plain new file would get (0666 minus the umask): mkstemp makes 0600 files.
mode_t default_file_mode() {
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

}  // namespace

WriteResult write_file_atomically(const std::string& path, std::string_view bytes) {
    namespace fs = std::filesystem;
    if (path.empty()) return {path, "cannot write a file with an empty path", "the path is empty"};
    fs::path target(path);
    if (!target.has_filename() || target.filename() == "." || target.filename() == "..")
        return failure(path, "the path names a folder, not a file");
    fs::path folder = target.parent_path();
    if (folder.empty()) folder = ".";
    std::error_code ec;
    if (!fs::exists(folder, ec)) return failure(path, "folder " + quoted(folder.string()) + " does not exist");
    if (!fs::is_directory(folder, ec)) return failure(path, quoted(folder.string()) + " is not a folder");
    if (fs::is_directory(target, ec)) return failure(path, "a folder of that name exists");
    // Never rename over a device, FIFO or socket (`--screenshot /dev/full` run as root would
    // replace the device node itself).
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return failure(path, "it is not a regular file; not replaced");

    std::string pattern = (folder / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    std::vector<char> temp_name(pattern.begin(), pattern.end());
    temp_name.push_back('\0');
    int fd = mkstemp(temp_name.data());
    if (fd < 0) return failure(path, "cannot create a file in " + quoted(folder.string()) + ": " + errno_text(errno));
    std::string temp(temp_name.data());
    auto abandon = [&](const std::string& why) {
        int saved = errno;
        if (fd >= 0) close(fd);
        unlink(temp.c_str());
        errno = saved;
        return failure(path, why);
    };

    const char* data = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
        ssize_t n = write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            return abandon("write failed: " + errno_text(errno));
        }
        data += n;
        left -= static_cast<size_t>(n);
    }
    if (fchmod(fd, default_file_mode()) != 0) return abandon("cannot set permissions: " + errno_text(errno));
    if (fsync(fd) != 0) return abandon("flush to disk failed: " + errno_text(errno));
    int closing = fd;
    fd = -1;
    if (close(closing) != 0) return abandon("close failed: " + errno_text(errno));
    if (rename(temp.c_str(), path.c_str()) != 0)
        return abandon("rename from temporary file failed: " + errno_text(errno));
    return {path, ""};
}

}  // namespace kl::plot
