// Ticks, ranges, number labels and the data-to-pixel transform of one axis.
//
// The lowest layer of the plot module: plain functions of numbers, no figure, no drawing.
//
// Index
// [SECTION] Scale, Range, Tick
// [SECTION] Number formatting
// [SECTION] Tick generation
// [SECTION] Ranges from data
// [SECTION] Transform
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kl::plot {

// [SECTION] Scale, Range, Tick ----------------------------------------------------------------

enum class Scale { Linear, Log10 };

// How tick labels spell numbers.
// - Auto: plain ("2,850", "0.25"); powers of ten as 10ⁿ once plain spelling gets long
//   (beyond 10,000 or below 0.001); e-notation ("2e-6") for tiny or huge linear steps.
// - Plain: always positional notation, however long.
// - Si: metric prefixes for values >= 1000 ("1k", "2.5M", "1G"); otherwise as Auto.
// - Power: powers of ten as 10ⁿ (Unicode superscripts); other values as Auto.
// - Exponent: "1e-6", "2.5e3" (for fonts without superscript glyphs).
enum class NumberStyle { Auto, Plain, Si, Power, Exponent };

struct Range {
    double min = 0.0;
    double max = 1.0;
    double span() const { return max - min; }
    bool contains(double v) const { return v >= min && v <= max; }
};

// True when the range can be drawn on the scale: finite, min < max, and min > 0 on log axes.
bool is_drawable(Range range, Scale scale);

struct Tick {
    double value = 0.0;
    std::string label;  // empty for minor ticks
    bool major = true;
};

struct TickRequest {
    int min_count = 4;  // wanted number of labelled ticks (a hint: short axes get fewer)
    int max_count = 8;  // hard limit on labelled ticks
    NumberStyle style = NumberStyle::Auto;
    bool thousands = true;  // "2,850" rather than "2850"
    bool minor = true;      // log axes: minor ticks at 2..9 x 10^k (skipped decades are always marked)
};

// [SECTION] Number formatting --------------------------------------------------------------

// Fixed decimals, optional thousands separators, never "-0": format_fixed(2850, 0) == "2,850".
std::string format_fixed(double value, int decimals, bool thousands = true);

// A value for a reader (annotations, value labels, legend text): `significant` digits (whole
// numbers keep all their digits), trailing zeros dropped, e-notation below 0.001 or from 1e15.
// 2850 -> "2,850",
// 0.25 -> "0.25", 0.000001 -> "1e-6", NaN -> "NaN", infinity -> "inf".
std::string format_value(double value, int significant = 3, bool thousands = true);

// Mantissa with `decimals` digits and a plain exponent: format_exponent(2.5e-6, 1) == "2.5e-6".
std::string format_exponent(double value, int mantissa_decimals);

// "10" followed by the exponent in Unicode superscripts: format_power_of_ten(-6) == "10⁻⁶".
std::string format_power_of_ten(int exponent);

// Metric prefix (k, M, G, T, P, E) for |value| >= 1000: format_si(2500000, 1) == "2.5M".
std::string format_si(double value, int decimals);

// [SECTION] Tick generation ----------------------------------------------------------------

// The smallest step of the 1-2-5 ladder (1, 2, 5, 10, 20, ...) that is >= raw (raw > 0).
double nice_step_at_least(double raw);

// Linear ticks inside `range` on a 1-2-5 step: the count in [min_count, max_count] closest to
// their middle; labels share one number of decimals so they never show float noise.
std::vector<Tick> linear_ticks(Range range, const TickRequest& request);

// Log10 ticks inside `range`: majors at powers of ten (every k-th decade when there are more than
// max_count), minors at 2..9 x 10^k. Ranges narrower than two decades label 1-2-5 values, and
// ranges inside one decade fall back to linear ticks.
std::vector<Tick> log_ticks(Range range, const TickRequest& request);

std::vector<Tick> make_ticks(Scale scale, Range range, const TickRequest& request);

// [SECTION] Ranges from data ---------------------------------------------------------------

// The smallest and largest value seen; values the scale cannot show (NaN, infinities, and
// values <= 0 on log axes) are skipped.
struct Extent {
    double min = 0.0;
    double max = 0.0;
    bool empty = true;

    void include(double value, Scale scale);
};

struct RangeRequest {
    double padding = 0.05;            // fraction of the span added at each automatic end
    bool include_zero = false;        // linear only: stretch to 0 and add no padding beyond it
    std::optional<double> fixed_min;  // either end may be fixed; ignored if not drawable
    std::optional<double> fixed_max;
};

// A drawable range for the data, always (empty -> [0, 1] or [1, 10]; one value -> a band around
// it; fixed ends honoured when they make a drawable range with the other end).
Range resolve_range(const Extent& extent, Scale scale, const RangeRequest& request);

// [SECTION] Transform ----------------------------------------------------------------------

// Maps data values on a linear or log10 scale to pixels: data range [min, max] goes to
// [pixel_from, pixel_to] (pixel_from > pixel_to for a y axis growing upwards).
class Transform {
  public:
    Transform() = default;
    Transform(Scale scale, Range data, double pixel_from, double pixel_to);

    // NaN for values the scale cannot place (NaN, infinities, <= 0 on log axes).
    double to_pixel(double value) const;
    double to_data(double pixel) const;

    Scale scale() const { return scale_; }
    Range data() const { return data_; }
    double pixel_from() const { return pixel_from_; }
    double pixel_to() const { return pixel_to_; }

  private:
    Scale scale_ = Scale::Linear;
    Range data_{0.0, 1.0};
    double lo_ = 0.0;  // data_ in scale space (log10 on log axes)
    double hi_ = 1.0;
    double pixel_from_ = 0.0;
    double pixel_to_ = 1.0;
};

}  // namespace kl::plot
