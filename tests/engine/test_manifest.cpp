// Ladder manifests: the real ones load; broken ones fail with file, line and field.
#include <gtest/gtest.h>

#include "base/errors.h"
#include "base/paths.h"
#include "gpu/compiler.h"
#include "model/compile_diagnostics.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "model/operation.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_manifest {

namespace {

const char* kKernel = R"(extern "C" __global__ void scale2(float* y, const float* x, long long n) {
    long long i = (long long)blockIdx.x * TPB + threadIdx.x;
    if (i < n) y[i] = 0.5f * x[i] * (1.0f + tanhf(0.7978845608f * (x[i] + 0.044715f * x[i] * x[i] * x[i])));
}
)";

std::string good_manifest(const std::string& extra_rung_fields = "",
                          const std::string& param = "default = 128\n  values = [64, 128]") {
    return kTinyLadderHead + extra_rung_fields + R"TOML(
  [rung.params.TPB]
  )TOML" + param +
           R"TOML(
  [[rung.constraint]]
  expr = "TPB <= 1024"
  message = "too many threads"
  [[rung.launch]]
  entry = "scale2"
  grid = ["cdiv(n, TPB)"]
  block = ["TPB"]
  args = ["y", "x", "n:i64"]
  [rung.model]
  bytes = "2 * n * esize"
)TOML";
}

std::string load_error(const TempTree& t) {
    return input_error_of([&] { kl::load_ladder(t.path("tiny/ladder.toml")); });
}

// The error the tiny ladder with its kernel and this manifest is refused with ("" if it loads).
std::string error_of(const std::string& manifest) {
    TempTree t;
    t.write("tiny/01_one.cu", kKernel);
    t.write("tiny/ladder.toml", manifest);
    return load_error(t);
}

}  // namespace

TEST(Manifest, EveryShippedLadderLoads) {
    std::vector<std::string> errors;
    auto ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    for (const auto& e : errors) ADD_FAILURE() << e;
    ASSERT_FALSE(ladders.empty());
    bool has_elementwise = false;
    for (const auto& l : ladders) {
        has_elementwise |= l.id == "elementwise";
        for (const auto& r : l.rungs) EXPECT_FALSE(r.launches.empty()) << l.id << "/" << r.id;
    }
    EXPECT_TRUE(has_elementwise);
}

TEST(Manifest, GoodTinyLadderLoadsInOrder) {
    TempTree t;
    t.write("tiny/01_one.cu", kKernel);
    t.write("tiny/ladder.toml", good_manifest());
    kl::Ladder L = kl::load_ladder(t.path("tiny/ladder.toml"));
    ASSERT_EQ(L.rungs.size(), 1u);
    const kl::Rung& r = L.rungs[0];
    EXPECT_EQ(r.params[0].name, "TPB");
    EXPECT_EQ(r.launches[0].args[0].kind, kl::ArgSpec::Kind::Buffer);
    EXPECT_EQ(r.launches[0].args[2].type, kl::ArgSpec::Type::I64);
    EXPECT_EQ(kl::resolve_params(r, {}).at("TPB"), 128);
    EXPECT_THROW(kl::resolve_params(r, {{"TPB", 96}}), kl::InputError);
    EXPECT_THROW(kl::resolve_params(r, {{"BLOCK", 64}}), kl::InputError);
}

TEST(Manifest, MissingSourceFileNamesLineAndField) {
    TempTree t;
    t.write("tiny/ladder.toml", good_manifest());
    std::string e = load_error(t);
    EXPECT_NE(e.find("ladder.toml:10: rung[0].file: no such file"), std::string::npos) << e;
}

TEST(Manifest, UnknownFieldIsRefused) {
    std::string e = error_of(good_manifest("colour = \"red\"\n"));
    EXPECT_NE(e.find(":11: rung[0].colour: unknown field"), std::string::npos) << e;
}

TEST(Manifest, WrongTypeIsRefused) {
    std::string e = error_of(good_manifest("reference = \"yes\"\n"));
    EXPECT_NE(e.find("rung[0].reference: expected true or false, found a string"), std::string::npos) << e;
}

// Lessons say "rung 11" for 11_wgmma_bf16.cu; the cards and plot axes must say the same.
TEST(Manifest, RungNumbersFollowTheFilesAndReferencesAreR) {
    std::vector<std::string> errors;
    for (const auto& L : kl::load_all_ladders(kl::kernels_dir(), &errors)) {
        if (L.id != "matmul") continue;
        EXPECT_EQ(L.find_rung("cublas_fp32")->number, "R1");
        EXPECT_EQ(L.find_rung("cublas_bf16")->number, "R3");
        EXPECT_EQ(L.find_rung("naive")->number, "01");
        EXPECT_EQ(L.find_rung("double_buffer_regs")->number, "08");
        EXPECT_EQ(L.find_rung("double_buffer")->number, "09");
        EXPECT_EQ(L.find_rung("wgmma_bf16")->number, "11");
        EXPECT_EQ(L.find_rung("wgmma_tma_bf16")->number, "12");
    }
    EXPECT_TRUE(errors.empty());
}

TEST(Manifest, ComputePrecisionIsReadAndChecked) {
    TempTree t;
    t.write("tiny/01_one.cu", kKernel);
    t.write("tiny/ladder.toml", good_manifest("compute = \"tf32\"\n"));
    EXPECT_EQ(kl::load_ladder(t.path("tiny/ladder.toml")).rungs.at(0).compute, "tf32");
    std::string e = error_of(good_manifest("compute = \"fp8\"\n"));
    EXPECT_NE(e.find(":11: rung[0].compute: unknown precision 'fp8'"), std::string::npos) << e;
}

// fp32 matmul rungs are held to fp32 rounding; only a rung that declares TF32 gets TF32's room.
TEST(MatmulTolerance, Fp32IsTighterThanTheErrorTf32Makes) {
    const kl::Operation* op = kl::find_operation("matmul");
    ASSERT_NE(op, nullptr);
    kl::Problem p;
    p.sizes = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
    kl::Tolerance fp32 = op->tolerance(p);
    p.compute = "tf32";
    kl::Tolerance tf32 = op->tolerance(p);
    const double tf32_rms = 1.3e-4 * 64;  // TF32 error at K = 4096 (ops/matmul.cpp)
    EXPECT_LT(fp32.abs, 1.5 * tf32_rms);
    EXPECT_GT(tf32.abs, 10 * tf32_rms);
    EXPECT_GT(fp32.abs, 0);
}

TEST(Manifest, DefaultOutsideItsRangeIsRefused) {
    std::string e = error_of(good_manifest("", "default = 100\n  min = 32\n  max = 1024\n  pow2 = true"));
    EXPECT_NE(e.find("params.TPB.default: 100 is not allowed (32..1024, powers of two)"), std::string::npos) << e;
}

TEST(Manifest, UnknownNameInAnExpressionIsRefused) {
    std::string m = good_manifest();
    m.replace(m.find("cdiv(n, TPB)"), 12, "cdiv(n, TBP)");
    std::string e = error_of(m);
    EXPECT_NE(e.find("unknown name 'TBP'"), std::string::npos) << e;
}

TEST(Manifest, SyntaxErrorNamesTheLine) {
    std::string e = error_of("[ladder]\nid = \"x\"\ntitle = \n");
    EXPECT_NE(e.find("ladder.toml:3"), std::string::npos) << e;
}

TEST(Manifest, ConstraintViolationQuotesTheMessage) {
    TempTree t;
    t.write("tiny/01_one.cu", kKernel);
    std::string m = good_manifest();
    m.replace(m.find("TPB <= 1024"), 11, "TPB <= 64");
    t.write("tiny/ladder.toml", m);
    kl::Ladder L = kl::load_ladder(t.path("tiny/ladder.toml"));
    auto params = kl::resolve_params(L.rungs[0], {});
    try {
        kl::check_constraints(L.rungs[0], kl::make_scope({{"n", 1000}}, params, kl::DType::F32, 132));
        FAIL();
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("too many threads (TPB <= 64 fails with TPB=128)"), std::string::npos)
            << e.what();
    }
}

// [SECTION] Per-launch conditions (`when`)

namespace {
// The tiny rung with two launches of scale2, one for even n and one for `odd_when`.
std::string two_launch_manifest(const std::string& odd_when) {
    std::string m = good_manifest();
    const std::string launch = "  [[rung.launch]]\n  entry = \"scale2\"\n";
    m.replace(m.find(launch), launch.size(), launch + "  when = \"n % 2 == 0\"\n");
    const std::string odd = "  [[rung.launch]]\n  when = " + odd_when +
                            "\n  entry = \"scale2\"\n  grid = [\"cdiv(n, TPB)\", \"2\"]\n  block = [\"TPB\"]\n"
                            "  args = [\"y\", \"x\", \"n:i64\"]\n";
    m.insert(m.find("  [rung.model]"), odd);
    return m;
}
}  // namespace

TEST(Manifest, TheLaunchWhoseConditionHoldsIsTheOneThatApplies) {
    TempTree t;
    t.write("tiny/01_one.cu", kKernel);
    t.write("tiny/ladder.toml", two_launch_manifest("\"n % 2 == 1\""));
    kl::Ladder L = kl::load_ladder(t.path("tiny/ladder.toml"));
    const kl::Rung& r = L.rungs.at(0);
    ASSERT_EQ(r.launches.size(), 2u);
    auto params = kl::resolve_params(r, {});
    auto even = kl::applicable_launches(r, kl::make_scope({{"n", 1000}}, params, kl::DType::F32, 132));
    auto odd = kl::applicable_launches(r, kl::make_scope({{"n", 1001}}, params, kl::DType::F32, 132));
    ASSERT_EQ(even.size(), 1u);
    ASSERT_EQ(odd.size(), 1u);
    EXPECT_EQ(even[0], &r.launches[0]);
    EXPECT_EQ(odd[0], &r.launches[1]);
    EXPECT_EQ(even[0]->when.text(), "n % 2 == 0");
}

TEST(Manifest, NoLaunchApplyingIsRefusedNamingTheRungAndTheConditions) {
    TempTree t;
    t.write("tiny/01_one.cu", kKernel);
    t.write("tiny/ladder.toml", two_launch_manifest("\"n == 7\""));
    kl::Ladder L = kl::load_ladder(t.path("tiny/ladder.toml"));
    const kl::Rung& r = L.rungs.at(0);
    auto params = kl::resolve_params(r, {});
    EXPECT_NO_THROW(kl::check_constraints(r, kl::make_scope({{"n", 7}}, params, kl::DType::F32, 132)));
    std::string e = input_error_of([&] {
        kl::check_constraints(r, kl::make_scope({{"n", 1001}}, params, kl::DType::F32, 132));
    });
    EXPECT_EQ(e,
              "rung one: no launch applies to this problem (its launches run when n % 2 == 0, or n == 7; here "
              "n=1001)");
}

TEST(Manifest, ConditionsAreValidatedAtLoadLikeEveryExpression) {
    std::string unknown = error_of(two_launch_manifest("\"m == 1\""));
    EXPECT_NE(unknown.find("launch.when: unknown name 'm' in 'm == 1'"), std::string::npos) << unknown;
    std::string syntax = error_of(two_launch_manifest("\"n == \""));
    EXPECT_NE(syntax.find(".when: "), std::string::npos) << syntax;
    std::string number = error_of(two_launch_manifest("1"));
    EXPECT_NE(number.find(".when: expected a condition in quotes"), std::string::npos) << number;
}

TEST(Manifest, FlashBf16HasOneLaunchPerHeadDimension) {
    std::vector<std::string> errors;
    for (const auto& L : kl::load_all_ladders(kl::kernels_dir(), &errors)) {
        if (L.id != "attention") continue;
        const kl::Rung& r = *L.find_rung("flash_bf16");
        auto params = kl::resolve_params(r, {});
        for (int64_t d : {64, 128}) {
            auto scope =
                kl::make_scope({{"B", 1}, {"H", 1}, {"N", 64}, {"d", d}, {"causal", 0}}, params, kl::DType::BF16, 132);
            auto launches = kl::applicable_launches(r, scope);
            ASSERT_EQ(launches.size(), 1u);
            EXPECT_EQ(launches[0]->entry, "attention_flash_bf16_d" + std::to_string(d));
        }
        auto d96 =
            kl::make_scope({{"B", 1}, {"H", 1}, {"N", 64}, {"d", 96}, {"causal", 0}}, params, kl::DType::BF16, 132);
        std::string e = input_error_of([&] { kl::check_constraints(r, d96); });
        EXPECT_EQ(e,
                  "rung flash_bf16: no launch applies to this problem (its launches run when d == 64, or d == 128; "
                  "here d=96)");
    }
    EXPECT_TRUE(errors.empty());
}

// A teacher adds a rung with a .cu file and a manifest entry, nothing else: it loads and
// compiles (NVRTC, no GPU). tests/gpu runs one such rung too.
TEST(Manifest, NewRungNeedsOnlyAFileAndAnEntry) {
    TempTree t;
    t.write("tiny/01_one.cu", kKernel);
    t.write("tiny/ladder.toml", good_manifest());
    kl::Ladder L = kl::load_ladder(t.path("tiny/ladder.toml"));
    kl::CompileRequest req;
    req.source_path = L.rungs[0].source_path;
    req.defines = kl::compile_defines(L.rungs[0], kl::resolve_params(L.rungs[0], {}), kl::DType::F32);
    req.arch = "sm_90";
    kl::CompiledCode c = kl::compile_kernel(req);
    EXPECT_GT(c.code.size(), 100u);
}

TEST(Compiler, BrokenRungReportsNvrtcLog) {
    TempTree t;
    std::string src = t.write("broken.cu", "extern \"C\" __global__ void k(float* y) { y[0] = undefined_name; }\n");
    kl::CompileRequest req;
    req.source_path = src;
    req.label = "tiny/broken";
    try {
        kl::compile_kernel(req);
        FAIL() << "expected a compile error";
    } catch (const kl::CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("tiny/broken failed to compile"), std::string::npos) << e.what();
        EXPECT_NE(e.log().find("undefined_name"), std::string::npos) << e.log();
    }
}

// A header next to the rung is part of what it compiles: editing it must not reuse the cached
// binary of the old text.
TEST(Compiler, EditedHeaderChangesTheCacheKey) {
    TempTree t;
    t.write("rung/local.cuh", "#define SCALE 2.0f\n");
    std::string src = t.write("rung/01_scale.cu",
                              "#include \"local.cuh\"\nextern \"C\" __global__ void k(float* y) { y[0] *= SCALE; }\n");
    kl::CompileRequest req;
    req.source_path = src;
    req.label = "tiny/scale";
    req.output = kl::CompileRequest::Output::Ptx;
    const std::string before = kl::compile_kernel(req).cache_key;
    EXPECT_EQ(kl::compile_kernel(req).cache_key, before);  // nothing changed: the same key
    t.write("rung/local.cuh", "#define SCALE 3.0f\n");
    EXPECT_NE(kl::compile_kernel(req).cache_key, before);
}

// A call between two wgmmas makes ptxas serialize them, and say so in the log: the note must reach
// the learner on every compile, the cached ones included (the log is cached beside the code).
TEST(Compiler, PtxasPerformanceNoteSurvivesTheCache) {
    TempTree t;
    std::string src = t.write("rung/01_serialized.cu",
                              "#include \"kl_wgmma.cuh\"\n"
                              "extern \"C\" __global__ void k(float* y, unsigned long long a, unsigned long long b) {\n"
                              "    float d[32];\n"
                              "    wgmma_fence();\n"
                              "    wgmma_bf16(d, a, b, false);\n"
                              "    printf(\"between\\n\");\n"
                              "    wgmma_bf16(d, a, b, true);\n"
                              "    wgmma_commit();\n"
                              "    wgmma_wait<0>();\n"
                              "    y[threadIdx.x] = d[0];\n"
                              "}\n");
    // The cache is keyed by content: the folder's name makes this source new to it on every run.
    std::ofstream(src, std::ios::app) << "// " << t.root() << "\n";
    kl::CompileRequest req;
    req.source_path = src;
    req.arch = "sm_90a";
    req.label = "tiny/serialized";
    for (int pass = 0; pass < 2; ++pass) {
        kl::CompiledCode c = kl::compile_kernel(req);
        EXPECT_EQ(c.from_cache, pass == 1);
        auto ds = kl::diagnostics_of_compile(c.log, src);
        ASSERT_EQ(ds.size(), 1u) << "pass " << pass << ": " << c.log;
        EXPECT_EQ(ds[0].severity, kl::Severity::Warning);
        EXPECT_NE(ds[0].message.find("Potential Performance Loss: wgmma.mma_async instructions are serialized"),
                  std::string::npos)
            << ds[0].message;
    }
}

TEST(Compiler, MissingSourceIsAnInputError) {
    kl::CompileRequest req;
    req.source_path = "/nonexistent/rung.cu";
    EXPECT_THROW(kl::compile_kernel(req), kl::InputError);
}

// The divergence ladder (issue 39): two rungs over one compute-bound operation, the second
// needing an even number of warps per block; the operation counts two FLOPs a term on either side
// of the branch and reads and writes each element once.
TEST(Manifest, DivergenceLadderIsTheBranchPair) {
    kl::Ladder L = kl::load_ladder(kl::kernels_dir() + "/divergence/ladder.toml");
    EXPECT_EQ(L.operation, "branch_series");
    ASSERT_EQ(L.rungs.size(), 2u);
    EXPECT_EQ(L.rungs[0].id, "branch_lanes");
    EXPECT_EQ(L.rungs[0].number, "01");
    EXPECT_EQ(L.rungs[1].id, "branch_warps");
    EXPECT_EQ(L.rungs[1].number, "02");
    EXPECT_EQ(kl::resolve_params(L.rungs[0], {{"TPB", 32}}).at("TPB"), 32);
    std::string e = input_error_of([&] { kl::resolve_params(L.rungs[1], {{"TPB", 32}}); });
    EXPECT_NE(e.find("TPB=32 is out of range for rung branch_warps"), std::string::npos) << e;
    EXPECT_THROW(kl::resolve_params(L.rungs[1], {{"TPB", 96}}), kl::InputError) << "a power of two";

    const kl::Operation* op = kl::find_operation("branch_series");
    ASSERT_NE(op, nullptr);
    kl::Problem p;
    p.sizes = {{"n", 1000003}, {"terms", 256}};
    EXPECT_DOUBLE_EQ(op->work(p).flops, 2.0 * 1000003 * 256);
    EXPECT_DOUBLE_EQ(op->work(p).ideal_bytes, 8.0 * 1000003);
    EXPECT_DOUBLE_EQ(op->tolerance(p).rel, 1e-5);
    EXPECT_EQ(op->buffers(p).size(), 2u);
}

}  // namespace kl_test_manifest
