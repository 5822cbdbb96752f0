// `kladder try`'s copy of the learner's file, staged in a private folder of the cache for the one
// compile path (compile_kernel), so that the learner's folder is only ever read. What is staged is
// exactly the file and the headers it #includes (directly or not) from its own folder or the like
// rung's, each under the name it is included by; headers of kernels/common are found there at
// compile time. A fresh folder (0700) per run, removed when the TryStaging goes: a header deleted
// since the last run is never compiled from an old copy. Each copy gets the permissions of its
// original, never wider than owner read/write (0600 source: 0600 copy; 0644: 0600).
// No CUDA here.
#pragma once
#include <string>

namespace kl {

class TryStaging {
  public:
    // Stages `file` (the path as given) under `staged_name` (a plain file name such as "mine.cu":
    // the learner's own name may hold anything, quotes and newlines included). `like_folder` is the
    // folder of the rung the file is tried like. Throws InputError naming the file, or the
    // #include and the file that holds it.
    TryStaging(const std::string& file, const std::string& staged_name, const std::string& like_folder);
    ~TryStaging();
    TryStaging(const TryStaging&) = delete;
    TryStaging& operator=(const TryStaging&) = delete;

    const std::string& source() const { return source_; }  // the staged copy of the file
    const std::string& folder() const { return folder_; }

  private:
    void stage_headers(const std::string& file, const std::string& like_folder);
    void write(const std::string& path, const std::string& text, const std::string& original);
    std::string folder_, source_;
};

}  // namespace kl
