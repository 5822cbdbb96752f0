#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "plot/ticks.h"

namespace kl::plot {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> values(const std::vector<Tick>& ticks, bool major_only = true) {
    std::vector<double> out;
    for (const Tick& t : ticks)
        if (t.major || !major_only) out.push_back(t.value);
    return out;
}

std::vector<std::string> labels(const std::vector<Tick>& ticks) {
    std::vector<std::string> out;
    for (const Tick& t : ticks)
        if (!t.label.empty()) out.push_back(t.label);
    return out;
}

std::vector<double> minors(const std::vector<Tick>& ticks) {
    std::vector<double> out;
    for (const Tick& t : ticks)
        if (!t.major) out.push_back(t.value);
    return out;
}

// [SECTION] Number formatting

TEST(FormatFixed, GroupsThousandsAndNeverPrintsMinusZero) {
    EXPECT_EQ(format_fixed(2850, 0), "2,850");
    EXPECT_EQ(format_fixed(2850, 0, false), "2850");
    EXPECT_EQ(format_fixed(1234567.891, 2), "1,234,567.89");
    EXPECT_EQ(format_fixed(-1234, 0), "-1,234");
    EXPECT_EQ(format_fixed(999, 0), "999");
    EXPECT_EQ(format_fixed(-0.0001, 2), "0.00");
    EXPECT_EQ(format_fixed(-0.0, 0), "0");
    EXPECT_EQ(format_fixed(0.25, 2), "0.25");
    EXPECT_EQ(format_fixed(kNaN, 2), "NaN");
    EXPECT_EQ(format_fixed(-kInf, 2), "-inf");
}

TEST(FormatValue, ReadsLikeAPersonWouldWriteIt) {
    EXPECT_EQ(format_value(2850), "2,850");
    EXPECT_EQ(format_value(3007.4), "3,007");
    EXPECT_EQ(format_value(0.25), "0.25");
    EXPECT_EQ(format_value(1e-6), "1e-6");
    EXPECT_EQ(format_value(2.5e-6), "2.5e-6");
    EXPECT_EQ(format_value(12.345), "12.3");
    EXPECT_EQ(format_value(999.7), "1,000");
    EXPECT_EQ(format_value(0.001), "0.001");
    EXPECT_EQ(format_value(-0.5), "-0.5");
    EXPECT_EQ(format_value(0.0), "0");
    EXPECT_EQ(format_value(1e15), "1e15");
    EXPECT_EQ(format_value(50.7, 3), "50.7");
    EXPECT_EQ(format_value(728, 2), "728");  // whole numbers keep all their digits
    EXPECT_EQ(format_value(kNaN), "NaN");
    EXPECT_EQ(format_value(kInf), "inf");
}

TEST(FormatPowers, SuperscriptsSiAndExponents) {
    EXPECT_EQ(format_power_of_ten(-6), "10⁻⁶");
    EXPECT_EQ(format_power_of_ten(3), "10³");
    EXPECT_EQ(format_power_of_ten(0), "10⁰");
    EXPECT_EQ(format_power_of_ten(12), "10¹²");
    EXPECT_EQ(format_si(2500000, 1), "2.5M");
    EXPECT_EQ(format_si(1000, 0), "1k");
    EXPECT_EQ(format_si(999960, 1), "1M");
    EXPECT_EQ(format_si(3e9, 0), "3G");
    EXPECT_EQ(format_si(512, 0), "512");
    EXPECT_EQ(format_exponent(2.5e-6, 1), "2.5e-6");
    EXPECT_EQ(format_exponent(1e5, 0), "1e5");
    EXPECT_EQ(format_exponent(-3e-3, 2), "-3e-3");
}

// [SECTION] Linear ticks

TEST(NiceStep, ClimbsTheOneTwoFiveLadder) {
    EXPECT_DOUBLE_EQ(nice_step_at_least(0.13), 0.2);
    EXPECT_DOUBLE_EQ(nice_step_at_least(3), 5);
    EXPECT_DOUBLE_EQ(nice_step_at_least(7), 10);
    EXPECT_DOUBLE_EQ(nice_step_at_least(1), 1);
    EXPECT_DOUBLE_EQ(nice_step_at_least(0.001), 0.001);
    EXPECT_DOUBLE_EQ(nice_step_at_least(2.0000001), 5);
    EXPECT_DOUBLE_EQ(nice_step_at_least(0), 1);  // nonsense in, a usable step out
}

TEST(LinearTicks, UnitRangeInFifths) {
    auto ticks = linear_ticks({0, 1}, {});
    EXPECT_EQ(values(ticks), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0}));
    EXPECT_EQ(labels(ticks), (std::vector<std::string>{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}));
}

TEST(LinearTicks, BandwidthAxisWithThousands) {
    auto ticks = linear_ticks({0, 3157}, {});
    EXPECT_EQ(labels(ticks), (std::vector<std::string>{"0", "500", "1,000", "1,500", "2,000", "2,500", "3,000"}));
    TickRequest plain;
    plain.thousands = false;
    EXPECT_EQ(labels(linear_ticks({0, 3157}, plain))[2], "1000");
}

TEST(LinearTicks, DecimalValuesAreExactDecimals) {
    auto ticks = linear_ticks({0.1, 0.7}, {});
    ASSERT_EQ(ticks.size(), 7u);
    EXPECT_EQ(ticks[2].value, 0.3);  // not 0.30000000000000004
    EXPECT_EQ(ticks[6].value, 0.7);
    EXPECT_EQ(labels(ticks), (std::vector<std::string>{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"}));
}

TEST(LinearTicks, SymmetricRangeHasAPlainZero) {
    auto ticks = linear_ticks({-1, 1}, {});
    EXPECT_EQ(labels(ticks), (std::vector<std::string>{"-1.0", "-0.5", "0.0", "0.5", "1.0"}));
    EXPECT_FALSE(std::signbit(ticks[2].value));
}

TEST(LinearTicks, TinyAndHugeValuesUseExponents) {
    EXPECT_EQ(labels(linear_ticks({0, 4e-6}, {})), (std::vector<std::string>{"0", "1e-6", "2e-6", "3e-6", "4e-6"}));
    EXPECT_EQ(labels(linear_ticks({0, 4e9}, {})), (std::vector<std::string>{"0", "1e9", "2e9", "3e9", "4e9"}));
    auto half_steps = labels(linear_ticks({1e-6, 3.6e-6}, {}));
    EXPECT_EQ(half_steps.front(), "1e-6");
    EXPECT_EQ(half_steps[1], "1.5e-6");
}

TEST(LinearTicks, SiStyle) {
    TickRequest si;
    si.style = NumberStyle::Si;
    EXPECT_EQ(labels(linear_ticks({0, 3e6}, si)),
              (std::vector<std::string>{"0", "500k", "1M", "1.5M", "2M", "2.5M", "3M"}));
}

TEST(LinearTicks, TwoAndAHalfOnlyWhenOneTwoFiveSkipsTheBand) {
    // 17.5 units: step 2 gives 9 ticks, step 5 gives 3; step 2.5 gives 7.
    auto ticks = linear_ticks({-79.26, -61.78}, {});
    EXPECT_EQ(labels(ticks), (std::vector<std::string>{"-77.5", "-75.0", "-72.5", "-70.0", "-67.5", "-65.0", "-62.5"}));
    auto quarter = linear_ticks({0.01, 0.99}, {});  // steps 0.1 (9 ticks) or 0.2 (4): 1-2-5 fits, no 2.5
    EXPECT_EQ(labels(quarter), (std::vector<std::string>{"0.2", "0.4", "0.6", "0.8"}));
}

TEST(LinearTicks, HonoursTheCountLimits) {
    TickRequest few;
    few.min_count = 2;
    few.max_count = 3;
    auto ticks = linear_ticks({0, 100}, few);
    EXPECT_LE(ticks.size(), 3u);
    EXPECT_GE(ticks.size(), 2u);
}

TEST(LinearTicks, RandomRangesGiveFourToEightSortedInsideTicks) {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> exponent(-8, 8), unit(-1, 1);
    for (int i = 0; i < 2000; ++i) {
        double scale = std::pow(10.0, exponent(rng));
        double a = unit(rng) * scale, b = unit(rng) * scale;
        if (a == b) continue;
        Range r{std::min(a, b), std::max(a, b)};
        auto ticks = linear_ticks(r, {});
        ASSERT_GE(ticks.size(), 4u) << r.min << " .. " << r.max;
        ASSERT_LE(ticks.size(), 8u) << r.min << " .. " << r.max;
        for (size_t k = 0; k < ticks.size(); ++k) {
            EXPECT_GE(ticks[k].value, r.min - 1e-9 * r.span());
            EXPECT_LE(ticks[k].value, r.max + 1e-9 * r.span());
            if (k > 0) {
                EXPECT_LT(ticks[k - 1].value, ticks[k].value);
                EXPECT_NE(ticks[k - 1].label, ticks[k].label) << "labels must tell ticks apart";
            }
        }
    }
}

TEST(LinearTicks, UndrawableRangesGiveNoTicks) {
    EXPECT_TRUE(linear_ticks({1, 1}, {}).empty());
    EXPECT_TRUE(linear_ticks({2, 1}, {}).empty());
    EXPECT_TRUE(linear_ticks({kNaN, 1}, {}).empty());
    EXPECT_TRUE(linear_ticks({0, kInf}, {}).empty());
    EXPECT_TRUE(linear_ticks({1e9, 1e9 + 1e-7}, {}).empty());  // below double resolution
}

// [SECTION] Log ticks

TEST(LogTicks, DecadesWithPlainLabelsAndMinors) {
    auto ticks = log_ticks({1, 1000}, {});
    EXPECT_EQ(values(ticks), (std::vector<double>{1, 10, 100, 1000}));
    EXPECT_EQ(labels(ticks), (std::vector<std::string>{"1", "10", "100", "1,000"}));
    auto m = minors(ticks);
    EXPECT_EQ(m.size(), 24u);  // 2..9 in three decades
    EXPECT_NE(std::find(m.begin(), m.end(), 20.0), m.end());
    EXPECT_NE(std::find(m.begin(), m.end(), 500.0), m.end());
}

TEST(LogTicks, WideRangesUseSuperscriptPowers) {
    EXPECT_EQ(labels(log_ticks({1e-9, 1e-3}, {})),
              (std::vector<std::string>{"10⁻⁹", "10⁻⁸", "10⁻⁷", "10⁻⁶", "10⁻⁵", "10⁻⁴", "10⁻³"}));
    EXPECT_EQ(labels(log_ticks({1, 1e6}, {})).back(), "10⁶");
}

TEST(LogTicks, TooManyDecadesSkipSome) {
    auto ticks = log_ticks({1, 1e20}, {});
    EXPECT_EQ(values(ticks), (std::vector<double>{1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18}));
    for (double v : minors(ticks)) {  // the skipped decades, never 2..9 multiples
        double k = std::log10(v);
        EXPECT_NEAR(k, std::round(k), 1e-9);
    }
}

TEST(LogTicks, TwoDecadesAlsoLabelTwosAndFives) {
    EXPECT_EQ(labels(log_ticks({50, 5000}, {})),
              (std::vector<std::string>{"50", "100", "200", "500", "1,000", "2,000", "5,000"}));
}

TEST(LogTicks, WithinOneDecade) {
    auto ticks = log_ticks({200, 900}, {});
    EXPECT_EQ(labels(ticks), (std::vector<std::string>{"200", "500"}));
    EXPECT_EQ(minors(ticks), (std::vector<double>{300, 400, 600, 700, 800, 900}));
    // No 1-2-5 value inside: linear ticks.
    EXPECT_EQ(labels(log_ticks({300, 400}, {})), (std::vector<std::string>{"300", "320", "340", "360", "380", "400"}));
}

TEST(LogTicks, Styles) {
    TickRequest si;
    si.style = NumberStyle::Si;
    si.max_count = 8;
    EXPECT_EQ(labels(log_ticks({1e3, 1e9}, si)),
              (std::vector<std::string>{"1k", "10k", "100k", "1M", "10M", "100M", "1G"}));
    TickRequest e;
    e.style = NumberStyle::Exponent;
    EXPECT_EQ(labels(log_ticks({1e-3, 1e-1}, e)).front(), "1e-3");
    TickRequest plain;
    plain.style = NumberStyle::Plain;
    EXPECT_EQ(labels(log_ticks({1, 1e6}, plain)).back(), "1,000,000");
    TickRequest power;
    power.style = NumberStyle::Power;
    EXPECT_EQ(labels(log_ticks({1, 100}, power)).front(), "10⁰");
}

TEST(LogTicks, UndrawableRangesGiveNoTicks) {
    EXPECT_TRUE(log_ticks({0, 10}, {}).empty());
    EXPECT_TRUE(log_ticks({-1, 10}, {}).empty());
    EXPECT_TRUE(log_ticks({10, 10}, {}).empty());
    EXPECT_TRUE(log_ticks({kNaN, 10}, {}).empty());
}

// [SECTION] Ranges

Range range_of(std::vector<double> data, Scale scale, RangeRequest request = {}) {
    Extent e;
    for (double v : data) e.include(v, scale);
    return resolve_range(e, scale, request);
}

TEST(ResolveRange, EmptyAndNonFiniteData) {
    Range r = range_of({}, Scale::Linear);
    EXPECT_EQ(r.min, 0);
    EXPECT_EQ(r.max, 1);
    r = range_of({kNaN, kInf, -kInf}, Scale::Linear);
    EXPECT_EQ(r.min, 0);
    EXPECT_EQ(r.max, 1);
    r = range_of({kNaN, 0, -5}, Scale::Log10);  // nothing positive
    EXPECT_EQ(r.min, 1);
    EXPECT_EQ(r.max, 10);
    r = range_of({1e308, -1e308}, Scale::Linear);  // beyond what can be padded
    EXPECT_TRUE(is_drawable(r, Scale::Linear));
}

TEST(ResolveRange, SingleValueGetsABand) {
    Range r = range_of({5, 5, 5}, Scale::Linear);
    EXPECT_DOUBLE_EQ(r.min, 4.5);
    EXPECT_DOUBLE_EQ(r.max, 5.5);
    r = range_of({0}, Scale::Linear);
    EXPECT_EQ(r.min, -1);
    EXPECT_EQ(r.max, 1);
    r = range_of({0}, Scale::Linear, {0.05, true, {}, {}});
    EXPECT_EQ(r.min, 0);
    EXPECT_EQ(r.max, 1);
    r = range_of({100}, Scale::Log10);
    EXPECT_NEAR(std::log10(r.min), 1.5, 1e-12);
    EXPECT_NEAR(std::log10(r.max), 2.5, 1e-12);
}

TEST(ResolveRange, PaddingAndZero) {
    Range r = range_of({1, 3}, Scale::Linear);
    EXPECT_DOUBLE_EQ(r.min, 0.9);
    EXPECT_DOUBLE_EQ(r.max, 3.1);
    r = range_of({2, 10}, Scale::Linear, {0.05, true, {}, {}});
    EXPECT_EQ(r.min, 0);  // bars start at zero, no padding below it
    EXPECT_DOUBLE_EQ(r.max, 10.5);
    r = range_of({10, 1000, 0, -1}, Scale::Log10);
    EXPECT_NEAR(std::log10(r.min), 0.9, 1e-12);
    EXPECT_NEAR(std::log10(r.max), 3.1, 1e-12);
}

TEST(ResolveRange, FixedEnds) {
    Range r = range_of({5, 10}, Scale::Linear, {0.05, false, 0.0, {}});
    EXPECT_EQ(r.min, 0);
    EXPECT_DOUBLE_EQ(r.max, 10.25);
    r = range_of({5, 10}, Scale::Linear, {0.05, false, {}, 1.0});  // max below all data
    EXPECT_TRUE(is_drawable(r, Scale::Linear));
    EXPECT_EQ(r.max, 1);
    r = range_of({5, 10}, Scale::Linear, {0.05, false, 8.0, 2.0});  // contradictory: data wins
    EXPECT_DOUBLE_EQ(r.min, 4.75);
    EXPECT_DOUBLE_EQ(r.max, 10.25);
    r = range_of({5, 10}, Scale::Log10, {0.0, false, -1.0, 100.0});  // unusable log min ignored
    EXPECT_DOUBLE_EQ(r.min, 5);
    EXPECT_EQ(r.max, 100);
    r = range_of({5, 10}, Scale::Linear, {0.05, false, kNaN, kInf});
    EXPECT_DOUBLE_EQ(r.min, 4.75);
}

// [SECTION] Transform

TEST(TransformTest, LinearRoundTripAndFlippedAxis) {
    Transform t(Scale::Linear, {0, 3000}, 300, 20);  // y axis: data grows upwards
    EXPECT_DOUBLE_EQ(t.to_pixel(0), 300);
    EXPECT_DOUBLE_EQ(t.to_pixel(3000), 20);
    EXPECT_DOUBLE_EQ(t.to_pixel(1500), 160);
    for (double v : {-100.0, 0.0, 1.5, 2850.0, 1e5})
        EXPECT_NEAR(t.to_data(t.to_pixel(v)), v, 1e-9 * std::max(1.0, std::fabs(v)));
    EXPECT_TRUE(std::isnan(t.to_pixel(kNaN)));
    EXPECT_TRUE(std::isnan(t.to_pixel(kInf)));
}

TEST(TransformTest, LogRoundTrip) {
    Transform t(Scale::Log10, {1, 1e4}, 0, 400);
    EXPECT_DOUBLE_EQ(t.to_pixel(100), 200);
    EXPECT_NEAR(t.to_pixel(10), 100, 1e-9);
    for (double v : {1e-3, 1.0, 2.0, 3.7, 1000.0, 1e8}) EXPECT_NEAR(t.to_data(t.to_pixel(v)) / v, 1.0, 1e-12);
    EXPECT_TRUE(std::isnan(t.to_pixel(0)));
    EXPECT_TRUE(std::isnan(t.to_pixel(-5)));
}

TEST(TransformTest, UndrawableRangeFallsBackInsteadOfDividingByZero) {
    Transform t(Scale::Linear, {5, 5}, 0, 100);
    EXPECT_TRUE(std::isfinite(t.to_pixel(5)));
    Transform flat(Scale::Linear, {0, 1}, 50, 50);
    EXPECT_EQ(flat.to_data(50), 0);
}

}  // namespace
}  // namespace kl::plot
