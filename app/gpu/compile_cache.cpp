#include "gpu/compile_cache.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/sha256.h"

namespace kl {

namespace {

constexpr const char* kMagic = "kladder-cache-entry 1\n";

// One field of the key's text: a tag and the value's length, so that no two different inputs
// give the same text.
void field(Sha256& h, const char* tag, const std::string& value) {
    h.update(tag).update(" ").update(std::to_string(value.size())).update("\n").update(value).update("\n");
}

// "NAME VALUE\n" at `at`; returns VALUE and steps past the line.
std::string header_line(const std::string& bytes, size_t& at, const std::string& name) {
    const size_t end = bytes.find('\n', at);
    if (end == std::string::npos || end - at > 200 || bytes.compare(at, name.size() + 1, name + " ") != 0)
        throw InputError("no '" + name + "' line where the header should have one");
    std::string value = bytes.substr(at + name.size() + 1, end - at - name.size() - 1);
    at = end + 1;
    return value;
}

size_t length_of(const std::string& text, const std::string& name) {
    if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos)
        throw InputError("the " + name + " length '" + text + "' is not a number");
    return static_cast<size_t>(std::stoull(text));
}

bool is_key(const std::string& s) {
    return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

std::string encode_cache_entry(const CacheEntry& e) {
    std::string head = std::string(kMagic) + "key " + e.key + "\ncode " + std::to_string(e.code.size()) + "\nlog " +
                       std::to_string(e.log.size()) + "\n";
    const std::string sum = Sha256().update(head).update(e.code).update(e.log).hex();
    return head + "sha256 " + sum + "\n" + e.code + e.log;
}

CacheEntry decode_cache_entry(const std::string& bytes, const std::string& key) {
    const std::string magic(kMagic);
    if (bytes.compare(0, magic.size(), magic) != 0) throw InputError("not a cache entry of this version");
    size_t at = magic.size();
    CacheEntry e;
    e.key = header_line(bytes, at, "key");
    if (!is_key(e.key)) throw InputError("its key is not 64 hex digits");
    const size_t code = length_of(header_line(bytes, at, "code"), "code");
    const size_t log = length_of(header_line(bytes, at, "log"), "log");
    const size_t head_end = at;
    const std::string sum = header_line(bytes, at, "sha256");
    if (bytes.size() - at != code + log)
        throw InputError("it holds " + std::to_string(bytes.size() - at) + " bytes of code and log, its header says " +
                         std::to_string(code + log));
    const std::string_view all(bytes);
    if (Sha256().update(all.substr(0, head_end)).update(all.substr(at)).hex() != sum)
        throw InputError("its checksum does not match its contents");
    if (e.key != key) throw InputError("it was written for another key (" + e.key.substr(0, 16) + "...)");
    e.code = bytes.substr(at, code);
    e.log = bytes.substr(at + code, log);
    return e;
}

std::string compile_cache_key(const ScannedSource& src, const std::string& program,
                              const std::vector<std::string>& options, const std::string& compiler) {
    Sha256 h;
    h.update("kladder compile key 1\n");
    field(h, "compiler", compiler);
    field(h, "program", program);
    field(h, "source", src.text);
    std::vector<const IncludedFile*> headers;
    for (const auto& header : src.headers) headers.push_back(&header);
    std::sort(headers.begin(), headers.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const IncludedFile* header : headers) {
        field(h, "header", header->name);
        field(h, "text", header->text);
    }
    for (const auto& o : options) field(h, "option", o);
    return h.hex();
}

std::optional<CacheEntry> load_cache_entry(const std::string& path, const std::string& key, const std::string& label) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return std::nullopt;
    try {
        return decode_cache_entry(read_file(path), key);
    } catch (const InputError& e) {
        std::fprintf(stderr, "kladder: warning: the cached compile %s is damaged (%s); compiling %s again\n",
                     path.c_str(), e.what(), label.c_str());
        std::fflush(stderr);
        return std::nullopt;
    }
}

void store_cache_entry(const std::string& path, const CacheEntry& e) {
    try_write_file_atomically(path, encode_cache_entry(e));
}

}  // namespace kl
