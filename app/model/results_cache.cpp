#include "model/results_cache.h"

#include <sys/stat.h>

#include <list>
#include <mutex>

#include "model/results_json.h"

namespace kl {

namespace {

struct FileIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    off_t size = 0;
    long long modified_ns = 0, changed_ns = 0;
    bool operator==(const FileIdentity& o) const {
        return device == o.device && inode == o.inode && size == o.size && modified_ns == o.modified_ns &&
               changed_ns == o.changed_ns;
    }
};

struct CachedResults {
    std::string path;
    FileIdentity identity;
    ResultsFile file;
};

struct ResultsCache {
    std::mutex lock;
    std::list<CachedResults> entries;  // most recently used first
    ResultsCacheCounts counts;
};

ResultsCache& results_cache() {
    static ResultsCache cache;
    return cache;
}

// The identity of a regular file; none for anything else (load_results then refuses it by name).
bool identity_of(const std::string& path, FileIdentity* id) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    id->device = st.st_dev;
    id->inode = st.st_ino;
    id->size = st.st_size;
    id->modified_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    id->changed_ns = (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
    return true;
}

}  // namespace

ResultsFile load_results_cached(const std::string& path) {
    FileIdentity before;
    if (!identity_of(path, &before)) return load_results(path);
    ResultsCache& cache = results_cache();
    {
        std::lock_guard<std::mutex> hold(cache.lock);
        for (auto it = cache.entries.begin(); it != cache.entries.end(); ++it)
            if (it->path == path) {
                if (!(it->identity == before)) {
                    cache.counts.bytes -= it->identity.size;
                    cache.entries.erase(it);
                    break;
                }
                cache.entries.splice(cache.entries.begin(), cache.entries, it);
                ++cache.counts.hits;
                return it->file;
            }
    }
    ResultsFile file = load_results(path);  // throws, uncached, on a file that does not load
    FileIdentity after;
    // Changed while it was read: return what was read, keep nothing (the next read parses again).
    if (!identity_of(path, &after) || !(after == before)) return file;
    std::lock_guard<std::mutex> hold(cache.lock);
    ++cache.counts.parses;
    for (const CachedResults& e : cache.entries)
        if (e.path == path) return file;  // another thread cached it meanwhile
    cache.entries.push_front({path, before, file});
    cache.counts.bytes += before.size;
    while (cache.counts.bytes > kMaxCachedResultsBytes && cache.entries.size() > 1) {
        cache.counts.bytes -= cache.entries.back().identity.size;
        cache.entries.pop_back();
    }
    cache.counts.entries = (long long)cache.entries.size();
    return file;
}

ResultsCacheCounts results_cache_counts() {
    ResultsCache& cache = results_cache();
    std::lock_guard<std::mutex> hold(cache.lock);
    ResultsCacheCounts c = cache.counts;
    c.entries = (long long)cache.entries.size();
    return c;
}

void clear_results_cache() {
    ResultsCache& cache = results_cache();
    std::lock_guard<std::mutex> hold(cache.lock);
    cache.entries.clear();
    cache.counts = ResultsCacheCounts{};
}

}  // namespace kl
