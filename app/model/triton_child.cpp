#include "model/triton_child.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/errors.h"
#include "kl_triton_helper_source.h"  // generated: kTritonHelperSource, kTritonHelperSourceSize

namespace fs = std::filesystem;

namespace kl {

namespace {
constexpr size_t kMaxHelperOutput = size_t(64) << 20;  // a large kernel's cubin + PTX + TTGIR is a few MiB
}  // namespace

const std::string& triton_helper_source() {
    static const std::string text(kTritonHelperSource, kTritonHelperSourceSize);
    return text;
}

PrivateFolder::PrivateFolder() {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / "kladder-triton-XXXXXX").string();
    if (!mkdtemp(pattern.data()))  // mode 0700
        throw InputError("cannot make a private folder for the Triton compile in " + base.string() + ": " +
                         std::strerror(errno));
    path_ = fs::absolute(pattern, ec).string();  // the child runs inside it: a relative path would move
    if (ec) path_ = pattern;
}

PrivateFolder::~PrivateFolder() {
    std::error_code ec;
    for (int attempt = 0; attempt < 8; ++attempt) {
        fs::remove_all(path_, ec);  // removes links, never what they point to
        if (!ec) return;
        // A folder the child made unreadable: ours to open again, one level deeper each attempt.
        fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
        const auto skip = fs::directory_options::skip_permission_denied;
        for (auto it = fs::recursive_directory_iterator(path_, skip, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            if (!it->is_symlink(ec) && it->is_directory(ec))
                fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
}

std::vector<std::string> triton_helper_environment(const std::string& python, const std::string& folder) {
    const std::string own = fs::path(python).parent_path().string();
    return {"PATH=" + (own.empty() ? "" : own + ":") + "/usr/bin:/bin", "HOME=" + folder, "TMPDIR=" + folder,
            "TRITON_CACHE_DIR=" + folder + "/triton-cache"};
}

ExecResult run_triton_helper(const std::string& python, const std::vector<std::string>& args, const std::string& input,
                             const std::string& folder, double timeout_s) {
    std::vector<std::string> argv = {python, "-I", "-B", "-c", triton_helper_source()};
    argv.insert(argv.end(), args.begin(), args.end());
    ExecOptions o;
    o.replace_environment = true;
    o.environment = triton_helper_environment(python, folder);
    o.working_folder = folder;
    o.max_output = kMaxHelperOutput;
    o.own_files_only = true;
    return run_program(argv, input, timeout_s, o);
}

}  // namespace kl
