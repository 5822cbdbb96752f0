// GPU tests of Triton rungs (CTest label `gpu`; the GPU machine's python3 has Triton): the real
// compile through the helper, every Triton rung correct at aligned and odd sizes (the every-rung
// loop of test_gpu_ladders.cpp runs them too; this one fails, rather than counts a refusal,
// when a Triton rung cannot run), the launch contract as the runner records it, and a cached
// second compile.
#include <gtest/gtest.h>

#include <map>

#include "base/errors.h"
#include "base/paths.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/manifest_load.h"
#include "model/triton_rung.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_gpu_triton {

namespace {

kl::GpuContext& gpu() {
    static kl::GpuContext ctx;
    return ctx;
}

const std::vector<kl::Ladder>& ladders() {
    static std::vector<kl::Ladder> l = [] {
        std::vector<std::string> errors;
        auto v = kl::load_all_ladders(kl::kernels_dir(), &errors);
        for (const auto& e : errors) ADD_FAILURE() << e;
        return v;
    }();
    return l;
}

// Aligned and deliberately odd sizes: one element, sizes off every vector width and tile, rows
// longer than the softmax program's BLOCK (the streamed path), a ragged attention tail.
std::vector<std::map<std::string, int64_t>> sizes_for(const std::string& ladder) {
    if (ladder == "elementwise") return {{{"n", 1}}, {{"n", 1000}}, {{"n", (1 << 20) + 3}}, {{"n", 1 << 24}}};
    if (ladder == "softmax")
        return {{{"rows", 1}, {"cols", 1}},
                {{"rows", 3}, {"cols", 5}},
                {{"rows", 1000}, {"cols", 1001}},
                {{"rows", 33}, {"cols", 70001}},
                {{"rows", 1024}, {"cols", 4096}}};
    if (ladder == "matmul")
        return {{{"M", 1}, {"N", 1}, {"K", 1}},
                {{"M", 127}, {"N", 255}, {"K", 63}},
                {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                {{"M", 1024}, {"N", 2048}, {"K", 512}}};
    if (ladder == "attention")
        return {{{"B", 1}, {"H", 2}, {"N", 1}, {"d", 64}, {"causal", 0}},
                {{"B", 1}, {"H", 2}, {"N", 17}, {"d", 64}, {"causal", 1}},
                {{"B", 1}, {"H", 2}, {"N", 1000}, {"d", 128}, {"causal", 0}},
                {{"B", 2}, {"H", 3}, {"N", 1001}, {"d", 128}, {"causal", 1}}};
    if (ladder == "attention_backward")
        return {{{"B", 1}, {"H", 2}, {"N", 1}, {"d", 64}, {"causal", 0}},
                {{"B", 1}, {"H", 2}, {"N", 77}, {"d", 64}, {"causal", 1}},
                {{"B", 1}, {"H", 2}, {"N", 128}, {"d", 128}, {"causal", 0}},
                {{"B", 1}, {"H", 2}, {"N", 77}, {"d", 128}, {"causal", 1}}};
    if (ladder == "layernorm_backward")
        return {{{"rows", 1}, {"cols", 1}},
                {{"rows", 7}, {"cols", 3}},
                {{"rows", 2001}, {"cols", 1001}},
                {{"rows", 65}, {"cols", 4096}}};
    if (ladder == "layernorm")
        return {{{"rows", 1}, {"cols", 1}},
                {{"rows", 7}, {"cols", 3}},
                {{"rows", 5}, {"cols", 1001}},
                {{"rows", 65}, {"cols", 4096}}};
    return {{}};
}

}  // namespace

TEST(GpuTriton, TritonIsThereOnTheGpuMachine) {
    const kl::TritonAvailability& a = kl::triton_availability();
    if (!a.available) GTEST_SKIP() << a.reason;
    std::printf("Triton %s through %s\n", a.version.c_str(), a.python.c_str());
}

TEST(GpuTriton, EveryTritonRungCorrectAtAlignedAndOddSizes) {
    if (!kl::triton_availability().available) GTEST_SKIP() << kl::triton_availability().reason;
    kl::Runner runner(gpu(), std::nullopt);
    int checked = 0;
    for (const auto& L : ladders())
        for (const auto& r : L.rungs) {
            if (!r.is_triton()) continue;
            for (const auto& sizes : sizes_for(L.id))
                for (kl::DType dt : r.dtypes) {
                    kl::RunOptions o;
                    o.sizes = sizes;
                    o.dtype = dt;
                    o.time = false;
                    std::string what = L.id + "/" + r.id + " " + kl::to_string(dt);
                    for (const auto& [k, v] : sizes) what += " " + k + "=" + std::to_string(v);
                    SCOPED_TRACE(what);
                    kl::RunRecord rec = runner.run(L, r, o);  // no refusal expected: an error fails the test
                    ASSERT_TRUE(rec.correctness.has_value());
                    EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
                    // The launch contract as recorded: num_warps * 32 threads per program.
                    ASSERT_FALSE(rec.resources.empty());
                    EXPECT_EQ(rec.resources[0].threads(), int(rec.params.at("num_warps") * 32));
                    ASSERT_FALSE(runner.context_lost());
                    ++checked;
                }
        }
    std::printf("Triton runs checked: %d\n", checked);
    // 2 x 4 elementwise, 5 softmax, 4 matmul, 4 attention, 3 dtypes x 4 layernorm, 3 x 4 layernorm_backward,
    // 4 attention_backward
    EXPECT_GE(checked, 49);
}

TEST(GpuTriton, SecondCompileComesFromTheCache) {
    if (!kl::triton_availability().available) GTEST_SKIP() << kl::triton_availability().reason;
    const kl::Ladder* L = nullptr;
    for (const auto& l : ladders())
        if (l.id == "softmax") L = &l;
    ASSERT_NE(L, nullptr);
    const kl::Rung* r = L->find_rung("triton_softmax");
    ASSERT_NE(r, nullptr);
    kl::ParamValues pv = kl::resolve_params(*r, {{"BLOCK", 256}});
    kl::Scope s = kl::make_scope({{"rows", 3}, {"cols", 5}}, pv, kl::DType::F32, 0);
    std::map<std::string, kl::DType> dt = {{"in", kl::DType::F32}, {"out", kl::DType::F32}};
    kl::TritonCompileRequest req = kl::triton_request(*r, r->launches[0], pv, s, dt, gpu().device().cc(), "t");
    kl::TritonCompiled first = kl::compile_triton(req);
    kl::TritonCompiled second = kl::compile_triton(req);
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(first.cubin, second.cubin);
    EXPECT_EQ(first.params.size(), r->launches[0].args.size());
    EXPECT_NE(first.ptx.find(".entry softmax_rows"), std::string::npos);
}

}  // namespace kl_test_gpu_triton
