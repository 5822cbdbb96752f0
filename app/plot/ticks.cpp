// Index
// [SECTION] Helpers
// [SECTION] Number formatting
// [SECTION] Linear ticks
// [SECTION] Log ticks
// [SECTION] Ranges
// [SECTION] Transform
#include "plot/ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kl::plot {

// [SECTION] Helpers -------------------------------------------------------------------------

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Beyond these magnitudes a value cannot be padded, spanned or scaled without overflow.
constexpr double kLargestPlottable = 1e300;
constexpr double kSmallestLogPlottable = 1e-300;

// m * 10^k computed so that decimal values come out as the nearest double (0.3, not 3 * 0.1).
double decimal(double m, int k) { return k < 0 ? m / std::pow(10.0, -k) : m * std::pow(10.0, k); }

int floor_log10(double positive) {
    // The small nudge keeps exact powers of ten (whose log10 may round just below k) at k.
    return static_cast<int>(std::floor(std::log10(positive) + 1e-12));
}

std::string trim_trailing_zeros(std::string s) {
    if (s.find('.') == std::string::npos) return s;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

std::string group_thousands(const std::string& digits_with_sign) {
    // Inserts ',' every three digits of the integer part of a plain decimal string.
    size_t start = (!digits_with_sign.empty() && digits_with_sign[0] == '-') ? 1 : 0;
    size_t end = digits_with_sign.find('.');
    if (end == std::string::npos) end = digits_with_sign.size();
    std::string out = digits_with_sign.substr(0, start);
    for (size_t i = start; i < end; ++i) {
        out += digits_with_sign[i];
        size_t left = end - i - 1;
        if (left > 0 && left % 3 == 0) out += ',';
    }
    out += digits_with_sign.substr(end);
    return out;
}

bool is_negative_zero_text(const std::string& s) {
    if (s.empty() || s[0] != '-') return false;
    return s.find_first_not_of("0.", 1) == std::string::npos;
}

}  // namespace

bool is_drawable(Range range, Scale scale) {
    if (!std::isfinite(range.min) || !std::isfinite(range.max) || !(range.min < range.max)) return false;
    if (!std::isfinite(range.max - range.min)) return false;
    if (scale == Scale::Log10) return range.min > 0.0;
    return true;
}

// [SECTION] Number formatting ---------------------------------------------------------------

std::string format_fixed(double value, int decimals, bool thousands) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    decimals = std::clamp(decimals, 0, 17);
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    std::string s = buf;
    if (is_negative_zero_text(s)) s.erase(0, 1);
    return thousands ? group_thousands(s) : s;
}

std::string format_exponent(double value, int mantissa_decimals) {
    if (!std::isfinite(value)) return format_fixed(value, 0);
    if (value == 0.0) return "0";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", std::clamp(mantissa_decimals, 0, 16), value);
    std::string s = buf;
    size_t e = s.find('e');
    std::string mantissa = trim_trailing_zeros(s.substr(0, e));
    int exponent = std::atoi(s.c_str() + e + 1);
    return mantissa + "e" + std::to_string(exponent);
}

std::string format_value(double value, int significant, bool thousands) {
    if (!std::isfinite(value)) return format_fixed(value, 0);
    if (value == 0.0) return "0";
    significant = std::clamp(significant, 1, 17);
    double magnitude = std::fabs(value);
    if (magnitude < 1e-3 || magnitude >= 1e15) return format_exponent(value, significant - 1);
    int decimals = std::max(0, significant - 1 - floor_log10(magnitude));
    return trim_trailing_zeros(format_fixed(value, decimals, thousands));
}

std::string format_power_of_ten(int exponent) {
    static const char* const kSuperscriptDigits[10] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string out = "10";
    if (exponent < 0) out += "⁻";
    for (char c : std::to_string(std::abs(exponent))) out += kSuperscriptDigits[c - '0'];
    return out;
}

std::string format_si(double value, int decimals) {
    if (!std::isfinite(value) || std::fabs(value) < 1000.0) return format_fixed(value, decimals);
    static const char kPrefixes[] = {'k', 'M', 'G', 'T', 'P', 'E'};
    int power = std::min(6, floor_log10(std::fabs(value)) / 3);
    double mantissa = value / std::pow(1000.0, power);
    std::string text = trim_trailing_zeros(format_fixed(mantissa, decimals, false));
    if ((text == "1000" || text == "-1000") && power < 6) {  // 999.96k rounds up to 1M
        ++power;
        text = trim_trailing_zeros(format_fixed(value / std::pow(1000.0, power), decimals, false));
    }
    return text + kPrefixes[power - 1];
}

// [SECTION] Linear ticks --------------------------------------------------------------------

double nice_step_at_least(double raw) {
    if (!(raw > 0.0) || !std::isfinite(raw)) return 1.0;
    int k = floor_log10(raw);
    for (int attempt = 0; attempt < 3; ++attempt, ++k) {
        for (double m : {1.0, 2.0, 5.0}) {
            double step = decimal(m, k);
            if (step >= raw * (1.0 - 1e-12)) return step;
        }
    }
    return decimal(1.0, k);
}

namespace {

struct StepChoice {
    double m = 1.0;  // step = m * 10^k with m in {1, 2, 5}
    int k = 0;
    long first = 0;  // tick indices: value = i * step for i in [first, last]
    long last = -1;
    long count() const { return last - first + 1; }
    // The power of ten of the last digit a label needs (2.5 steps need one digit more).
    int last_digit() const { return m == 2.5 ? k - 1 : k; }
    double value(long i) const { return decimal(m * static_cast<double>(i), k); }
};

StepChoice step_choice(Range range, double m, int k) {
    StepChoice c;
    c.m = m;
    c.k = k;
    double step = decimal(m, k);
    double tolerance = 1e-9;  // ticks sitting on the range ends survive rounding
    c.first = static_cast<long>(std::ceil(range.min / step - tolerance));
    c.last = static_cast<long>(std::floor(range.max / step + tolerance));
    return c;
}

std::string linear_label(double value, const StepChoice& c, double largest_magnitude, const TickRequest& request) {
    const int last = c.last_digit();
    int decimals = std::max(0, -last);
    NumberStyle style = request.style;
    if (style == NumberStyle::Power) style = NumberStyle::Exponent;
    if (style == NumberStyle::Auto && (c.k <= -5 || largest_magnitude >= 1e9)) style = NumberStyle::Exponent;
    switch (style) {
        case NumberStyle::Exponent: {
            if (value == 0.0) return "0";
            int exponent = floor_log10(std::fabs(value));
            return format_exponent(value, std::max(0, exponent - last));
        }
        case NumberStyle::Si:
            if (std::fabs(value) >= 1000.0) {
                int power = floor_log10(std::fabs(value)) / 3 * 3;
                return format_si(value, std::max(0, power - last));
            }
            return format_fixed(value, decimals, request.thousands);
        default: return format_fixed(value, decimals, request.thousands);
    }
}

}  // namespace

std::vector<Tick> linear_ticks(Range range, const TickRequest& request) {
    if (!is_drawable(range, Scale::Linear)) return {};
    int max_count = std::max(1, request.max_count);
    int min_count = std::clamp(request.min_count, 1, max_count);
    double largest = std::max(std::fabs(range.min), std::fabs(range.max));
    int k_span = floor_log10(range.span());

    // Try every 1-2-5 step near span / count and keep the count closest to the wanted middle.
    // The ladder jumps 2.5x from 2 to 5, which can skip the whole wanted band (17.5 units: 9 ticks
    // at step 2, 3 at step 5); only then is 2.5 tried as well.
    StepChoice best;
    bool have_best = false;
    double target = 0.5 * (min_count + max_count);
    auto score = [&](const StepChoice& c) {
        long n = c.count();
        if (n > max_count) return 1e9 + n;                // never more than asked
        if (n < min_count) return 1e6 + (min_count - n);  // fewer only when nothing fits
        return std::fabs(n - target);
    };
    auto try_steps = [&](std::initializer_list<double> mantissas) {
        for (int k = k_span - 3; k <= k_span + 1; ++k) {
            for (double m : mantissas) {
                double step = decimal(m, k);
                if (largest / step > 1e12) continue;  // labels would need more digits than a double holds well
                StepChoice c = step_choice(range, m, k);
                // Ties go to the larger step (visited later): fewer, calmer labels.
                if (!have_best || score(c) <= score(best)) {
                    best = c;
                    have_best = true;
                }
            }
        }
    };
    try_steps({1.0, 2.0, 5.0});
    if (have_best && best.count() < min_count) try_steps({2.5});
    // No step fits (a range too narrow for double precision): no ticks rather than a pile of them.
    if (!have_best || best.count() > max_count) return {};

    std::vector<Tick> ticks;
    for (long i = best.first; i <= best.last; ++i) {
        double v = best.value(i);
        if (v == 0.0) v = 0.0;  // no -0
        ticks.push_back({v, linear_label(v, best, largest, request), true});
    }
    return ticks;
}

// [SECTION] Log ticks -----------------------------------------------------------------------

namespace {

std::string log_label(double value, double m, int k, bool plain_fits, const TickRequest& request) {
    auto power_form = [&] {
        return m == 1.0 ? format_power_of_ten(k) : format_fixed(m, 0) + "×" + format_power_of_ten(k);
    };
    auto plain_form = [&] { return format_fixed(value, std::max(0, -k), request.thousands); };
    switch (request.style) {
        case NumberStyle::Plain: return plain_form();
        case NumberStyle::Power: return power_form();
        case NumberStyle::Exponent: return format_exponent(value, 0);
        case NumberStyle::Si:
            if (value >= 1000.0) return format_si(value, 0);
            return plain_fits ? plain_form() : power_form();
        case NumberStyle::Auto:
        default: return plain_fits ? plain_form() : power_form();
    }
}

// Plain spelling stays short between 0.001 and 10,000.
bool plain_fits(int k_lowest, int k_highest) { return k_lowest >= -3 && k_highest <= 4; }

}  // namespace

std::vector<Tick> log_ticks(Range range, const TickRequest& request) {
    if (!is_drawable(range, Scale::Log10)) return {};
    int max_count = std::max(1, request.max_count);
    double lmin = std::log10(range.min);
    double lmax = std::log10(range.max);
    auto inside = [&](double v) { return v >= range.min * (1 - 1e-12) && v <= range.max * (1 + 1e-12); };
    int k0 = static_cast<int>(std::ceil(lmin - 1e-9));
    int k1 = static_cast<int>(std::floor(lmax + 1e-9));
    int decades = k1 - k0 + 1;
    std::vector<Tick> ticks;

    if (decades >= 2) {
        // Majors on every decade, or every 2nd, 3rd, 5th... when there are too many to label.
        int decade_step = 1;
        for (int s : {1, 2, 3, 4, 5, 10, 20, 25, 50, 100, 200, 250, 500}) {
            decade_step = s;
            int first = static_cast<int>(std::ceil(static_cast<double>(k0) / s)) * s;
            int labelled = first > k1 ? 0 : (k1 - first) / s + 1;
            if (labelled <= max_count) break;
        }
        auto is_major = [&](int k) { return ((k % decade_step) + decade_step) % decade_step == 0; };
        int k_lo = k1, k_hi = k0;
        for (int k = k0; k <= k1; ++k)
            if (is_major(k)) k_lo = std::min(k_lo, k), k_hi = std::max(k_hi, k);
        bool plain = plain_fits(k_lo, k_hi);
        // Only two decades labelled: add 2x and 5x labels when they still fit the count.
        bool label_2_5 = decade_step == 1 && decades == 2;
        if (label_2_5) {
            int count = 0;
            for (int k = k0 - 1; k <= k1; ++k)
                for (double m : {1.0, 2.0, 5.0}) count += inside(decimal(m, k)) ? 1 : 0;
            label_2_5 = count <= max_count;
        }
        for (int k = static_cast<int>(std::floor(lmin)); k <= k1; ++k) {
            double power = decimal(1.0, k);
            if (inside(power)) {
                if (is_major(k))
                    ticks.push_back({power, log_label(power, 1.0, k, plain, request), true});
                else
                    ticks.push_back({power, "", false});  // a skipped decade: sparse, so always marked
            }
            if (decade_step != 1) continue;
            for (int m = 2; m <= 9; ++m) {
                double v = decimal(m, k);
                if (!inside(v)) continue;
                bool labelled = label_2_5 && (m == 2 || m == 5);
                if (labelled)
                    ticks.push_back({v, log_label(v, m, k, plain, request), true});
                else if (request.minor)
                    ticks.push_back({v, "", false});
            }
        }
        return ticks;
    }

    // Less than two powers of ten inside: label the 1-2-5 values if there are at least two.
    std::vector<std::pair<double, int>> one_two_five;  // (m, k)
    for (int k = static_cast<int>(std::floor(lmin)); k <= static_cast<int>(std::floor(lmax)); ++k)
        for (double m : {1.0, 2.0, 5.0})
            if (inside(decimal(m, k))) one_two_five.push_back({m, k});
    if (one_two_five.size() >= 2 && static_cast<int>(one_two_five.size()) <= max_count) {
        int k_lo = one_two_five.front().second, k_hi = one_two_five.back().second;
        bool plain = plain_fits(k_lo, k_hi);
        for (int k = static_cast<int>(std::floor(lmin)); k <= static_cast<int>(std::floor(lmax)); ++k) {
            for (int m = 1; m <= 9; ++m) {
                double v = decimal(m, k);
                if (!inside(v)) continue;
                if (m == 1 || m == 2 || m == 5)
                    ticks.push_back({v, log_label(v, m, k, plain, request), true});
                else if (request.minor)
                    ticks.push_back({v, "", false});
            }
        }
        return ticks;
    }

    // Inside one decade: linear ticks read best.
    return linear_ticks(range, request);
}

std::vector<Tick> make_ticks(Scale scale, Range range, const TickRequest& request) {
    return scale == Scale::Log10 ? log_ticks(range, request) : linear_ticks(range, request);
}

// [SECTION] Ranges --------------------------------------------------------------------------

void Extent::include(double value, Scale scale) {
    if (!std::isfinite(value) || std::fabs(value) > kLargestPlottable) return;
    if (scale == Scale::Log10 && !(value >= kSmallestLogPlottable)) return;
    if (empty) {
        min = max = value;
        empty = false;
        return;
    }
    min = std::min(min, value);
    max = std::max(max, value);
}

namespace {

Range auto_linear(const Extent& extent, const RangeRequest& request) {
    if (extent.empty) return {0.0, 1.0};
    double lo = extent.min;
    double hi = extent.max;
    if (request.include_zero) {
        lo = std::min(lo, 0.0);
        hi = std::max(hi, 0.0);
    }
    double padding = std::clamp(std::isfinite(request.padding) ? request.padding : 0.0, 0.0, 1.0);
    double magnitude = std::max(std::fabs(lo), std::fabs(hi));
    if (hi - lo <= 1e-12 * magnitude || hi == lo) {
        // One value (or all equal): a band of +-10% around it, [0, 1] for zero.
        if (lo == 0.0) return request.include_zero ? Range{0.0, 1.0} : Range{-1.0, 1.0};
        double half = 0.1 * std::fabs(lo);
        return {lo - half, hi + half};
    }
    double pad = padding * (hi - lo);
    if (!(request.include_zero && lo == 0.0)) lo -= pad;
    if (!(request.include_zero && hi == 0.0)) hi += pad;
    return {lo, hi};
}

Range auto_log(const Extent& extent, const RangeRequest& request) {
    if (extent.empty) return {1.0, 10.0};
    double ulo = std::log10(extent.min);
    double uhi = std::log10(extent.max);
    double padding = std::clamp(std::isfinite(request.padding) ? request.padding : 0.0, 0.0, 1.0);
    if (uhi - ulo >= 1e-12 && padding == 0.0) return {extent.min, extent.max};  // exact ends, no pow round trip
    if (uhi - ulo < 1e-12) {
        ulo -= 0.5;  // one value: the decade around it
        uhi += 0.5;
    } else {
        double pad = padding * (uhi - ulo);
        ulo -= pad;
        uhi += pad;
    }
    return {std::pow(10.0, std::max(ulo, -300.0)), std::pow(10.0, std::min(uhi, 300.0))};
}

bool usable_end(const std::optional<double>& end, Scale scale) {
    return end && std::isfinite(*end) && std::fabs(*end) <= kLargestPlottable &&
           (scale == Scale::Linear || *end >= kSmallestLogPlottable);
}

// A far end for a range that has only one usable end.
double beyond(double end, Scale scale, double direction) {
    if (scale == Scale::Log10) return direction > 0 ? end * 10.0 : end / 10.0;
    double step = end == 0.0 ? 1.0 : std::fabs(end);
    return end + direction * step;
}

}  // namespace

Range resolve_range(const Extent& extent, Scale scale, const RangeRequest& request) {
    Range automatic = scale == Scale::Log10 ? auto_log(extent, request) : auto_linear(extent, request);
    bool has_min = usable_end(request.fixed_min, scale);
    bool has_max = usable_end(request.fixed_max, scale);
    Range r = automatic;
    if (has_min) r.min = *request.fixed_min;
    if (has_max) r.max = *request.fixed_max;
    if (is_drawable(r, scale)) return r;
    // Fixed ends that contradict each other or the data: keep the fixed one(s) that can stand.
    if (has_min && has_max) {  // min >= max: both fixed but unusable together
        r = automatic;
    } else if (has_min) {
        r.max = beyond(r.min, scale, +1.0);
    } else if (has_max) {
        r.min = beyond(r.max, scale, -1.0);
    }
    return is_drawable(r, scale) ? r : (scale == Scale::Log10 ? Range{1.0, 10.0} : Range{0.0, 1.0});
}

// [SECTION] Transform -----------------------------------------------------------------------

Transform::Transform(Scale scale, Range data, double pixel_from, double pixel_to)
    : scale_(scale), pixel_from_(pixel_from), pixel_to_(pixel_to) {
    if (!is_drawable(data, scale)) data = scale == Scale::Log10 ? Range{1.0, 10.0} : Range{0.0, 1.0};
    data_ = data;
    lo_ = scale == Scale::Log10 ? std::log10(data.min) : data.min;
    hi_ = scale == Scale::Log10 ? std::log10(data.max) : data.max;
}

double Transform::to_pixel(double value) const {
    if (!std::isfinite(value)) return kNaN;
    double u = value;
    if (scale_ == Scale::Log10) {
        if (!(value > 0.0)) return kNaN;
        u = std::log10(value);
    }
    double t = (u - lo_) / (hi_ - lo_);
    return pixel_from_ + t * (pixel_to_ - pixel_from_);
}

double Transform::to_data(double pixel) const {
    double pixel_span = pixel_to_ - pixel_from_;
    if (pixel_span == 0.0 || !std::isfinite(pixel)) return data_.min;
    double u = lo_ + (pixel - pixel_from_) / pixel_span * (hi_ - lo_);
    return scale_ == Scale::Log10 ? std::pow(10.0, u) : u;
}

}  // namespace kl::plot
