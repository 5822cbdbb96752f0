// The manifest's tensor-map argument, `tmap(<buffer>, rows=, cols=, box_rows=, box_cols=,
// swizzle=)`: parsed and validated at load, and the box / shape rules of the host-side encoder.
// Nothing here needs a GPU: an indescribable tensor is answered with a zeroed map before the
// driver is asked, and box problems are refused before that.
#include <gtest/gtest.h>

#include <cstring>

#include "base/errors.h"
#include "gpu/tensor_map.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_tensor_map {

namespace {

// A one-rung gelu ladder (buffers y and x) whose launch passes `arg` third. Syntax errors point
// at the args line (18); name errors, found once the operation is known, at the [[rung.launch]]
// line (14), as for every other launch expression.
std::string manifest_with_arg(const std::string& arg) {
    return kTinyLadderHead + R"TOML(  [rung.params.TPB]
  default = 128
  values = [64, 128]
  [[rung.launch]]
  entry = "k"
  grid = ["cdiv(n, TPB)"]
  block = ["TPB"]
  args = ["y", "x", ")TOML" +
           arg + R"TOML("]
)TOML";
}

kl::Ladder load(const TempTree& t, const std::string& arg) {
    t.write("tiny/01_one.cu", "extern \"C\" __global__ void k(float* y, const float* x) {}\n");
    t.write("tiny/ladder.toml", manifest_with_arg(arg));
    return kl::load_ladder(t.path("tiny/ladder.toml"));
}

std::string load_error(const std::string& arg) {
    TempTree t;
    return input_error_of([&] { load(t, arg); });
}

kl::TensorMapRequest bf16_request(int64_t rows, int64_t cols, int64_t box_rows, int64_t box_cols, int swizzle) {
    kl::TensorMapRequest r;
    r.base = reinterpret_cast<const void*>(uintptr_t(1) << 20);  // 16-byte aligned; never dereferenced
    r.dtype = kl::DType::BF16;
    r.rows = rows;
    r.cols = cols;
    r.box_rows = box_rows;
    r.box_cols = box_cols;
    r.swizzle = swizzle;
    return r;
}

}  // namespace

TEST(TensorMapArg, ParsesIntoItsParts) {
    TempTree t;
    kl::Ladder L = load(t, "tmap(x, rows=cdiv(n, 8), cols=8, box_rows=min(TPB, 256), box_cols=8, swizzle=0)");
    const kl::ArgSpec& a = L.rungs[0].launches[0].args[2];
    EXPECT_EQ(a.kind, kl::ArgSpec::Kind::TensorMap);
    EXPECT_EQ(a.tmap.buffer, "x");
    EXPECT_EQ(a.tmap.swizzle, 0);
    kl::Scope s = {{"n", 1000}, {"TPB", 128}};
    EXPECT_EQ(a.tmap.rows.eval(s), 125);
    EXPECT_EQ(a.tmap.cols.eval(s), 8);
    EXPECT_EQ(a.tmap.box_rows.eval(s), 128);  // the comma inside min(...) did not split the item
    EXPECT_EQ(a.tmap.box_cols.eval(s), 8);
}

TEST(TensorMapArg, SwizzleDefaultsToNoneAndTakesTheFourSpans) {
    TempTree t;
    EXPECT_EQ(load(t, "tmap(x, rows=n, cols=8, box_rows=8, box_cols=8)").rungs[0].launches[0].args[2].tmap.swizzle, 0);
    for (int sw : {32, 64, 128}) {
        TempTree t2;
        kl::Ladder L = load(t2, "tmap(x, rows=n, cols=8, box_rows=8, box_cols=8, swizzle=" + std::to_string(sw) + ")");
        EXPECT_EQ(L.rungs[0].launches[0].args[2].tmap.swizzle, sw);
    }
}

TEST(TensorMapArg, MistakesNameFileLineAndProblem) {
    struct Case {
        const char* arg;
        const char* expect;
        int line = 18;
    };
    const Case cases[] = {
        {"tmap(nope, rows=n, cols=8, box_rows=8, box_cols=8)", "unknown buffer 'nope'", 14},
        {"tmap(x, rows=n, cols=8, box_rows=8)", "missing box_cols"},
        {"tmap(x, rows=n, cols=8, box_rows=8, box_cols=8, depth=2)", "unknown key 'depth'"},
        {"tmap(x, rows=n, cols=8, box_rows=8, box_cols=8, swizzle=16)", "swizzle=16: expected 0, 32, 64 or 128"},
        {"tmap(x, rows=n, rows=n, cols=8, box_rows=8, box_cols=8)", "'rows' given twice"},
        {"tmap(x, rows=min(n, 8, cols=8, box_rows=8, box_cols=8)", "unbalanced parentheses"},
        {"tmap(x, rows=n, cols=8, box_rows=8, box_cols=8", "missing ')'"},
        {"tmap(x, rows=m, cols=8, box_rows=8, box_cols=8)", "unknown name 'm'", 14},
        {"tmap(x, rows=n, cols=8 8, box_rows=8, box_cols=8)", "cols:"},
        {"tmap(rows=n, cols=8, box_rows=8, box_cols=8)", "the first item must be a buffer name"},
    };
    for (const auto& c : cases) {
        std::string e = load_error(c.arg);
        EXPECT_NE(e.find("ladder.toml:" + std::to_string(c.line) + ": "), std::string::npos) << c.arg << " -> " << e;
        EXPECT_NE(e.find("args"), std::string::npos) << c.arg << " -> " << e;
        EXPECT_NE(e.find(c.expect), std::string::npos) << c.arg << " -> " << e;
    }
}

TEST(TensorMapRules, BoxMustSuitTheSwizzleAndTheCopyEngine) {
    EXPECT_EQ(kl::tensor_map_box_problem(bf16_request(4096, 4096, 256, 64, 128)), "");  // 256 rows of 128 bytes
    EXPECT_EQ(kl::tensor_map_box_problem(bf16_request(1, 8, 64, 64, 128)), "");         // boxes may overhang the tensor
    EXPECT_NE(
        kl::tensor_map_box_problem(bf16_request(4096, 4096, 64, 72, 128)).find("exceeds the 128-byte swizzle span"),
        std::string::npos);
    EXPECT_NE(kl::tensor_map_box_problem(bf16_request(4096, 4096, 64, 4, 0)).find("not a multiple of 16 bytes"),
              std::string::npos);
    EXPECT_NE(kl::tensor_map_box_problem(bf16_request(4096, 4096, 257, 64, 128)).find("1..256"), std::string::npos);
    EXPECT_NE(kl::tensor_map_box_problem(bf16_request(4096, 4096, 64, 64, 48)).find("swizzle 48"), std::string::npos);
}

TEST(TensorMapRules, RowsMustBeSixteenByteAligned) {
    EXPECT_TRUE(kl::tensor_map_describable(bf16_request(4096, 4096, 128, 64, 128)));
    EXPECT_TRUE(kl::tensor_map_describable(bf16_request(127, 8, 128, 64, 128)));    // 16-byte rows
    EXPECT_FALSE(kl::tensor_map_describable(bf16_request(127, 63, 128, 64, 128)));  // 126-byte rows
    EXPECT_FALSE(kl::tensor_map_describable(bf16_request(4097, 4097, 128, 64, 128)));
    kl::TensorMapRequest shifted = bf16_request(4096, 4096, 128, 64, 128);
    shifted.base = reinterpret_cast<const void*>((uintptr_t(1) << 20) + 2);  // a base 2 bytes off
    EXPECT_FALSE(kl::tensor_map_describable(shifted));
}

TEST(TensorMapRules, IndescribableTensorGetsAZeroedMapAndBadBoxAnError) {
    auto map = kl::encode_tensor_map_2d(bf16_request(127, 63, 128, 64, 128), "matmul/wgmma_tma_bf16");
    ASSERT_TRUE(map);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(map->bytes) % 64, 0u);
    unsigned char zeros[128] = {};
    EXPECT_EQ(std::memcmp(map->bytes, zeros, sizeof zeros), 0);
    try {
        kl::encode_tensor_map_2d(bf16_request(4096, 4096, 64, 72, 128), "matmul/wgmma_tma_bf16 BM=128");
        FAIL() << "expected an InputError";
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("matmul/wgmma_tma_bf16 BM=128: box_cols 72"), std::string::npos)
            << e.what();
    }
}

TEST(TensorMapRules, KernelArgPassesTheMapBytesByAddress) {
    auto map = kl::encode_tensor_map_2d(bf16_request(127, 63, 128, 64, 128), "x");
    kl::KernelArg a = kl::KernelArg::tensor_map(map);
    EXPECT_EQ(a.kind, kl::KernelArg::Kind::TensorMap);
    EXPECT_EQ(a.address(), static_cast<const void*>(map->bytes));
    kl::KernelArg copy = a;  // argument lists are copied; the bytes are shared, not moved
    EXPECT_EQ(copy.address(), static_cast<const void*>(map->bytes));
}

}  // namespace kl_test_tensor_map
