#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "base/errors.h"
#include "base/stats.h"
#include "model/compare.h"
#include "model/dtype.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_stats_compare {

TEST(Stats, MedianMinMaxSpread) {
    auto s = kl::summarize({5, 1, 3, 2, 4});
    EXPECT_DOUBLE_EQ(s.median_ms, 3);
    EXPECT_DOUBLE_EQ(s.min_ms, 1);
    EXPECT_DOUBLE_EQ(s.max_ms, 5);
    EXPECT_DOUBLE_EQ(s.mean_ms, 3);
    EXPECT_EQ(s.reps, 5);
    EXPECT_NEAR(s.rel_spread, (4.6 - 1.4) / 3, 1e-12);
    auto even = kl::summarize({1, 2, 3, 4});
    EXPECT_DOUBLE_EQ(even.median_ms, 2.5);
    EXPECT_THROW(kl::summarize({}), kl::InputError);
}

TEST(Compare, PassesWithinToleranceOnly) {
    kl::Tolerance tol{1e-6, 1e-5};
    std::vector<float> ref = {1.f, -2.f, 0.f, 1000.f};
    auto ok = kl::compare_outputs({1.000005f, -2.00001f, 5e-7f, 1000.005f}, ref, tol);
    EXPECT_TRUE(ok.passed) << ok.summary();
    auto bad = kl::compare_outputs({1.0001f, -2.f, 0.f, 1000.f}, ref, tol);
    EXPECT_FALSE(bad.passed);
    EXPECT_EQ(bad.mismatches, 1);
    ASSERT_EQ(bad.first_mismatches.size(), 1u);
    EXPECT_EQ(bad.first_mismatches[0].index, 0);
}

TEST(Compare, NaNNeverPassesAndCountsAsUnwritten) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    kl::Tolerance loose{1e30, 1e30};
    auto c = kl::compare_outputs({nan, 1.f}, {1.f, 1.f}, loose);
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.unwritten, 1);
    EXPECT_EQ(c.nan_count, 1);
    auto both = kl::compare_outputs({nan}, {nan}, loose);
    EXPECT_FALSE(both.passed) << "NaN in the reference and the output must not pass";
}

TEST(Compare, RelativeL2AndErrorMap) {
    std::vector<float> ref(100 * 100, 1.f), out = ref;
    for (int r = 90; r < 100; ++r)
        for (int c = 0; c < 100; ++c) out[r * 100 + c] = 2.f;  // last ten rows wrong: an edge tile
    auto c = kl::compare_outputs(out, ref, {0, 1e-6}, {100, 100});
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.mismatches, 1000);
    EXPECT_NEAR(c.rel_l2, std::sqrt(1000.0 / 10000.0), 1e-9);
    ASSERT_EQ(c.error_map.rows, 64);
    ASSERT_EQ(c.error_map.cols, 64);
    EXPECT_EQ(c.error_map.fraction_bad[0], 0.f);
    EXPECT_EQ(c.error_map.fraction_bad[63 * 64], 1.f) << "bottom-left cell must show the bad rows";
}

TEST(Dtype, RoundTripsAndRounding) {
    EXPECT_EQ(kl::bf16_to_float(kl::float_to_bf16(1.5f)), 1.5f);
    EXPECT_EQ(kl::half_to_float(kl::float_to_half(-0.25f)), -0.25f);
    EXPECT_EQ(kl::half_to_float(kl::float_to_half(65504.f)), 65504.f);
    EXPECT_TRUE(std::isinf(kl::half_to_float(kl::float_to_half(1e6f))));
    EXPECT_EQ(kl::bf16_to_float(kl::float_to_bf16(1.0f + 1.0f / 512)), 1.0f) << "ties round to even";
    EXPECT_TRUE(std::isnan(kl::bf16_to_float(kl::float_to_bf16(std::nanf("")))));
    EXPECT_EQ(kl::dtype_size(kl::DType::BF16), 2);
    EXPECT_EQ(kl::parse_dtype("fp32"), kl::DType::F32);
    EXPECT_FALSE(kl::parse_dtype("int7").has_value());
}

}  // namespace kl_test_stats_compare
