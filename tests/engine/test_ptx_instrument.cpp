// The address view's instrumentation (issue 39): the real rungs' PTX, rewritten, must still
// assemble with ptxas for sm_90 and sm_75 (the test fails when it does not), record every global
// and shared load and store, and say what it leaves out. The grouping of records into warp
// accesses, sectors and banks, and the trace file's reader (untrusted input), on hand-made data.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "base/errors.h"
#include "base/paths.h"
#include "gpu/compiler.h"
#include "model/address_trace.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "model/ptx_instrument.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_ptx_instrument {

namespace fs = std::filesystem;

namespace {

std::string rung_ptx(const std::string& ladder, const std::string& rung, const std::string& arch) {
    std::vector<std::string> errors;
    for (const auto& L : kl::load_all_ladders(kl::kernels_dir(), &errors)) {
        if (L.id != ladder) continue;
        const kl::Rung* r = L.find_rung(rung);
        if (!r) break;
        kl::CompileRequest req;
        req.source_path = r->source_path;
        req.defines = kl::compile_defines(*r, kl::resolve_params(*r, {}), kl::DType::F32);
        req.arch = arch;
        req.output = kl::CompileRequest::Output::Ptx;
        req.label = ladder + "/" + rung;
        return kl::compile_kernel(req).code;
    }
    ADD_FAILURE() << "no rung " << ladder << "/" << rung;
    return "";
}

// ptxas's exit status and its messages; the PTX goes through a temporary file.
int assemble(const std::string& ptx, const std::string& arch, std::string* messages) {
    const fs::path dir = fs::temp_directory_path() / ("kl_ptx_instrument_" + std::to_string(getpid()));
    fs::create_directories(dir);
    const fs::path in = dir / "traced.ptx", log = dir / "ptxas.log";
    std::ofstream(in) << ptx;
    const std::string cmd =
        std::string(KL_PTXAS) + " -arch=" + arch + " " + in.string() + " -o /dev/null > " + log.string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    std::ifstream l(log);
    messages->assign(std::istreambuf_iterator<char>(l), {});
    fs::remove_all(dir);
    return status;
}

struct RungCase {
    const char* ladder;
    const char* rung;
    int min_loads, min_stores;  // global and shared together
    bool shared;
};

const RungCase kCases[] = {
    {"elementwise", "vector_add", 2, 1, false},  {"transpose", "transpose_naive", 1, 1, false},
    {"transpose", "transpose_smem", 2, 2, true}, {"transpose", "transpose_padded", 2, 2, true},
    {"matmul", "smem_tiles", 4, 3, true},
};

}  // namespace

TEST(PtxInstrument, RealRungsStillAssembleForSm90AndSm75) {
    ASSERT_TRUE(fs::exists(KL_PTXAS)) << "ptxas not found at " << KL_PTXAS;
    for (const auto& c : kCases)
        for (const char* arch : {"sm_90", "sm_75"}) {
            SCOPED_TRACE(std::string(c.ladder) + "/" + c.rung + " " + arch);
            const kl::InstrumentedPtx p = kl::instrument_ptx(rung_ptx(c.ladder, c.rung, arch));
            int loads = 0, stores = 0, shared = 0;
            for (const auto& s : p.sites) {
                (s.store ? stores : loads)++;
                shared += s.shared;
                EXPECT_GT(s.bytes, 0);
            }
            EXPECT_GE(loads, c.min_loads);
            EXPECT_GE(stores, c.min_stores);
            EXPECT_EQ(shared > 0, c.shared);
            EXPECT_TRUE(p.not_traced.empty()) << p.not_traced.front();
            ASSERT_EQ(p.entries.size(), 1u);
            EXPECT_NE(p.ptx.find(".param .u64 " + p.entries[0] + "_kl_trace"), std::string::npos);
            std::string messages;
            EXPECT_EQ(assemble(p.ptx, arch, &messages), 0) << messages;
        }
}

TEST(PtxInstrument, VectorFormsPredicatesSymbolsAndWhatIsLeftOut) {
    const std::string ptx =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k()\n{\n"
        "\t.reg .pred %p<2>;\n\t.reg .f32 %f<5>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
        "\t.shared .align 16 .b8 tile[1024];\n"
        "\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\tmov.u64 %rd1, 0;\n"
        "\tshl.b32 %r2, %r1, 4;\n"
        "\tld.global.nc.L1::no_allocate.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+-16];\n"
        "\t@!%p1 st.shared.v4.f32 [%r2], {%f1, %f2, %f3, %f4};\n"
        "\t@%p1 ld.shared.f32 %f1, [tile+8];\n"
        "\tst.global.u64 [%rd1], %rd1;\n"
        "\tcp.async.ca.shared.global [%r2], [%rd1], 16;\n"
        "\tld.f32 %f1, [%rd1];\n"
        "\t{ .reg .pred q; setp.eq.u32 q, %r1, 1; @q ld.global.f32 %f1, [%rd1]; }\n"
        "\tret;\n}\n";
    const kl::InstrumentedPtx p = kl::instrument_ptx(ptx);
    ASSERT_EQ(p.sites.size(), 4u);
    EXPECT_EQ(p.sites[0].bytes, 16);
    EXPECT_FALSE(p.sites[0].shared);
    EXPECT_TRUE(p.sites[1].store && p.sites[1].shared);
    EXPECT_EQ(p.sites[2].bytes, 4);
    EXPECT_EQ(p.sites[3].bytes, 8);
    ASSERT_EQ(p.not_traced.size(), 3u);
    EXPECT_NE(p.not_traced[0].find("asynchronous copy"), std::string::npos);
    EXPECT_NE(p.not_traced[1].find("generic"), std::string::npos);
    EXPECT_NE(p.not_traced[2].find("not one instruction on its line"), std::string::npos);
    EXPECT_NE(p.ptx.find("add.s64 %kl_a, %kl_a, -16;"), std::string::npos);
    EXPECT_NE(p.ptx.find("not.pred %kl_go, %p1;"), std::string::npos);
    EXPECT_NE(p.ptx.find("mov.u64 %kl_a, tile;"), std::string::npos);
    std::string messages;
    EXPECT_EQ(assemble(p.ptx, "sm_90", &messages), 0) << messages;
    EXPECT_THROW(kl::instrument_ptx(".version 8.0\n.target sm_90\n"), kl::InputError);
}

TEST(AddressTrace, SectorsAndBanksOfWarpAccesses) {
    std::vector<kl::TracedSite> sites(3);
    sites[0].bytes = 4;  // global load
    sites[1].bytes = 4;  // shared store, one column of a [32][32] float tile
    sites[1].shared = sites[1].store = true;
    sites[2].bytes = 4;  // the same column of a [32][33] tile
    sites[2].shared = true;
    std::vector<kl::TraceRecord> recs;
    for (uint32_t lane = 0; lane < 32; ++lane) {
        recs.push_back({0x1000 + 4 * lane, 0, lane << 24 | 1});
        recs.push_back({0x1000 + 4 * 8192 * lane, 0, lane << 24 | 2});  // down a column: second execution
        recs.push_back({128 * lane + 28, 1, lane << 24 | 3});
        recs.push_back({132 * lane + 28, 2, lane << 24 | 4});
    }
    const auto a = kl::group_warp_accesses(recs, sites);
    ASSERT_EQ(a.size(), 4u);
    EXPECT_EQ(a[0].sectors, 4);
    EXPECT_EQ(a[0].ideal_sectors, 4);
    EXPECT_EQ(a[1].occurrence, 1);
    EXPECT_EQ(a[1].sectors, 32);
    EXPECT_EQ(a[1].ideal_sectors, 4);
    EXPECT_EQ(a[2].bank_degree, 32);
    EXPECT_EQ(kl::bank_of(*a[2].lanes[5]), 7);
    EXPECT_EQ(a[3].bank_degree, 1);
    EXPECT_EQ(a[3].ideal_degree, 1);
    EXPECT_THROW(kl::group_warp_accesses({{0, 7, 0}}, sites), kl::InputError);
}

TEST(AddressTrace, FileRoundTripsAndRefusesBadFields) {
    kl::AddressTrace t;
    t.ladder = "transpose";
    t.rung = "transpose_smem";
    t.device = "test fixture";
    t.date = "2026-11-30";
    t.sites.resize(1);
    t.sites[0].bytes = 4;
    t.sites[0].shared = true;
    std::vector<kl::TraceRecord> recs;
    for (uint32_t lane = 0; lane < 32; ++lane) recs.push_back({128 * lane, 0, lane << 24 | 1});
    t.accesses = kl::group_warp_accesses(recs, t.sites);
    const std::string json = kl::address_trace_json(t);
    const kl::AddressTrace back = kl::parse_address_trace(json, "t.json");
    ASSERT_EQ(back.accesses.size(), 1u);
    EXPECT_EQ(back.accesses[0].bank_degree, 32);
    auto error_of = [](const std::string& text) {
        try {
            kl::parse_address_trace(text, "t.json");
        } catch (const kl::InputError& e) { return std::string(e.what()); }
        return std::string();
    };
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string s = json;
        s.replace(s.find(from), from.size(), to);
        return s;
    };
    EXPECT_NE(error_of(replaced("\"test fixture\"", "\"\"")).find("t.json: device"), std::string::npos);
    EXPECT_NE(error_of(replaced("\"site\": 0", "\"site\": 3")).find("accesses[0].site"), std::string::npos);
    EXPECT_NE(error_of(replaced("\"warp\": 0", "\"warp\": 40")).find("warp"), std::string::npos);
    EXPECT_NE(error_of("[").find("t.json"), std::string::npos);
    EXPECT_NE(error_of(replaced("\"address_trace\"", "\"x\"")).find("kind"), std::string::npos);
}

// The window's address view reads tests' fixture as it reads a recording, and the fixture says on
// its face that it is none (the panel prints device and date above the grid).
TEST(AddressTrace, FixtureOfTheTransposeSmemStepReadsAndMatches) {
    const std::string path = std::string(KL_TEST_TRACES) + "/transpose_smem.fixture.json";
    std::ifstream f(path);
    const std::string text((std::istreambuf_iterator<char>(f)), {});
    const kl::AddressTrace t = kl::parse_address_trace(text, path);
    EXPECT_NE(t.device.find("not a recording"), std::string::npos);
    EXPECT_TRUE(kl::trace_matches(t, "transpose", "transpose_smem", {{"TILE", 32}, {"ROWS_PER_PASS", 8}}));
    EXPECT_FALSE(kl::trace_matches(t, "transpose", "transpose_smem", {{"TILE", 16}}));
    EXPECT_FALSE(kl::trace_matches(t, "transpose", "transpose_padded", {}));
    ASSERT_EQ(t.accesses.size(), 16u);
    EXPECT_EQ(t.accesses[0].sectors, 4);       // a tile row of the input: coalesced
    EXPECT_EQ(t.accesses[8].bank_degree, 32);  // a tile column from shared memory: one bank
}

}  // namespace kl_test_ptx_instrument
