// A throwaway folder for tests that write manifests, lessons and results files.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

class TempTree {
  public:
    TempTree() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "kl-test-XXXXXX").string();
        root_ = mkdtemp(tmpl.data());
    }
    ~TempTree() {
        std::error_code ec;
        std::filesystem::remove_all(root_, ec);
    }
    std::string path(const std::string& rel) const { return root_ + "/" + rel; }
    std::string write(const std::string& rel, const std::string& text) const {
        std::string p = path(rel);
        std::filesystem::create_directories(std::filesystem::path(p).parent_path());
        std::ofstream(p) << text;
        return p;
    }
    const std::string& root() const { return root_; }

  private:
    std::string root_;
};
