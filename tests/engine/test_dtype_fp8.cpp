// The host's fp8 e4m3 conversions (dtype.h): every one of the 256 codes decodes to the value the
// format defines and encodes back to itself; rounding is to nearest even; out-of-range values
// saturate to +-448 (cvt.satfinite, as the device's __nv_fp8_e4m3 does); NaN stays NaN.
#include <gtest/gtest.h>

#include <cmath>

#include "model/dtype.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_dtype_fp8 {

TEST(DtypeFp8, EveryCodeDecodesAndEncodesBack) {
    for (int b = 0; b < 256; ++b) {
        const float f = kl::e4m3_to_float(static_cast<uint8_t>(b));
        if ((b & 0x7F) == 0x7F) {
            EXPECT_TRUE(std::isnan(f)) << b;
            continue;
        }
        const uint8_t back = kl::float_to_e4m3(f);
        // +0 and -0 are two codes of one value; every other code is its own value.
        EXPECT_EQ(back, static_cast<uint8_t>(b)) << "code " << b << " value " << f;
    }
}

TEST(DtypeFp8, KnownValuesRoundingAndSaturation) {
    EXPECT_EQ(kl::e4m3_to_float(0x7E), 448.0f);               // largest finite
    EXPECT_EQ(kl::e4m3_to_float(0x08), std::ldexp(1.f, -6));  // smallest normal
    EXPECT_EQ(kl::e4m3_to_float(0x01), std::ldexp(1.f, -9));  // smallest subnormal
    EXPECT_EQ(kl::e4m3_to_float(0x38), 1.0f);
    EXPECT_EQ(kl::float_to_e4m3(1.0625f), 0x38);  // halfway between 1 and 1.125: to even (1)
    EXPECT_EQ(kl::float_to_e4m3(1.1875f), 0x3A);  // halfway between 1.125 and 1.25: to even (1.25)
    EXPECT_EQ(kl::float_to_e4m3(1000.f), 0x7E);   // saturates
    EXPECT_EQ(kl::float_to_e4m3(-1e9f), 0xFE);
    EXPECT_EQ(kl::float_to_e4m3(std::nanf("")), 0x7F);
    EXPECT_EQ(kl::dtype_size(kl::DType::E4M3), 1);
    EXPECT_EQ(kl::parse_dtype("fp8e4m3"), kl::DType::E4M3);
    EXPECT_EQ(kl::to_string(kl::DType::E4M3), "fp8e4m3");
}

}  // namespace kl_test_dtype_fp8
