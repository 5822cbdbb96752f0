// The memory roof of a read:write mix (model/roof.h): the best calibration kernel at each mix,
// interpolated between mixes; operations' mixes from their buffers; the flag for a correct run
// above its roof by more than its spread; the calibration's points through the results file.
#include <gtest/gtest.h>

#include <limits>

#include "base/errors.h"
#include "model/operation.h"
#include "model/results_json.h"
#include "model/roof.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_roof {

namespace {

// An H200-like calibration: reads stream faster than writes, a copy in between.
const std::vector<kl::BandwidthPoint> kPoints = {
    {"memcpy", 0.5, 4190}, {"copy", 0.5, 4150}, {"add", 2.0 / 3.0, 4380}, {"read", 1.0, 4600}, {"write", 0.0, 3900}};

TEST(Roof, TheBestKernelAtEachMixInterpolatedBetween) {
    EXPECT_DOUBLE_EQ(kl::memory_roof_gbps(kPoints, 0.5), 4190) << "memcpy beats the copy kernel at 1:1";
    EXPECT_DOUBLE_EQ(kl::memory_roof_gbps(kPoints, 2.0 / 3.0), 4380);
    EXPECT_DOUBLE_EQ(kl::memory_roof_gbps(kPoints, 1.0), 4600);
    EXPECT_DOUBLE_EQ(kl::memory_roof_gbps(kPoints, 0.0), 3900);
    EXPECT_NEAR(kl::memory_roof_gbps(kPoints, 0.25), (3900 + 4190) / 2.0, 1e-9);
    EXPECT_NEAR(kl::memory_roof_gbps(kPoints, 5.0 / 6.0), (4380 + 4600) / 2.0, 1e-9);
    EXPECT_DOUBLE_EQ(kl::memory_roof_gbps(kPoints, 1.7), 4600) << "a mix is clamped to 0..1";
    EXPECT_DOUBLE_EQ(kl::memory_roof_gbps({{"copy", 0.5, 4000}}, 0.9), 4000) << "the nearest point outside";
    EXPECT_EQ(kl::memory_roof_gbps({}, 0.5), 0) << "no calibration, no roof";
}

TEST(Roof, AnOperationsMixComesFromItsBuffers) {
    using Role = kl::BufferDecl::Role;
    const int64_t n = 1 << 20;
    EXPECT_NEAR(kl::read_fraction_of({{"a", kl::DType::F32, n, Role::Input},
                                      {"b", kl::DType::F32, n, Role::Input},
                                      {"c", kl::DType::F32, n, Role::Output}}),
                2.0 / 3.0, 1e-12);
    // Mixed widths count bytes, not elements: bf16 in, fp32 out.
    EXPECT_NEAR(kl::read_fraction_of({{"x", kl::DType::BF16, n, Role::Input}, {"y", kl::DType::F32, n, Role::Output}}),
                1.0 / 3.0, 1e-12);
    EXPECT_EQ(kl::read_fraction_of({}), 0.5);
    // vector_add reads two and writes one: its roof is the 2:1 kernel's, not the copy's.
    const kl::Operation* add = kl::find_operation("vector_add");
    ASSERT_NE(add, nullptr);
    kl::Problem p;
    p.sizes = {{"n", n}};
    EXPECT_NEAR(kl::read_fraction_of(add->buffers(p)), 2.0 / 3.0, 1e-12);
}

TEST(Roof, AboveTheRoofMeansBeyondTheSpread) {
    EXPECT_FALSE(kl::above_roof(4371, 4380, 0.01));
    EXPECT_FALSE(kl::above_roof(4400, 4380, 0.01)) << "within 1% spread: a tie with the roof";
    EXPECT_TRUE(kl::above_roof(4500, 4380, 0.01));
    EXPECT_TRUE(kl::above_roof(4381, 4380, 0.0));
    EXPECT_FALSE(kl::above_roof(1e9, 0, 0.0)) << "no roof measured, nothing flagged";
}

TEST(Roof, CalibrationPointsTravelInTheResultsFile) {
    kl::Calibration c;
    c.device_uuid = "GPU-x";
    c.copy_gbps = 4190;
    c.sgemm_tflops = 50;
    c.bf16_tflops = 700;
    c.bandwidth = kPoints;
    const kl::Calibration back = kl::calibration_from_json(kl::to_json(c), "t.json");
    ASSERT_EQ(back.bandwidth.size(), kPoints.size());
    for (size_t i = 0; i < kPoints.size(); ++i) {
        EXPECT_EQ(back.bandwidth[i].kernel, kPoints[i].kernel);
        EXPECT_DOUBLE_EQ(back.bandwidth[i].read_fraction, kPoints[i].read_fraction);
        EXPECT_DOUBLE_EQ(back.bandwidth[i].gbps, kPoints[i].gbps);
    }
    // A calibration without points (files of 2026-11-29 and before) reads with no roof.
    nlohmann::json old = kl::to_json(c);
    old.erase("bandwidth");
    EXPECT_TRUE(kl::calibration_from_json(old, "old.json").bandwidth.empty());
    // Hostile points: one line naming the field.
    auto refusal = [&](nlohmann::json points) {
        nlohmann::json j = kl::to_json(c);
        j["bandwidth"] = std::move(points);
        try {
            kl::calibration_from_json(j, "bad.json");
        } catch (const kl::InputError& e) { return std::string(e.what()); }
        return std::string();
    };
    EXPECT_NE(refusal({{{"kernel", "read"}, {"read_fraction", 1.5}, {"gbps", 1}}}).find("bandwidth[0].read_fraction"),
              std::string::npos);
    EXPECT_NE(refusal({{{"kernel", "read"}, {"read_fraction", 1}, {"gbps", -1}}}).find("bandwidth[0].gbps"),
              std::string::npos);
    EXPECT_NE(refusal(nlohmann::json::array({1, 2})).find("bandwidth[0]"), std::string::npos);
    EXPECT_NE(refusal(nlohmann::json(std::vector<int>(17, 0))).find("at most 16"), std::string::npos);
    EXPECT_NE(refusal("fast").find("calibration.bandwidth"), std::string::npos);
}

}  // namespace

// A calibration taken under compute-sanitizer on an H200 (2026-11-30): cudaMemcpy at full speed,
// the streaming kernels at a fifteenth of it. Not a roof; an undisturbed one (the same call) is.
TEST(Roof, PointsSlowedByAToolAreNotPlausible) {
    const std::vector<kl::BandwidthPoint> under_tool = {{"memcpy", 0.5, 4206.7},
                                                        {"copy", 0.5, 274.9},
                                                        {"add", 2.0 / 3.0, 375.0},
                                                        {"read", 1.0, 282.3},
                                                        {"write", 0.0, 260.2}};
    const std::vector<kl::BandwidthPoint> plain = {{"memcpy", 0.5, 4272.0},
                                                   {"copy", 0.5, 4300.0},
                                                   {"add", 2.0 / 3.0, 4407.0},
                                                   {"read", 1.0, 4575.0},
                                                   {"write", 0.0, 4669.0}};
    EXPECT_FALSE(kl::roof_points_plausible(under_tool));
    EXPECT_TRUE(kl::roof_points_plausible(plain));
    EXPECT_TRUE(kl::roof_points_plausible({}));                      // nothing measured: nothing to refuse
    EXPECT_TRUE(kl::roof_points_plausible({{"copy", 0.5, 100.0}}));  // no memcpy point to compare with
    EXPECT_FALSE(kl::roof_points_plausible({{"memcpy", 0.5, 1000.0}, {"copy", 0.5, 499.0}}));
    EXPECT_TRUE(kl::roof_points_plausible({{"memcpy", 0.5, 1000.0}, {"copy", 0.5, 500.0}}));
}

}  // namespace kl_test_roof
