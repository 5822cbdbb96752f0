// The compile cache on disk ($XDG_CACHE_HOME/kernel-ladder/kernels/<key>.cubin or .ptx): one file
// per compile, holding NVRTC's code and log behind a small header that carries the entry's own
// key and a SHA-256 of all of it. An entry is used only when it is whole and was written for the
// key asked for: a damaged file, or one copied over another key's, costs one warning on stderr
// and a recompile, and is never blamed on the source. No CUDA here (fuzz_cache_entry).
//
// The key is a SHA-256 of everything the compile read: the source and every header it includes
// (names as written, contents), the NVRTC options and the compiler's identity.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/include_scan.h"

namespace kl {

struct CacheEntry {
    std::string key, code, log;
};

// The bytes of one entry.
std::string encode_cache_entry(const CacheEntry& e);
// The entry in `bytes`; throws InputError saying what is wrong (without a path) when it is not a
// whole entry for `key`.
CacheEntry decode_cache_entry(const std::string& bytes, const std::string& key);

// The cache key of compiling `src` under the program name `program` with `options` by `compiler`
// (its version and library).
std::string compile_cache_key(const ScannedSource& src, const std::string& program,
                              const std::vector<std::string>& options, const std::string& compiler);

// The entry at `path`, or nothing when there is none. A damaged entry is reported in one line
// on stderr ("kladder: warning: ... compiling LABEL again") and treated as absent.
std::optional<CacheEntry> load_cache_entry(const std::string& path, const std::string& key, const std::string& label);
// Writes the entry atomically; a cache that cannot be written costs a recompile later, nothing more.
void store_cache_entry(const std::string& path, const CacheEntry& e);

}  // namespace kl
