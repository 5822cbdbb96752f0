// HMAC-SHA256 (RFC 2104 over FIPS 180-4's SHA-256, base/sha256.h), written from the RFC: a class's
// submissions are signed with the key its instructor hands out (course/submission.h). Tested with
// the vectors of RFC 4231.
#pragma once
#include <string>
#include <string_view>

namespace kl {

// The 32-byte digest of `bytes` (raw, not hex).
std::string sha256_bytes(std::string_view bytes);

// HMAC-SHA256 of `message` under `key` (any length; a key longer than the 64-byte block is hashed
// first, as RFC 2104 says), as 64 lowercase hex digits.
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

// Compares two strings in time that depends on their length only, not on where they first differ
// (a signature check must not tell a forger how many leading digits were right).
bool equal_in_constant_time(std::string_view a, std::string_view b);

// "0a1b" -> "\x0a\x1b"; false (and *out untouched) on an odd length or a non-hex digit.
bool hex_to_bytes(std::string_view hex, std::string* out);
std::string bytes_to_hex(std::string_view bytes);

}  // namespace kl
