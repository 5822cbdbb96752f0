#include "base/paths.h"

#include "base/confined_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "base/errors.h"

namespace fs = std::filesystem;

namespace kl {

namespace {
std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::string executable_dir() {
    std::error_code ec;
    fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.parent_path().string();
}

std::string home_sub(const char* xdg, const char* fallback) {
    std::string base = env_or_empty(xdg);
    if (base.empty()) {
        std::string home = env_or_empty("HOME");
        base = (home.empty() ? std::string("/tmp") : home) + "/" + fallback;
    }
    return base + "/kernel-ladder";
}

// The cache holds copies of the learner's files and compiled code: never inside the data root
// or the source tree, which travel as shared trees. The program's own build folder, where it lies
// inside the source tree, is not part of it (the tests keep their caches there).
void refuse_cache_in_data_tree(const std::string& cache) {
    const std::string build = KL_BINARY_DIR;
    for (const std::string& tree : {data_root(), std::string(KL_SOURCE_DIR)}) {
        if (!real_path_is_inside(cache, tree)) continue;
        if (real_path_is_inside(build, tree) && real_path_is_inside(cache, build)) continue;
        throw InputError("cache folder " + cache + " is inside the data tree " + tree +
                         ": set XDG_CACHE_HOME to a folder outside it");
    }
}

// mkdir -p, each new folder 0700 (the cache is private: it holds copies of the learner's code).
void make_private_folders(const fs::path& dir) {
    fs::path at;
    for (const auto& part : dir) {
        at /= part;
        if (::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST) return;
    }
}
}  // namespace

std::string data_root() {
    static const std::string root = [] {
        std::string env = env_or_empty("KLADDER_ROOT");
        if (!env.empty()) return env;
        for (fs::path p = executable_dir(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
            std::error_code ec;
            if (fs::is_directory(p / "kernels", ec) && fs::is_directory(p / "lessons", ec)) return p.string();
        }
        return std::string(KL_SOURCE_DIR);
    }();
    return root;
}

std::string kernels_dir() { return data_root() + "/kernels"; }
std::string lessons_dir() { return data_root() + "/lessons"; }
std::string assets_dir() { return data_root() + "/assets"; }

std::string cache_dir(const std::string& sub) {
    std::string d = home_sub("XDG_CACHE_HOME", ".cache");
    refuse_cache_in_data_tree(d);
    if (!sub.empty()) d += "/" + sub;
    make_private_folders(d);
    return d;
}

std::string config_dir() {
    std::string d = home_sub("XDG_CONFIG_HOME", ".config");
    std::error_code ec;
    fs::create_directories(d, ec);
    return d;
}

std::string data_dir() { return home_sub("XDG_DATA_HOME", ".local/share"); }

std::string cuda_include_dir() {
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        std::string v = env_or_empty(var);
        if (!v.empty() && fs::exists(v + "/include/cuda_fp16.h")) return v + "/include";
    }
    if (fs::exists(std::string(KL_CUDA_INCLUDE_DIR) + "/cuda_fp16.h")) return KL_CUDA_INCLUDE_DIR;
    return "/usr/local/cuda/include";
}

}  // namespace kl
