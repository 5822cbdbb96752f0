// Shared pieces of the fuzz targets: a scratch folder that holds the files a mutated manifest
// or lesson refers to (so that inputs get past the file checks into the deeper validation).
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kl::fuzz {

// A fresh folder under $TMPDIR, removed at exit; `ext` files of every folder under `from`
// are copied into it flat (rung .cu files, lesson .md files).
inline std::string scratch_with_copies(const std::string& from, const std::string& ext) {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / "kl-fuzz-XXXXXX").string();
    std::string dir = mkdtemp(tmpl.data());
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(from, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ext)
            fs::copy_file(it->path(), fs::path(dir) / it->path().filename(), fs::copy_options::overwrite_existing, ec);
    static std::string to_remove;
    to_remove = dir;
    std::atexit([] {
        std::error_code e;
        std::filesystem::remove_all(to_remove, e);
    });
    return dir;
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

}  // namespace kl::fuzz
