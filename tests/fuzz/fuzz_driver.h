// A seeded random-mutation fuzzer small enough to build with the project's own compiler, in the
// normal and the KL_SANITIZE (ASan + UBSan) tree alike. No coverage feedback: each execution
// takes a corpus file (the real kernels/, lessons/, assets/recorded/ files and serve lines),
// applies a few mutations (bit flips, byte insertions and deletions, splices of two corpus
// files, dictionary tokens, extreme numbers, deep nesting) and hands it to one parser.
//
// A finding is anything but a clean kl::Error: another exception, a crash signal, a sanitizer
// report or an input that runs longer than the per-input time limit. The input is then written
// to --out (crash-<target>-seed<S>.input) and the program exits 1. docs/security.md says how to
// run it longer and how a finding becomes a regression test (tests/hostile/regressions/).
//
//   fuzz_<target> --seconds N --seed S --corpus DIR [--corpus DIR...] [--out DIR]
//   fuzz_<target> --replay FILE_OR_DIR...      (each input once: the regression tests)
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace kl::fuzz {

struct Target {
    std::string name;                             // "expr", "manifest", ...
    std::vector<std::string> extensions;          // corpus files to use (".toml"); empty: every file
    std::vector<std::string> dictionary;          // tokens worth inserting
    std::function<void(const std::string&)> run;  // may throw kl::Error; anything else is a finding
    std::function<void()> setup;                  // once, before the first input (optional)
};

int main_for(const Target& target, int argc, char** argv);

}  // namespace kl::fuzz
