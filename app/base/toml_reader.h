// Typed reads from a parsed TOML file that fail with "<file>:<line>: <field>: <problem>".
// Shared by the ladder and lesson loaders; include only from their .cpp files (toml++ is a
// large header-only library). The file is read by read_file() (a regular file of bounded size,
// opened without blocking): toml::parse_file would wait forever on a FIFO named ladder.toml.
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "base/atomic_file.h"
#include "base/errors.h"

namespace kl {

inline int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

class TomlReader {
  public:
    explicit TomlReader(std::string path) : path_(std::move(path)) {
        const std::string text = read_file(path_);  // throws InputError naming the path
        try {
            root_ = toml::parse(text, path_);
        } catch (const toml::parse_error& e) {
            throw InputError(path_ + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
        } catch (const std::exception& e) { throw InputError(path_ + ": cannot read: " + e.what()); }
    }
    const toml::table& root() const { return root_; }
    const std::string& path() const { return path_; }

    [[noreturn]] void fail(int line, const std::string& field, const std::string& problem) const {
        throw InputError(path_ + ":" + std::to_string(line) + ": " + (field.empty() ? "" : field + ": ") + problem);
    }

    void allow_only(const toml::table& t, const std::string& field, std::initializer_list<const char*> keys) const {
        for (const auto& [k, node] : t) {
            bool ok = false;
            for (const char* key : keys) ok |= k.str() == key;
            if (!ok) {
                std::string list;
                for (const char* key : keys) list += (list.empty() ? "" : ", ") + std::string(key);
                fail(line_of(node), join(field, std::string(k.str())), "unknown field (expected one of " + list + ")");
            }
        }
    }

    std::string string(const toml::table& t, const char* key, const std::string& field) const {
        const toml::node* n = t.get(key);
        if (!n) fail(line_of(t), join(field, key), "missing");
        auto v = n->value<std::string>();
        if (!v || !n->is_string()) fail(line_of(*n), join(field, key), "expected a string, found " + type_name(*n));
        return *v;
    }
    std::string string_or(const toml::table& t, const char* key, const std::string& fallback,
                          const std::string& field) const {
        return t.get(key) ? string(t, key, field) : fallback;
    }
    int64_t integer(const toml::table& t, const char* key, const std::string& field) const {
        const toml::node* n = t.get(key);
        if (!n) fail(line_of(t), join(field, key), "missing");
        if (!n->is_integer()) fail(line_of(*n), join(field, key), "expected an integer, found " + type_name(*n));
        return *n->value<int64_t>();
    }
    // An integer that must lie in lo..hi (values kept in an int are checked, never wrapped).
    int64_t integer_in(const toml::table& t, const char* key, const std::string& field, int64_t lo, int64_t hi) const {
        int64_t v = integer(t, key, field);
        if (v < lo || v > hi)
            fail(line_of(*t.get(key)), join(field, key),
                 std::to_string(v) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
        return v;
    }
    bool boolean_or(const toml::table& t, const char* key, bool fallback, const std::string& field) const {
        const toml::node* n = t.get(key);
        if (!n) return fallback;
        if (!n->is_boolean()) fail(line_of(*n), join(field, key), "expected true or false, found " + type_name(*n));
        return *n->value<bool>();
    }
    std::vector<std::pair<std::string, int>> strings(const toml::table& t, const std::string& key) const {
        std::vector<std::pair<std::string, int>> out;
        const toml::node* n = t.get(key);
        if (!n) return out;
        const toml::array* a = n->as_array();
        if (!a) fail(line_of(*n), key, "expected a list of strings");
        for (const auto& e : *a) {
            if (!e.is_string()) fail(line_of(e), key, "expected a string, found " + type_name(e));
            out.emplace_back(*e.value<std::string>(), line_of(e));
        }
        return out;
    }
    std::vector<std::pair<int64_t, int>> integers(const toml::table& t, const std::string& key,
                                                  const std::string& field) const {
        std::vector<std::pair<int64_t, int>> out;
        const toml::node* n = t.get(key);
        if (!n) return out;
        const toml::array* a = n->as_array();
        if (!a) fail(line_of(*n), join(field, key), "expected a list of integers");
        for (const auto& e : *a) {
            if (!e.is_integer()) fail(line_of(e), join(field, key), "expected an integer, found " + type_name(e));
            out.emplace_back(*e.value<int64_t>(), line_of(e));
        }
        return out;
    }

    static std::string type_name(const toml::node& n) {
        switch (n.type()) {
            case toml::node_type::string: return "a string";
            case toml::node_type::integer: return "an integer";
            case toml::node_type::floating_point: return "a number";
            case toml::node_type::boolean: return "a boolean";
            case toml::node_type::array: return "a list";
            case toml::node_type::table: return "a table";
            default: return "a date or time";
        }
    }
    static std::string join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "." + b; }

  private:
    std::string path_;
    toml::table root_;
};

}  // namespace kl
