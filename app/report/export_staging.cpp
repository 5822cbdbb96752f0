#include "report/export_staging.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/errors.h"
#include "report/figure_files.h"

namespace kl::report {

namespace fs = std::filesystem;

Staging::Staging(const std::string& out_dir) : out_dir_(out_dir) {
    if (out_dir.empty()) throw InputError("-o: the output folder name is empty");
    std::error_code ec;
    fs::file_status st = fs::symlink_status(out_dir, ec);
    if (fs::exists(st)) {
        if (!fs::is_directory(fs::status(out_dir, ec)))
            throw InputError("cannot write into '" + out_dir + "': it is not a folder");
        check_writable_folder(out_dir, out_dir);
        return;
    }
    fs::path target = fs::path(out_dir).lexically_normal();
    if (!target.has_filename()) target = target.parent_path();
    fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    check_writable_folder(parent.string(), out_dir);
    std::string pattern = (parent / ("." + target.filename().string() + ".kladder-XXXXXX")).string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (!mkdtemp(name.data()))
        throw InputError("cannot write into '" + parent.string() + "': cannot create a staging folder");
    new_dir_ = name.data();
    final_dir_ = target.string();
}

Staging::~Staging() {
    files_.discard();
    if (new_dir_.empty() || moved_) return;
    // The FileSet removed its temporaries already; before commit the folder holds only
    // what this export wrote, after a failed commit the files it placed there.
    for (const auto& n : names_) ::unlink((fs::path(new_dir_) / n).c_str());
    ::rmdir(new_dir_.c_str());
}

void Staging::write(const std::string& name, const std::string& bytes) {
    std::string dir = new_dir_.empty() ? out_dir_ : new_dir_;
    files_.stage((fs::path(dir) / name).string(), bytes, (fs::path(out_dir_) / name).string());
    names_.push_back(name);
}

void Staging::commit() {
    files_.commit();
    if (new_dir_.empty()) return;
    // mkdtemp made the staging folder private (0700); the lesson folder gets the mode any new
    // folder would, so that the people it is shared with can open it.
    if (::chmod(new_dir_.c_str(), usual_mode(0777)) != 0)
        throw InputError("cannot create folder '" + out_dir_ + "': " + std::strerror(errno) + " (nothing was written)");
    if (::rename(new_dir_.c_str(), final_dir_.c_str()) != 0)
        throw InputError("cannot create folder '" + out_dir_ + "': " + std::strerror(errno) + " (nothing was written)");
    moved_ = true;
}

}  // namespace kl::report
