// Checked int64 arithmetic for everything computed from untrusted input (manifest expressions,
// parameter ranges, sizes). Each returns false instead of overflowing (signed overflow is
// undefined behaviour, and INT64_MIN / -1 traps with SIGFPE on x86).
#pragma once
#include <cstdint>
#include <limits>

namespace kl {

inline bool checked_add(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }
inline bool checked_sub(int64_t a, int64_t b, int64_t* out) { return !__builtin_sub_overflow(a, b, out); }
inline bool checked_mul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
inline bool checked_neg(int64_t a, int64_t* out) { return !__builtin_sub_overflow(int64_t(0), a, out); }

// Integer division toward zero; false for b == 0 and for INT64_MIN / -1.
inline bool checked_div(int64_t a, int64_t b, int64_t* out) {
    if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return false;
    *out = a / b;
    return true;
}
inline bool checked_mod(int64_t a, int64_t b, int64_t* out) {
    if (b == 0) return false;
    *out = b == -1 ? 0 : a % b;  // INT64_MIN % -1 traps like the division
    return true;
}

// Ceiling division for any signs: the smallest q with q * b >= a (b > 0), as cdiv(n, TPB) means.
inline bool checked_cdiv(int64_t a, int64_t b, int64_t* out) {
    int64_t q = 0;
    if (!checked_div(a, b, &q)) return false;
    // a / b truncates toward zero; round up where the exact quotient is positive and inexact.
    if (a % b != 0 && ((a > 0) == (b > 0))) return checked_add(q, 1, out);
    *out = q;
    return true;
}

}  // namespace kl
