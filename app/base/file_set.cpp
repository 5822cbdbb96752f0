#include "base/file_set.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "base/errors.h"

namespace kl {

namespace fs = std::filesystem;

namespace {

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

volatile std::sig_atomic_t g_signal = 0;
struct sigaction g_old[3];
const int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void note_signal(int sig) { g_signal = sig; }

}  // namespace

FileSet::~FileSet() { discard(); }

void FileSet::discard() {
    if (committed_) return;
    for (const auto& e : entries_) ::unlink(e.temp.c_str());
    entries_.clear();
}

void FileSet::stage(const std::string& path, std::string_view bytes, const std::string& shown_as) {
    check_interrupted();
    std::string shown = shown_as.empty() ? path : shown_as;
    auto fail = [&](const std::string& why) { throw InputError("cannot write " + in_quotes(shown) + ": " + why); };
    if (path.empty()) throw InputError("cannot write a file with an empty path");
    fs::path target(path);
    if (!target.has_filename() || target.filename() == "." || target.filename() == "..")
        fail("the path names a folder, not a file");
    for (const auto& e : entries_)
        if (e.path == path) fail("written twice in one export");
    fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0) fail("folder " + in_quotes(folder.string()) + " does not exist");
    if (!S_ISDIR(st.st_mode)) fail(in_quotes(folder.string()) + " is not a folder");
    Entry e;
    e.path = path;
    e.shown = shown;
    if (::lstat(path.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode)) fail("it is a symbolic link; not replaced");
        if (!S_ISREG(st.st_mode)) fail("something other than a regular file has that name; not replaced");
        e.existed = true;
    }
    std::string pattern = (folder / ("." + target.filename().string() + ".kladder-XXXXXX")).string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    int fd = mkstemp(name.data());
    if (fd < 0) fail("cannot create a file in " + in_quotes(folder.string()) + ": " + std::strerror(errno));
    e.temp = name.data();
    entries_.push_back(e);  // from here the destructor removes the temporary
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int err = n < 0 ? errno : ENOSPC;
            ::close(fd);
            fail(std::strerror(err));
        }
        done += static_cast<size_t>(n);
    }
    ::fchmod(fd, usual_mode(0666));
    if (::fsync(fd) != 0) {
        int err = errno;
        ::close(fd);
        fail(std::strerror(err));
    }
    if (::close(fd) != 0) fail(std::strerror(errno));
}

void FileSet::commit() {
    check_interrupted();
    // 1. Keep what is there: a hard link (or, where links are not supported, the file itself
    //    moved aside) under a hidden name, so that a failed rename below can put it back.
    for (auto& e : entries_) {
        struct stat st {};
        bool exists_now = ::lstat(e.path.c_str(), &st) == 0;
        if (exists_now && !S_ISREG(st.st_mode)) {  // it changed since stage(): never replace that
            std::string shown = e.shown;           // rollback() drops the entries
            rollback();
            throw InputError("cannot write " + in_quotes(shown) +
                             ": something other than a regular file has that name; not replaced (nothing was written)");
        }
        e.existed = exists_now;
        if (!e.existed) continue;
        std::string backup = e.temp + ".old";
        e.backup_is_link = ::link(e.path.c_str(), backup.c_str()) == 0;
        if (!e.backup_is_link && ::rename(e.path.c_str(), backup.c_str()) != 0) {
            int err = errno;
            std::string shown = e.shown;
            rollback();
            throw InputError("cannot replace " + in_quotes(shown) + ": " + std::strerror(err) +
                             " (nothing was written)");
        }
        e.backup = backup;
    }
    // 2. Rename every new file into place.
    for (auto& e : entries_) {
        if (::rename(e.temp.c_str(), e.path.c_str()) != 0) {
            int err = errno;
            std::string shown = e.shown;
            rollback();
            throw InputError("cannot write " + in_quotes(shown) + ": " + std::strerror(err) +
                             " (nothing was written; earlier files are as they were)");
        }
        e.placed = true;
    }
    committed_ = true;
    for (const auto& e : entries_)
        if (!e.backup.empty()) ::unlink(e.backup.c_str());
}

void FileSet::rollback() {
    for (auto& e : entries_) {
        if (e.placed && e.backup.empty()) ::unlink(e.path.c_str());  // new here: ours to remove
        // A link beside an untouched original is just dropped (rename between two links of one
        // file does nothing); otherwise the backup goes back to its name.
        if (!e.backup.empty() && !e.placed && e.backup_is_link)
            ::unlink(e.backup.c_str());
        else if (!e.backup.empty())
            ::rename(e.backup.c_str(), e.path.c_str());
        if (!e.placed) ::unlink(e.temp.c_str());
        e.placed = false;
        e.backup.clear();
    }
    entries_.clear();
}

InterruptGuard::InterruptGuard() {
    g_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = note_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) {
        sigaction(kSignals[i], nullptr, &g_old[i]);
        // A signal ignored on purpose (nohup, a background job's SIGINT) stays ignored.
        if (g_old[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &sa, nullptr);
    }
}

InterruptGuard::~InterruptGuard() {
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_old[i], nullptr);
}

mode_t usual_mode(mode_t full) {
    mode_t mask = umask(0);
    umask(mask);
    return full & ~mask;
}

void check_interrupted() {
    if (g_signal)
        throw Error(ExitCode::BadInput, "interrupted by signal " + std::to_string(g_signal) + ": nothing was written");
}

}  // namespace kl
