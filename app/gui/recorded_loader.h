// The recorded results are read on a worker thread while the window draws its first frames
// (issue 38: assets/recorded holds 30 MB of JSON, most of a second of a laptop's start before
// the first frame). The worker only parses files; the UI thread adds what it parsed to the
// results store (which is not shared between threads), in the order the synchronous load used:
// assets/recorded/*.json sorted by name, then each --results file.
#pragma once
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "model/results.h"

namespace kl::gui {

struct ParsedResults {
    std::vector<std::pair<ResultsFile, std::string>> files;  // (file, path), in load order
    std::vector<std::string> recorded_errors;                // assets/recorded files that failed
    std::vector<std::string> option_errors;                  // --results files that failed
};

class RecordedLoader {
  public:
    // Starts parsing `dir`'s *.json (none when `dir` is empty) and then `extra_paths`.
    void start(std::string dir, std::vector<std::string> extra_paths);
    bool running() const { return job_.valid(); }
    bool ready() const;  // running and finished: take() does not wait
    // What was parsed (waits for the worker if it is still at it); once after each start().
    ParsedResults take();

  private:
    std::future<ParsedResults> job_;
};

}  // namespace kl::gui
