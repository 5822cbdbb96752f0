#include "base/hmac.h"

#include "base/sha256.h"

namespace kl {

namespace {
constexpr size_t kBlockBytes = 64;  // SHA-256's block, B in RFC 2104
int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

bool hex_to_bytes(std::string_view hex, std::string* out) {
    if (hex.size() % 2 != 0) return false;
    std::string bytes;
    bytes.reserve(hex.size() / 2);
    for (size_t i = 0; i < hex.size(); i += 2) {
        const int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);
        if (hi < 0 || lo < 0) return false;
        bytes += static_cast<char>(hi * 16 + lo);
    }
    *out = std::move(bytes);
    return true;
}

std::string bytes_to_hex(std::string_view bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        out += digits[b >> 4];
        out += digits[b & 0xf];
    }
    return out;
}

std::string sha256_bytes(std::string_view bytes) {
    std::string raw;
    hex_to_bytes(sha256_hex(bytes), &raw);  // always 64 hex digits
    return raw;
}

// RFC 2104: H(K ^ opad, H(K ^ ipad, text)), K padded with zeros to the block size.
std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
    std::string k = key.size() > kBlockBytes ? sha256_bytes(key) : std::string(key);
    k.resize(kBlockBytes, '\0');
    std::string inner_pad(kBlockBytes, '\0'), outer_pad(kBlockBytes, '\0');
    for (size_t i = 0; i < kBlockBytes; ++i) {
        inner_pad[i] = static_cast<char>(k[i] ^ 0x36);
        outer_pad[i] = static_cast<char>(k[i] ^ 0x5c);
    }
    const std::string inner = sha256_bytes(inner_pad + std::string(message));
    return sha256_hex(outer_pad + inner);
}

bool equal_in_constant_time(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace kl
