#include "base/json_input.h"

#include <cmath>
#include <limits>

#include "base/errors.h"

namespace kl {

using nlohmann::json;

int json_nesting_depth(const std::string& text, int limit) {
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest && (deepest = depth) > limit) return deepest;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

json parse_json_limited(const std::string& text, const std::string& origin) {
    if (json_nesting_depth(text) > kMaxJsonDepth)
        throw InputError(origin + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        throw InputError(origin + ": not valid JSON (" + std::string(e.what()) + ")");
    }
}

bool json_to_int64(const json& v, int64_t* out) {
    if (v.is_number_unsigned()) {
        uint64_t u = v.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
        *out = static_cast<int64_t>(u);
        return true;
    }
    if (v.is_number_integer()) {
        *out = v.get<int64_t>();
        return true;
    }
    return false;
}

void JsonReader::fail(const std::string& field, const std::string& what) const {
    throw InputError(origin + ": " + field + ": " + what);
}

const json& JsonReader::need(const json& j, const char* key, const std::string& field) const {
    if (!j.is_object()) fail(field.empty() ? "(top level)" : field, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) fail(join(field, key), "missing");
    return *it;
}

double JsonReader::num(const json& j, const char* key, const std::string& field) const {
    const json& v = need(j, key, field);
    if (!v.is_number()) fail(join(field, key), "expected a number");
    double d = v.get<double>();
    if (!std::isfinite(d)) fail(join(field, key), "expected a finite number");
    return d;
}

std::string JsonReader::str(const json& j, const char* key, const std::string& field) const {
    const json& v = need(j, key, field);
    if (!v.is_string()) fail(join(field, key), "expected a string");
    return v.get<std::string>();
}

int64_t JsonReader::integer(const json& j, const char* key, const std::string& field, int64_t lo, int64_t hi) const {
    const json& v = need(j, key, field);
    int64_t out = 0;
    if (!json_to_int64(v, &out)) {
        if (v.is_number_unsigned()) fail(join(field, key), v.dump() + " does not fit in a 64-bit integer");
        fail(join(field, key), "expected an integer, found " + std::string(v.is_number() ? v.dump() : v.type_name()));
    }
    if (out < lo || out > hi)
        fail(join(field, key), std::to_string(out) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return out;
}

std::optional<double> JsonReader::opt_num(const json& j, const char* key, const std::string& field) const {
    if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return num(j, key, field);
}

std::map<std::string, int64_t> JsonReader::int_map(const json& j, const char* key, const std::string& field) const {
    const json& v = need(j, key, field);
    if (!v.is_object()) fail(join(field, key), "expected an object of integers");
    std::map<std::string, int64_t> out;
    for (auto it = v.begin(); it != v.end(); ++it) {
        int64_t x = 0;
        if (!json_to_int64(*it, &x)) fail(join(field, key) + "." + it.key(), "expected a 64-bit integer");
        out[it.key()] = x;
    }
    return out;
}

std::string JsonReader::str_or(const json& j, const char* key, const std::string& fallback,
                               const std::string& field) const {
    if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return fallback;
    return str(j, key, field);
}

double JsonReader::num_or(const json& j, const char* key, double fallback, const std::string& field) const {
    if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return fallback;
    return num(j, key, field);
}

int64_t JsonReader::int_or(const json& j, const char* key, int64_t fallback, const std::string& field, int64_t lo,
                           int64_t hi) const {
    if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return fallback;
    return integer(j, key, field, lo, hi);
}

bool JsonReader::bool_or(const json& j, const char* key, bool fallback, const std::string& field) const {
    if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return fallback;
    const json& v = j.at(key);
    if (!v.is_boolean()) fail(join(field, key), "expected true or false");
    return v.get<bool>();
}

}  // namespace kl
