#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "base/errors.h"

namespace kl {

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

WriteResult failure(const std::string& path, const std::string& why) {
    return {path, "cannot write " + quoted(path) + ": " + why, why};
}

std::string errno_text(int err) { return std::strerror(err); }

std::string size_text(long long bytes) {
    return bytes % (1LL << 20) == 0 ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

// Permissions a plain new file would get (0666 minus the umask): mkstemp makes 0600 files.
// umask can only be read by setting it, so it is read once (the lesson export writes from a
// thread of its own; a second reader in between would see 0).
mode_t umask_file_mode() {
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

mode_t default_file_mode() {
    static const mode_t mode = umask_file_mode();
    return mode;
}

}  // namespace

WriteResult try_write_file_atomically(const std::string& path, std::string_view bytes) {
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

void write_file_atomically(const std::string& path, std::string_view content) {
    WriteResult r = try_write_file_atomically(path, content);
    if (!r.ok()) throw InputError(r.error);
}

std::string read_file(const std::string& path, long long max_bytes) {
    // Anything that is not a regular file (FIFOs, devices such as /dev/zero, folders), whose
    // reads may block or never end, is refused before it is opened: opening some devices acts.
    // O_NONBLOCK: should a FIFO take the file's place in between, opening it does not wait for a
    // writer, and fstat refuses it.
    struct stat before {};
    if (::stat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode))
        throw InputError("cannot read " + path + ": not a regular file");
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw InputError("cannot read " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw InputError("cannot read " + path + ": not a regular file");
    }
    if (st.st_size > max_bytes) {
        ::close(fd);
        throw InputError("cannot read " + path + ": " + std::to_string(st.st_size) + " bytes is more than the " +
                         size_text(max_bytes) + " limit");
    }
    std::string out;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            ::close(fd);
            throw InputError("cannot read " + path + ": " + std::strerror(e));
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
        if (out.size() > static_cast<size_t>(max_bytes)) {  // the file grew while being read
            ::close(fd);
            throw InputError("cannot read " + path + ": more than the size limit");
        }
    }
    ::close(fd);
    return out;
}

}  // namespace kl
