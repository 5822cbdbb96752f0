#include "base/confined_path.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kl {

namespace fs = std::filesystem;

std::string confined_file(const std::string& base_dir, const std::string& rel, std::string* why) {
    auto refuse = [&](const std::string& w) {
        *why = w;
        return std::string();
    };
    if (rel.empty()) return refuse("the path is empty");
    if (rel.find('\0') != std::string::npos) return refuse("the path holds a NUL character");
    fs::path r(rel);
    if (r.is_absolute()) return refuse("'" + rel + "' is absolute: give a path inside " + base_dir);
    for (const auto& part : r)
        if (part == "..") return refuse("'" + rel + "' leaves the folder " + base_dir + " ('..' is not allowed)");
    fs::path joined = (fs::path(base_dir.empty() ? "." : base_dir) / r).lexically_normal();
    // stat (following symlinks) says what the path really is; ELOOP and ENOENT come from here too.
    struct stat st {};
    if (::stat(joined.c_str(), &st) != 0) {
        int e = errno;
        if (e == ENOENT) return refuse("no such file: " + joined.string());
        return refuse(joined.string() + ": " + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode))
        return refuse(joined.string() + " is " + file_kind_name(st.st_mode) + ", not a regular file");
    std::error_code ec;
    fs::path real = fs::canonical(joined, ec);
    if (ec) return refuse(joined.string() + ": " + ec.message());
    fs::path real_base = fs::canonical(base_dir.empty() ? "." : base_dir, ec);
    if (ec) return refuse(base_dir + ": " + ec.message());
    if (!path_is_under(real_base, real))
        return refuse("'" + rel + "' is a link to " + real.string() + ", outside the folder " + base_dir);
    return joined.string();
}

bool path_is_under(const fs::path& root, const fs::path& p) {
    auto r = root.begin(), q = p.begin();
    for (; r != root.end(); ++r, ++q)
        if (q == p.end() || *q != *r) return false;
    return true;
}

std::string file_kind_name(mode_t m) {
    if (S_ISDIR(m)) return "a folder";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m) || S_ISBLK(m)) return "a device file";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

bool real_path_is_inside(const fs::path& p, const fs::path& tree) {
    std::error_code ec;
    const fs::path a = fs::weakly_canonical(p, ec);
    const fs::path b = fs::weakly_canonical(tree, ec);
    if (a.empty() || b.empty()) return false;
    const fs::path rel = a.lexically_relative(b);
    return !rel.empty() && *rel.begin() != "..";
}

}  // namespace kl
