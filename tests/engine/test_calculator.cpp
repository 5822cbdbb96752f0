// Lesson 12's calculator (course/calculator.h): the lecture's worked examples come out, and bad
// inputs are refused naming the field.
#include <gtest/gtest.h>

#include <cmath>

#include "base/errors.h"
#include "course/calculator.h"

namespace {

TEST(Calculator, GemmFlopsAreTwoMNKAndTimeFollowsTheRate) {
    kl::CalculatorInputs in;
    in.M = 4096;
    in.N = 2048;
    in.K = 1024;
    in.gemm_tflops = 500;
    const kl::CalculatorResults r = kl::calculate(in);
    EXPECT_DOUBLE_EQ(r.gemm_flops, 2.0 * 4096 * 2048 * 1024);
    EXPECT_NEAR(r.gemm_seconds, r.gemm_flops / 500e12, 1e-15);
}

TEST(Calculator, Gpt2SmallHas124MillionParameters) {
    kl::CalculatorInputs in;  // the defaults are GPT-2 small: h 768, 12 layers, 50,257 tokens, 1,024 positions
    const kl::CalculatorResults r = kl::calculate(in);
    EXPECT_NEAR(r.total_params / 1e6, 124.4, 0.1);  // the published count, 124,439,808
    EXPECT_DOUBLE_EQ(r.total_params, 124439808.0);
    // A plain block is 12 h^2 plus its biases and norms.
    EXPECT_NEAR(r.block_params / (12.0 * 768 * 768), 1.0, 0.01);
}

TEST(Calculator, GatedMlpUsesThreeMatricesAndAnUntiedHeadAddsVocabTimesH) {
    kl::CalculatorInputs in;
    const double plain = kl::calculate(in).block_mlp_params;
    in.gated_mlp = true;
    EXPECT_NEAR(kl::calculate(in).block_mlp_params / plain, 1.5, 0.01);
    kl::CalculatorInputs tied, untied;
    untied.tied_embedding = false;
    EXPECT_DOUBLE_EQ(kl::calculate(untied).total_params - kl::calculate(tied).total_params, 50257.0 * 768);
}

// The lecture's example: 70B parameters, 15T tokens, 1,024 H100s at 989 TFLOP/s and 50% MFU:
// about 144 days.
TEST(Calculator, SeventyBillionOnFifteenTrillionTokensTakes144Days) {
    kl::CalculatorInputs in;
    in.hidden = 8192;
    in.layers = 80;
    in.vocab = 0;
    in.context = 0;
    const double per_layer = kl::calculate(in).block_params;
    in.layers = 70e9 / per_layer;  // a model of exactly 70B parameters
    in.tokens = 15e12;
    in.gpus = 1024;
    in.peak_tflops = 989;
    in.mfu = 0.5;
    const kl::CalculatorResults r = kl::calculate(in);
    EXPECT_NEAR(r.total_params, 70e9, 1e5);  // + the final LayerNorm's 2h
    EXPECT_NEAR(r.training_flops, 6.3e24, 1e21);
    EXPECT_NEAR(r.training_days, 144, 1);
    in.mfu = 0.4;  // the lesson's question: time scales as 1 / MFU
    EXPECT_NEAR(kl::calculate(in).training_days, 144 * 50.0 / 40, 1.5);
}

TEST(Calculator, BytesPerParameterAndWhatFitsOnEightGpus) {
    EXPECT_EQ(kl::bytes_per_param(kl::TrainingPrecision::Fp32Adam), 16);
    EXPECT_EQ(kl::bytes_per_param(kl::TrainingPrecision::MixedAdam), 16);
    EXPECT_EQ(kl::bytes_per_param(kl::TrainingPrecision::MixedAdamFp32Grad), 20);
    // The lecture: 8 x 80 GB / 16 B = 40B parameters, sharded; replicated, 5B per GPU.
    kl::CalculatorInputs in;
    in.vocab = in.context = 0;
    in.hidden = 8192;
    in.layers = 39.99e9 / kl::calculate(in).block_params;  // just under 40B, the final norm included
    in.gpus = 8;
    in.precision = kl::TrainingPrecision::Fp32Adam;
    in.sharded = true;
    kl::CalculatorResults r = kl::calculate(in);
    EXPECT_NEAR(r.state_bytes_per_gpu, 80e9, 0.05e9);
    EXPECT_TRUE(r.fits);
    in.sharded = false;
    r = kl::calculate(in);
    EXPECT_FALSE(r.fits);
    EXPECT_NEAR(r.state_bytes_per_gpu, 640e9, 0.5e9);
}

TEST(Calculator, BadInputsAreRefusedNamingTheField) {
    auto error_of = [](kl::CalculatorInputs in) {
        try {
            kl::calculate(in);
        } catch (const kl::InputError& e) { return std::string(e.what()); }
        return std::string("accepted");
    };
    kl::CalculatorInputs in;
    in.mfu = 1.5;
    EXPECT_NE(error_of(in).find("mfu = 1.5"), std::string::npos) << error_of(in);
    in = {};
    in.gpus = 0;
    EXPECT_NE(error_of(in).find("gpus"), std::string::npos);
    in = {};
    in.M = std::nan("");
    EXPECT_NE(error_of(in).find("M = nan"), std::string::npos) << error_of(in);
    in = {};
    in.gemm_tflops = -1;
    EXPECT_NE(error_of(in).find("gemm_tflops"), std::string::npos);
}

TEST(Calculator, RowsAndHandoutTableCarryTheFormulas) {
    kl::CalculatorInputs in;
    const auto rows = kl::calculator_rows(in);
    ASSERT_GE(rows.size(), 10u);
    EXPECT_EQ(rows.front().formula, "2 M N K = 2 x 4096 x 4096 x 4096");
    const std::string md = kl::calculator_markdown(in);
    EXPECT_EQ(md.rfind("| part | what | value | how |", 0), 0u);
    EXPECT_NE(md.find("6 N D"), std::string::npos);
    EXPECT_NE(md.find("fp32 master 4"), std::string::npos);
}

}  // namespace
