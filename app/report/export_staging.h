// Where an export's files go until all of them are written (`kladder export-lesson`, `kladder
// class merge`). A new destination folder is built as a hidden sibling and renamed into place at
// the end; into an existing folder the files are moved together by a FileSet (other files there
// are left alone). Until commit() nothing is visible at the destination, and a failure or a
// signal removes only what was staged.
#pragma once
#include <string>
#include <vector>

#include "base/file_set.h"

namespace kl::report {

class Staging {
  public:
    // Throws InputError when `out_dir` is not a folder that can be written, or its parent is not.
    explicit Staging(const std::string& out_dir);
    ~Staging();
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;
    void write(const std::string& name, const std::string& bytes);  // `name` inside the folder
    void commit();
    const std::vector<std::string>& names() const { return names_; }

  private:
    std::string out_dir_, new_dir_, final_dir_;
    std::vector<std::string> names_;
    FileSet files_;
    bool moved_ = false;
};

}  // namespace kl::report
