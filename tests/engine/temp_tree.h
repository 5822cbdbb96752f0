// Helpers for tests that write manifests, lessons and results files.
// [SECTION] TempTree: a throwaway folder
// [SECTION] input_error_of: the one line a bad file is refused with
// [SECTION] The tiny test ladder: the head of a one-rung manifest
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/errors.h"
#include "model/manifest.h"
#include "model/manifest_load.h"

// [SECTION] TempTree: a throwaway folder
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

// [SECTION] input_error_of: the one line a bad file is refused with
// The message of the kl::InputError that `load()` throws, or "" when it throws none (so a test
// that looks for a message in it fails when the bad input was accepted).
template <typename Load>
std::string input_error_of(Load&& load) {
    try {
        load();
    } catch (const kl::InputError& e) { return e.what(); }
    return "";
}

// [SECTION] The tiny test ladder: the head of a one-rung manifest
// A gelu ladder "tiny" (size n = 1000; buffers y and x) whose one rung "one" is 01_one.cu. The
// head ends with the rung's `file` on line 10: tests append the rung's fields from line 11 on
// and quote those line numbers in the errors they expect.
inline const std::string kTinyLadderHead = R"TOML([ladder]
id = "tiny"
title = "Tiny"
operation = "gelu"
sizes = { n = 1000 }

[[rung]]
id = "one"
title = "One"
file = "01_one.cu"
)TOML";

// The tiny ladder, loaded, its rung "one" taking TPB (32..256, default 256) and launching the
// empty kernel of 01_one.cu: for tests of what reads results of a rung (bindings, predictions).
// `tpb_keys`: more keys of TPB's table, one per line ("  before  = 32\n").
inline std::vector<kl::Ladder> tiny_ladder_with_tpb(const TempTree& t, const std::string& tpb_keys = "") {
    t.write("kernels/tiny/01_one.cu", "extern \"C\" __global__ void one() {}\n");
    std::string m = t.write("kernels/tiny/ladder.toml", kTinyLadderHead + R"TOML(
  [rung.params.TPB]
  default = 256
)TOML" + tpb_keys + R"TOML(  values = [32, 64, 128, 256]
  [[rung.launch]]
  entry = "one"
  grid = ["1"]
  block = ["TPB"]
  args = []
)TOML");
    return {kl::load_ladder(m)};
}
