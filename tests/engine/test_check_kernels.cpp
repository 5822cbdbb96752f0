// Every rung of every shipped ladder compiles with NVRTC at its default parameters (no GPU
// needed). `kladder check-kernels` also tries the ends of every parameter range; the CLI test
// runs that.
#include <gtest/gtest.h>

#include "engine/compiler.h"
#include "engine/errors.h"
#include "engine/manifest.h"
#include "engine/paths.h"

TEST(CheckKernels, EveryRungCompilesAtDefaults) {
    std::vector<std::string> errors;
    auto ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    ASSERT_TRUE(errors.empty()) << errors.front();
    int compiled = 0;
    for (const auto& L : ladders)
        for (const auto& r : L.rungs) {
            // Library rungs have no source; Triton rungs compile through python3 (tests/gpu/test_gpu_triton.cpp).
            if (r.source_path.empty() || r.is_triton()) continue;
            for (kl::DType dt : r.dtypes) {
                kl::CompileRequest req;
                req.source_path = r.source_path;
                req.defines = kl::compile_defines(r, kl::resolve_params(r, {}), dt);
                req.arch = kl::rung_arch(r, "sm_90");
                req.label = L.id + "/" + r.id;
                try {
                    kl::compile_kernel(req);
                    ++compiled;
                } catch (const kl::CompileError& e) { ADD_FAILURE() << e.what() << "\n" << e.log(); }
            }
        }
    EXPECT_GT(compiled, 4);
}
