// Reading JSON that came from outside (results files, `serve` requests, figure requests):
// - parse_json_limited() refuses documents nested deeper than kMaxJsonDepth before nlohmann
//   builds them (its copies and destructor recurse once per level, so a file of 100,000 '['
//   would exhaust the stack), and turns parse errors into one InputError line;
// - JsonReader reads typed fields and fails with "<origin>: <field>: <problem>" instead of
//   letting nlohmann::json::type_error escape (which ends a program with "internal error").
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kl {

constexpr int kMaxJsonDepth = 64;

// The deepest nesting of arrays and objects in `text` (strings skipped). Stops counting at
// limit + 1, so a hostile document costs one linear scan.
int json_nesting_depth(const std::string& text, int limit = kMaxJsonDepth);

// Throws InputError "<origin>: not valid JSON (...)" or "<origin>: nested deeper than 64 levels".
nlohmann::json parse_json_limited(const std::string& text, const std::string& origin);

struct JsonReader {
    std::string origin;

    [[noreturn]] void fail(const std::string& field, const std::string& what) const;
    const nlohmann::json& need(const nlohmann::json& j, const char* key, const std::string& field) const;
    double num(const nlohmann::json& j, const char* key, const std::string& field) const;
    std::string str(const nlohmann::json& j, const char* key, const std::string& field) const;
    // An integer in lo..hi; a float (1.0, 2e3), a string or an out-of-range value is refused.
    int64_t integer(const nlohmann::json& j, const char* key, const std::string& field, int64_t lo, int64_t hi) const;
    std::optional<double> opt_num(const nlohmann::json& j, const char* key, const std::string& field) const;
    std::map<std::string, int64_t> int_map(const nlohmann::json& j, const char* key, const std::string& field) const;

    // Optional fields: absent or null gives the fallback; a value of another type is an error.
    std::string str_or(const nlohmann::json& j, const char* key, const std::string& fallback,
                       const std::string& field) const;
    double num_or(const nlohmann::json& j, const char* key, double fallback, const std::string& field) const;
    int64_t int_or(const nlohmann::json& j, const char* key, int64_t fallback, const std::string& field, int64_t lo,
                   int64_t hi) const;
    bool bool_or(const nlohmann::json& j, const char* key, bool fallback, const std::string& field) const;

    static std::string join(const std::string& field, const std::string& key) {
        return field.empty() ? key : field + "." + key;
    }
};

// A JSON integer as int64: false for floats, strings, and unsigned values above INT64_MAX.
bool json_to_int64(const nlohmann::json& v, int64_t* out);

}  // namespace kl
