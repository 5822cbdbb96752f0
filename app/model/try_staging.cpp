#include "model/try_staging.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "base/errors.h"
#include "base/paths.h"
#include "model/include_scan.h"

namespace fs = std::filesystem;

namespace kl {

namespace {

bool lexically_inside(const fs::path& p, const fs::path& dir) {
    const fs::path rel = p.lexically_normal().lexically_relative(dir.lexically_normal());
    return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

// The original's owner read/write bits, never more; owner read always (the copy is compiled).
mode_t staged_mode(const std::string& original) {
    struct stat st {};
    if (::stat(original.c_str(), &st) != 0) return 0600;
    return (st.st_mode & 0600) | 0400;
}

// The folders from `inside` (which exists) down to `dir`, each 0700.
void make_private_folders(const fs::path& dir, const fs::path& inside) {
    fs::path at = inside;
    for (const auto& part : dir.lexically_relative(inside)) {
        at /= part;
        if (part != "." && ::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST)
            throw InputError("try: cannot create " + at.string() + ": " + std::strerror(errno));
    }
}

// Staging folders left by runs that ended without removing theirs (a compile or kernel stopped
// by its time limit ends the process at once): "run-PID-XXXXXX" of a process that is gone, and
// the numbered folders of earlier versions, which kept copies of every header beside the file.
void remove_abandoned_staging(const std::string& parent) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(parent, ec)) {
        const std::string name = e.path().filename().string();
        bool abandoned = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
        if (name.rfind("run-", 0) == 0) {
            const long pid = std::strtol(name.c_str() + 4, nullptr, 10);
            abandoned = pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
        }
        std::error_code e2;
        if (abandoned) fs::remove_all(e.path(), e2);
    }
}

}  // namespace

TryStaging::TryStaging(const std::string& file, const std::string& staged_name, const std::string& like_folder) {
    if (staged_name.empty() || staged_name.find('/') != std::string::npos || staged_name[0] == '.')
        throw InputError("try: '" + staged_name + "' is not a plain file name to stage under");
    const std::string parent = cache_dir("try");
    remove_abandoned_staging(parent);
    std::string pattern = parent + "/run-" + std::to_string(::getpid()) + "-XXXXXX";
    if (!::mkdtemp(pattern.data()))  // mode 0700
        throw InputError("try: cannot create a staging folder in " + parent + ": " + std::strerror(errno));
    folder_ = pattern;
    try {
        source_ = folder_ + "/" + staged_name;
        stage_headers(file, like_folder);
    } catch (...) {
        std::error_code ec;
        fs::remove_all(folder_, ec);
        throw;
    }
}

TryStaging::~TryStaging() {
    std::error_code ec;
    fs::remove_all(folder_, ec);
}

// The learner's file is scanned as a rung in its own folder would be, with the like rung's folder
// searched after it (as the staged copy's compile will find them: both are staged beside it).
void TryStaging::stage_headers(const std::string& file, const std::string& like_folder) {
    const std::string own = fs::path(file).parent_path().empty() ? "." : fs::path(file).parent_path().string();
    const std::string common = kernels_dir() + "/common";
    const ScannedSource src =
        scan_source(file, {{common, own, like_folder}, {kernels_dir(), own, like_folder}, cuda_include_dir()});
    std::map<std::string, std::string> staged_as{{file, source_}};  // original path -> staged path
    std::map<std::string, std::string> original_of{{source_, file}};
    for (const IncludedFile& h : src.headers) {  // includers come before what they include
        std::error_code ec;
        if (lexically_inside(h.path, common) || fs::equivalent(fs::path(h.path).parent_path(), common, ec)) continue;
        const auto includer = staged_as.find(h.includer);
        const fs::path base = h.beside_includer && includer != staged_as.end()
                                  ? fs::path(includer->second).parent_path()
                                  : fs::path(folder_);
        const std::string to = (base / h.name).lexically_normal().string();
        const std::string at = h.includer + ":" + std::to_string(h.line) + ": #include \"" + h.name + "\": ";
        if (!lexically_inside(to, folder_))
            throw InputError(at +
                             "kladder try stages the headers a file includes beside it, and this one leads "
                             "out of its folder: copy it beside the file");
        if (auto seen = original_of.find(to); seen != original_of.end()) {
            if (!fs::equivalent(seen->second, h.path, ec))
                throw InputError(at + "both " + h.path + " and " + seen->second + " would be staged as " + h.name);
            continue;
        }
        make_private_folders(fs::path(to).parent_path(), folder_);
        write(to, h.text, h.path);
        staged_as[h.path] = to;
        original_of[to] = h.path;
    }
    write(source_, src.text, file);  // last: once the file is there, all it includes is
}

void TryStaging::write(const std::string& path, const std::string& text, const std::string& original) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, staged_mode(original));
    if (fd < 0) throw InputError("try: cannot stage " + original + " as " + path + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int e = errno;
            ::close(fd);
            throw InputError("try: cannot stage " + original + ": " + std::strerror(e));
        }
        done += static_cast<size_t>(n);
    }
    ::close(fd);
}

}  // namespace kl
