#include "course/submission.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/hmac.h"
#include "base/json_input.h"
#include "base/sha256.h"
#include "model/results_json.h"

namespace kl {

using nlohmann::json;

namespace {

constexpr size_t kSecretBytes = 32;
constexpr const char* kAlgorithm = "HMAC-SHA256";

// The text the MAC covers: the document without its signature, compact, keys sorted (nlohmann's
// objects are sorted maps), invalid UTF-8 replaced rather than thrown on (a parsed file has none).
std::string canonical_text(json j) {
    j.erase("signature");
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

[[noreturn]] void refuse(const std::string& origin, const std::string& problem) {
    throw InputError(origin + ": " + problem);
}

json parse_or_refuse(const std::string& text, const std::string& origin) {
    if (text.empty()) refuse(origin, "truncated: the file is empty");
    if (json_nesting_depth(text) > kMaxJsonDepth) refuse(origin, "nested deeper than 64 levels");
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        // An error at the last byte (or past it) is a file cut short: nlohmann says "unexpected end
        // of input", or "missing closing quote" when the cut falls inside a string.
        if (e.byte >= text.size())
            refuse(origin,
                   "truncated: the JSON ends at byte " + std::to_string(text.size()) + " before it is complete");
        refuse(origin, std::string("not valid JSON (") + e.what() + ")");
    } catch (const json::exception& e) {  // a number out of range ("1e400")
        refuse(origin, std::string("not valid JSON (") + e.what() + ")");
    }
}

}  // namespace

std::string ClassKey::id() const { return sha256_hex("kernel-ladder class key" + secret).substr(0, 16); }

ClassKey make_class_key(const std::string& name) {
    ClassKey k;
    k.name = name;
    k.secret.resize(kSecretBytes);
    size_t got = 0;
    while (got < kSecretBytes) {
        const ssize_t n = getrandom(&k.secret[got], kSecretBytes - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw Error(ExitCode::BadInput,
                        std::string("cannot make a class key: getrandom failed (") + std::strerror(errno) + ")");
        got += size_t(n);
    }
    return k;
}

std::string class_key_to_text(const ClassKey& key) {
    return json{{"schema", kClassKeySchema},
                {"version", 1},
                {"class", key.name},
                {"key", bytes_to_hex(key.secret)},
                {"id", key.id()}}
               .dump(1) +
           "\n";
}

ClassKey class_key_from_text(const std::string& text, const std::string& origin) {
    const json j = parse_json_limited(text, origin);
    JsonReader rd{origin};
    if (!j.is_object()) rd.fail("(top level)", "expected a class key (a JSON object)");
    if (rd.str(j, "schema", "schema") != kClassKeySchema)
        rd.fail("schema", std::string("expected \"") + kClassKeySchema + "\"");
    if (rd.integer(j, "version", "version", 1, 1000000) != 1) rd.fail("version", "this workbook reads version 1");
    ClassKey k;
    k.name = rd.str_or(j, "class", "", "class");
    const std::string hex = rd.str(j, "key", "key");
    if (hex.size() != 2 * kSecretBytes || !hex_to_bytes(hex, &k.secret))
        rd.fail("key", "expected 64 hex digits (kladder class keygen makes one)");
    return k;
}

ClassKey load_class_key(const std::string& path) { return class_key_from_text(read_file(path, 1 << 16), path); }

bool Submission::accepted() const {
    if (checks.empty()) return false;
    for (const auto& c : checks)
        if (!c.passed) return false;
    return true;
}

std::string Submission::refusal() const {
    for (const auto& c : checks)
        if (!c.passed) return "refused by check '" + c.name + "': " + c.detail;
    return checks.empty() ? "refused: no check ran" : "";
}

const RunRecord* Submission::mine_run() const {
    return mine >= 0 && size_t(mine) < results.runs.size() ? &results.runs[size_t(mine)] : nullptr;
}

json to_json(const Submission& s) {
    json checks = json::array();
    for (const auto& c : s.checks) checks.push_back({{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}});
    return json{{"schema", kSubmissionSchema},
                {"version", kSubmissionVersion},
                {"learner", s.learner},
                {"exercise", s.exercise},
                {"ladder", s.ladder},
                {"like", s.like},
                {"source", {{"name", s.source_name}, {"text", s.source}, {"sha256", s.source_sha256}}},
                {"workbook", s.workbook},
                {"created", s.created},
                {"results", to_json(s.results)},
                {"mine", s.mine},
                {"checks", checks},
                {"goal", s.goal.empty() ? json(nullptr)
                                        : json{{"text", s.goal}, {"met", s.goal_met}, {"summary", s.goal_summary}}}};
}

std::string sign_submission(const Submission& s, const ClassKey& key) {
    json j = to_json(s);
    // Through text and back: the signature covers what a reader will parse (a NaN is written as
    // null, invalid UTF-8 from a driver's string as U+FFFD), numbers included.
    j = json::parse(j.dump(-1, ' ', false, json::error_handler_t::replace));
    j["signature"] = {
        {"algorithm", kAlgorithm}, {"key_id", key.id()}, {"mac", hmac_sha256_hex(key.secret, canonical_text(j))}};
    return j.dump(1) + "\n";
}

Submission parse_submission_fields(const json& j, const std::string& origin) {
    JsonReader rd{origin};
    Submission s;
    s.learner = rd.str(j, "learner", "learner");
    s.exercise = rd.str(j, "exercise", "exercise");
    s.ladder = rd.str(j, "ladder", "ladder");
    s.like = rd.str_or(j, "like", "", "like");
    const json& src = rd.need(j, "source", "source");
    if (!src.is_object()) rd.fail("source", "expected an object");
    s.source_name = rd.str(src, "name", "source.name");
    s.source = rd.str(src, "text", "source.text");
    s.source_sha256 = rd.str(src, "sha256", "source.sha256");
    s.workbook = rd.str(j, "workbook", "workbook");
    s.created = rd.str(j, "created", "created");
    if (s.learner.empty()) rd.fail("learner", "empty");
    s.results = results_from_json(rd.need(j, "results", "results"), origin);
    s.mine = static_cast<int>(rd.integer(j, "mine", "mine", 0, 1000000));
    if (!s.mine_run()) rd.fail("mine", "no run " + std::to_string(s.mine) + " in results.runs");
    const json& checks = rd.need(j, "checks", "checks");
    if (!checks.is_array()) rd.fail("checks", "expected an array");
    for (size_t i = 0; i < checks.size(); ++i) {
        const std::string f = "checks[" + std::to_string(i) + "]";
        if (!checks[i].is_object()) rd.fail(f, "expected an object");
        s.checks.push_back({rd.str(checks[i], "name", f + ".name"),
                            rd.bool_or(checks[i], "passed", false, f + ".passed"),
                            rd.str_or(checks[i], "detail", "", f + ".detail")});
    }
    if (j.contains("goal") && !j["goal"].is_null()) {
        const json& g = j["goal"];
        if (!g.is_object()) rd.fail("goal", "expected an object or null");
        s.goal = rd.str(g, "text", "goal.text");
        s.goal_met = rd.bool_or(g, "met", false, "goal.met");
        s.goal_summary = rd.str_or(g, "summary", "", "goal.summary");
    }
    return s;
}

Submission read_submission(const std::string& text, const std::string& origin, const ClassKey& key) {
    const json j = parse_or_refuse(text, origin);
    if (!j.is_object() || !j.contains("schema") || j["schema"] != kSubmissionSchema)
        refuse(origin, std::string("not a submission (no \"schema\": \"") + kSubmissionSchema + "\")");
    int64_t version = 0;
    if (!j.contains("version") || !json_to_int64(j["version"], &version) || version < 1)
        refuse(origin, "version: expected a positive integer");
    if (version > kSubmissionVersion)
        refuse(origin, "future version: submission version " + std::to_string(version) +
                           " needs a newer workbook (this one reads " + std::to_string(kSubmissionVersion) + ")");
    const json* sig = j.contains("signature") && j["signature"].is_object() ? &j["signature"] : nullptr;
    if (!sig) refuse(origin, "unsigned: no signature");
    JsonReader rd{origin};
    if (rd.str(*sig, "algorithm", "signature.algorithm") != kAlgorithm)
        rd.fail("signature.algorithm", std::string("expected \"") + kAlgorithm + "\"");
    const std::string key_id = rd.str(*sig, "key_id", "signature.key_id");
    if (key_id != key.id())
        refuse(origin, "foreign key: signed with another class's key (key id " + key_id.substr(0, 16) +
                           ", this class's is " + key.id() + ")");
    if (!equal_in_constant_time(rd.str(*sig, "mac", "signature.mac"), hmac_sha256_hex(key.secret, canonical_text(j))))
        refuse(origin, "tampered: the signature does not match the content (changed after it was signed)");
    return parse_submission_fields(j, origin);
}

}  // namespace kl
