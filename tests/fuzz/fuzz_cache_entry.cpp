// Fuzz target: the compile cache's entry loader (app/gpu/compile_cache.*). A cache entry is a
// file anyone with the cache folder can replace: a damaged, truncated or foreign entry must be
// refused with a clean kl::InputError (the compile then runs again), never crash or be used.
// Every entry that is accepted must be the one its bytes encode: encoding it again gives the
// same bytes.
#include <cstdlib>
#include <string>

#include "base/errors.h"
#include "fuzz_driver.h"
#include "gpu/compile_cache.h"

namespace {
// The key named on the input's own "key " line (so that mutations get past the key check).
std::string key_in(const std::string& bytes) {
    const size_t at = bytes.find("\nkey ");
    return at == std::string::npos ? std::string(64, '0') : bytes.substr(at + 5, 64);
}
}  // namespace

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "cache_entry";
    t.extensions = {".entry"};
    t.dictionary = {"kladder-cache-entry 1\n",
                    "key ",
                    "\ncode ",
                    "\nlog ",
                    "\nsha256 ",
                    "99999999999999999999",
                    "999999999999",
                    "-1",
                    "0",
                    "\n",
                    std::string(64, 'f'),
                    "\x7f"
                    "ELF"};
    t.run = [](const std::string& bytes) {
        for (const std::string& key : {key_in(bytes), std::string(64, 'a')}) {
            try {
                const kl::CacheEntry e = kl::decode_cache_entry(bytes, key);
                if (e.key != key || kl::encode_cache_entry(e) != bytes) std::abort();
            } catch (const kl::InputError&) {
                // refused: the compile runs again
            }
        }
    };
    return kl::fuzz::main_for(t, argc, argv);
}
