// resolve_ladder_rung (issue 34): a rung of a run over many that cannot take the asked sizes is a
// skip with the constraint's message, recorded at those sizes; everything that is not the
// sizes' fault stays the InputError a rung named alone gets. The shipped matmul and LayerNorm
// ladders, no GPU.
#include <gtest/gtest.h>

#include "base/errors.h"
#include "base/paths.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "model/run_plan.h"
#include "model/serve_protocol.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_ladder_rung {

namespace {

const kl::Ladder& ladder(const std::string& id) {
    static std::vector<kl::Ladder> all = [] {
        std::vector<std::string> errors;
        return kl::load_all_ladders(kl::kernels_dir(), &errors);
    }();
    for (const auto& L : all)
        if (L.id == id) return L;
    throw std::runtime_error("no ladder " + id);
}

const kl::Rung& rung(const kl::Ladder& L, const std::string& id) {
    const kl::Rung* r = L.find_rung(id);
    if (!r) throw std::runtime_error("no rung " + id);
    return *r;
}

kl::RunOptions at(std::map<std::string, int64_t> sizes, kl::ParamValues params = {}) {
    kl::RunOptions o;
    o.sizes = std::move(sizes);
    o.params = std::move(params);
    return o;
}

const std::map<std::string, int64_t> kOddMatmul = {{"M", 1537}, {"N", 2561}, {"K", 769}};

TEST(LadderRung, Fp8AtSizesNotMultiplesOf16IsSkippedWithTheConstraint) {
    const kl::Ladder& L = ladder("matmul");
    kl::LadderRung lr = kl::resolve_ladder_rung(L, rung(L, "cublaslt_fp8"), at(kOddMatmul), 0);
    EXPECT_NE(lr.unfit.find("cuBLASLt's fp8 GEMM needs K and N multiples of 16"), std::string::npos) << lr.unfit;
    EXPECT_NE(lr.unfit.find("fails with K=769, N=2561"), std::string::npos) << lr.unfit;
    EXPECT_EQ(lr.unfit.rfind("rung ", 0), std::string::npos) << "the record names the rung: " << lr.unfit;
    // Named at the asked sizes, so that its record says where it was skipped.
    EXPECT_EQ(lr.run.problem.sizes, kOddMatmul);
    EXPECT_EQ(lr.run.rung->id, "cublaslt_fp8");
    kl::RunRecord rec = kl::skipped_record(lr.run, lr.unfit);
    EXPECT_EQ(rec.error_kind, "skipped");
    EXPECT_EQ(rec.sizes, kOddMatmul);
    EXPECT_EQ(rec.dtype, kl::DType::E4M3);
    EXPECT_EQ(kl::exit_code_of(rec), kl::ExitCode::Ok);
    // The same rung named alone is refused with the same message.
    EXPECT_THROW(kl::resolve_run(L, rung(L, "cublaslt_fp8"), at(kOddMatmul), 0), kl::InputError);
}

TEST(LadderRung, RungsThatTakeTheSizesResolve) {
    const kl::Ladder& L = ladder("matmul");
    for (const char* id : {"naive", "cublas_fp32", "cublas_bf16", "wgmma_bf16"}) {
        kl::LadderRung lr = kl::resolve_ladder_rung(L, rung(L, id), at(kOddMatmul), 0);
        EXPECT_EQ(lr.unfit, "") << id;
        EXPECT_EQ(lr.run.problem.sizes, kOddMatmul) << id;
    }
}

TEST(LadderRung, LayerNormRowInRegistersAt4097) {
    const kl::Ladder& L = ladder("layernorm");
    kl::LadderRung lr = kl::resolve_ladder_rung(L, rung(L, "row_regs_vec"), at({{"cols", 4097}}), 0);
    EXPECT_NE(lr.unfit.find("the row must fit in the block's registers"), std::string::npos) << lr.unfit;
    EXPECT_EQ(lr.run.problem.sizes.at("cols"), 4097);
    EXPECT_EQ(lr.run.problem.sizes.at("rows"), 4096);  // the ladder's default for what was not asked
    EXPECT_EQ(kl::resolve_ladder_rung(L, rung(L, "unfused"), at({{"cols", 4097}}), 0).unfit, "");
    // With parameters that hold the longer row, it takes it.
    EXPECT_EQ(kl::resolve_ladder_rung(L, rung(L, "row_regs_vec"), at({{"cols", 4097}}, {{"TPB", 512}}), 0).unfit, "");
}

TEST(LadderRung, WhatIsNotTheSizesFaultStaysAnError) {
    const kl::Ladder& L = ladder("layernorm");
    const kl::Rung& r = rung(L, "row_regs_vec");
    // A size axis the ladder lacks: malformed for every rung.
    EXPECT_THROW(kl::resolve_ladder_rung(L, r, at({{"Q", 3}}), 0), kl::InputError);
    // A parameter value the rung never allows.
    EXPECT_THROW(kl::resolve_ladder_rung(L, r, at({{"cols", 4097}}, {{"TPB", 48}}), 0), kl::InputError);
    // Parameters too small for the default row too: the parameters are at fault, not the size.
    try {
        kl::resolve_ladder_rung(L, r, at({{"cols", 4097}}, {{"TPB", 32}, {"MAXV", 1}}), 0);
        FAIL() << "expected an InputError";
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("cols=4097"), std::string::npos)
            << "the asked sizes' refusal: " << e.what();
    }
}

TEST(LadderRung, OutOfRangeSizeIsASkipForEachRung) {
    // cols = 0 is outside every LayerNorm rung's operation range: each is a skip here, and the
    // caller (kladder run, sweep) turns "every rung skipped" into one input error.
    const kl::Ladder& L = ladder("layernorm");
    for (const auto& r : L.rungs) {
        kl::LadderRung lr = kl::resolve_ladder_rung(L, r, at({{"cols", 0}}), 0);
        EXPECT_NE(lr.unfit.find("cols=0 is out of range"), std::string::npos) << r.id << ": " << lr.unfit;
    }
}

// The window asks for this resolution with options.skip_unfit; a window that does not ask sends
// exactly what it sent before (no field), and a wrong type is named.
TEST(LadderRung, SkipUnfitTravelsInTheRunnerProtocol) {
    kl::RunRequest req;
    req.ladder = "matmul";
    req.rung = "cublaslt_fp8";
    EXPECT_EQ(kl::encode_line(req).find("skip_unfit"), std::string::npos);
    EXPECT_FALSE(kl::decode_request_line(kl::encode_line(req)).request->run.skip_unfit);
    req.skip_unfit = true;
    const std::string line = kl::encode_line(req);
    EXPECT_NE(line.find("\"skip_unfit\":true"), std::string::npos) << line;
    kl::DecodedRequest d = kl::decode_request_line(line);
    ASSERT_TRUE(d.request) << d.problem;
    EXPECT_TRUE(d.request->run.skip_unfit);
    d = kl::decode_request_line(R"({"type":"run","id":3,"ladder":"matmul","rung":"naive","options":{"skip_unfit":1}})");
    EXPECT_FALSE(d.request);
    EXPECT_NE(d.problem.find("options.skip_unfit"), std::string::npos) << d.problem;
}

}  // namespace

}  // namespace kl_test_ladder_rung
