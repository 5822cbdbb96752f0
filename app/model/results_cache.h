// Results files read once per process: a handout's export binds every lesson step against the
// recordings (34 MB of JSON in assets/recorded), and each export, each lesson and each check used
// to parse them again. The cache is keyed by the file's identity as stat(2) gives it (device,
// inode, size, modification and change times to the nanosecond), so a file that is rewritten,
// replaced or renamed over is parsed again; a file that fails to load is never cached (the next
// read fails the same way, with the same message). Bounded: past kMaxCachedResultsBytes of source
// files the oldest entries go. Thread-safe (the window loads in the background).
#pragma once
#include <string>

#include "model/results.h"

namespace kl {

constexpr long long kMaxCachedResultsBytes = 128LL << 20;

// As load_results(path) (the same checks, the same errors), from the cache when the file is unchanged.
ResultsFile load_results_cached(const std::string& path);

struct ResultsCacheCounts {
    long long parses = 0, hits = 0, entries = 0, bytes = 0;
};
ResultsCacheCounts results_cache_counts();
void clear_results_cache();

}  // namespace kl
