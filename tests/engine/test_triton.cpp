// Triton rungs without Python or a GPU: the manifest's rules, the helper's JSON contract (request
// and answer), the launch contract (argument order, scratch pointers, geometry), the cache key,
// the child-process runner, and what happens where Python or Triton is missing (fake
// interpreters). The real compile is tests/gpu/test_gpu_triton.cpp.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/child_exec.h"
#include "base/errors.h"
#include "base/paths.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "model/operation.h"
#include "model/triton_rung.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_triton {

namespace {

// A softmax-shaped ladder with one Triton rung; `extra` goes into the rung, `launch_extra` into its launch.
std::string triton_manifest(const std::string& extra = "", const std::string& launch_extra = "",
                            const std::string& params =
                                "  [rung.params.num_warps]\n  default = 4\n  values = [4, 8]\n"
                                "  [rung.params.num_stages]\n  default = 2\n  values = [1, 2]\n") {
    return R"TOML([ladder]
id = "tiny"
title = "Tiny"
operation = "softmax"
sizes = { rows = 40, cols = 1000 }

[[rung]]
id = "tri"
title = "Triton"
kind = "triton"
file = "07_tri.py"
)TOML" + extra +
           R"TOML(
  [rung.params.BLOCK]
  default = 1024
  values = [512, 1024]
)TOML" + params +
           R"TOML(
  [[rung.launch]]
  entry = "softmax_rows"
  grid = ["rows"]
  args = ["out", "in", "rows", "cols", "rows * 2:i64", "3:f32"]
)TOML" + launch_extra;
}

kl::Ladder load(const TempTree& t, const std::string& manifest) {
    t.write("tiny/07_tri.py", "import triton\n");
    return kl::load_ladder(t.write("tiny/ladder.toml", manifest));
}

std::string load_error(const std::string& manifest) {
    TempTree t;
    return input_error_of([&] { load(t, manifest); });
}

std::string b64(const std::string& bytes) {
    static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
        for (int s = 18; s >= 0; s -= 6) out += a[(v >> s) & 63];
    }
    if (bytes.size() - i == 1) {
        uint32_t v = uint8_t(bytes[i]) << 16;
        out += std::string{a[(v >> 18) & 63], a[(v >> 12) & 63], '=', '='};
    } else if (bytes.size() - i == 2) {
        uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
        out += std::string{a[(v >> 18) & 63], a[(v >> 12) & 63], a[(v >> 6) & 63], '='};
    }
    return out;
}

const std::string kCubin = std::string(
                               "\x7f"
                               "ELF") +
                           std::string("\x02\x01\x01\0binary", 11);

nlohmann::json good_answer() {
    return {{"ok", true},
            {"triton_version", "3.6.0"},
            {"name", "softmax_rows"},
            {"params", {"out_ptr", "in_ptr", "rows", "cols"}},
            {"cubin_base64", b64(kCubin)},
            {"ptx", ".visible .entry softmax_rows("},
            {"ttgir", "#blocked"},
            {"metadata",
             {{"shared", 32},
              {"num_warps", 8},
              {"num_stages", 1},
              {"num_ctas", 1},
              {"global_scratch_size", 0},
              {"global_scratch_align", 1},
              {"profile_scratch_size", 0},
              {"profile_scratch_align", 1}}}};
}

std::string fake_python(const TempTree& t, const std::string& name, const std::string& body) {
    std::string p = t.write(name, "#!/bin/sh\n" + body);
    chmod(p.c_str(), 0755);
    return p;
}

}  // namespace

// [SECTION] Manifest

TEST(TritonManifest, RungLoadsWithKindConstexprsAndBlockFromNumWarps) {
    TempTree t;
    kl::Ladder L = load(t, triton_manifest("  [rung.constexprs]\n  COLS_PAD = \"cdiv(cols, 16) * 16\"\n"));
    const kl::Rung& r = L.rungs.at(0);
    EXPECT_TRUE(r.is_triton());
    EXPECT_EQ(r.number, "07");
    ASSERT_EQ(r.constexprs.size(), 1u);
    EXPECT_EQ(r.constexprs[0].first, "COLS_PAD");
    ASSERT_EQ(r.launches.at(0).block.size(), 1u);
    EXPECT_EQ(r.launches[0].block[0].text(), "num_warps * 32");
    kl::Scope s =
        kl::make_scope({{"rows", 40}, {"cols", 1000}}, kl::resolve_params(r, {{"num_warps", 8}}), kl::DType::F32, 0);
    EXPECT_EQ(r.launches[0].block[0].eval(s), 256);
}

TEST(TritonManifest, ShippedTritonRungsLoadInEveryLadderTheIssueNames) {
    std::vector<std::string> errors;
    auto ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    EXPECT_TRUE(errors.empty()) << errors.front();
    std::set<std::string> with_triton;
    for (const auto& L : ladders)
        for (const auto& r : L.rungs)
            if (r.is_triton()) with_triton.insert(L.id);
    for (const char* id : {"elementwise", "softmax", "matmul", "attention", "layernorm"})
        EXPECT_TRUE(with_triton.count(id)) << id << " has no Triton rung";
}

TEST(TritonManifest, RefusesWhatATritonRungCannotHave) {
    EXPECT_NE(load_error(triton_manifest("", "  block = [\"128\"]\n")).find("block: leave it out"), std::string::npos);
    EXPECT_NE(load_error(triton_manifest("", "  smem = \"1024\"\n")).find("smem: leave it out"), std::string::npos);
    EXPECT_NE(load_error(triton_manifest("", "", "")).find("params.num_warps: missing"), std::string::npos);
    std::string bad_kind = triton_manifest();
    bad_kind.replace(bad_kind.find("kind = \"triton\""), 15, "kind = \"opencl\"");
    EXPECT_NE(load_error(bad_kind).find("unknown kind 'opencl'"), std::string::npos);
    std::string cu = triton_manifest();
    cu.replace(cu.find("07_tri.py"), 9, "07_tri.cu");
    TempTree t;
    t.write("tiny/07_tri.cu", "");
    std::string e = input_error_of([&] { kl::load_ladder(t.write("tiny/ladder.toml", cu)); });
    EXPECT_NE(e.find("file: a Triton rung's file is a .py file"), std::string::npos) << e;
    EXPECT_NE(load_error(triton_manifest("  [rung.constexprs]\n  BLOCK = \"4\"\n")).find("already a parameter"),
              std::string::npos);
    EXPECT_NE(load_error(triton_manifest("  [rung.constexprs]\n  X = \"nope\"\n")).find("unknown name 'nope'"),
              std::string::npos);
}

TEST(TritonManifest, CudaRungStillNeedsItsBlockAndHasNoConstexprs) {
    TempTree t;
    t.write("tiny/01_one.cu", "extern \"C\" __global__ void one() {}\n");
    std::string m = kTinyLadderHead + "  [[rung.launch]]\n  entry = \"one\"\n  grid = [\"1\"]\n  args = []\n";
    std::string e = input_error_of([&] { kl::load_ladder(t.write("tiny/ladder.toml", m)); });
    EXPECT_NE(e.find("launch[0].block: missing"), std::string::npos) << e;
    m = kTinyLadderHead +
        "  [rung.constexprs]\n  X = \"n\"\n  [[rung.launch]]\n  entry = \"one\"\n  grid = [\"1\"]\n"
        "  block = [\"32\"]\n  args = []\n";
    e = input_error_of([&] { kl::load_ladder(t.write("tiny/ladder.toml", m)); });
    EXPECT_NE(e.find("only Triton rungs"), std::string::npos) << e;
}

// [SECTION] Request

TEST(TritonRequest, SignatureFollowsTheArgumentsAndConstexprsLeaveOutTheOptions) {
    TempTree t;
    kl::Ladder L = load(t, triton_manifest("  [rung.constexprs]\n  COLS_PAD = \"cdiv(cols, 16) * 16\"\n"));
    const kl::Rung& r = L.rungs[0];
    kl::ParamValues pv = kl::resolve_params(r, {{"num_warps", 8}});
    kl::Scope s = kl::make_scope({{"rows", 40}, {"cols", 1000}}, pv, kl::DType::F32, 0);
    std::map<std::string, kl::DType> dtypes = {{"in", kl::DType::BF16}, {"out", kl::DType::F32}};
    kl::TritonCompileRequest req = kl::triton_request(r, r.launches[0], pv, s, dtypes, 90, "tiny/tri");
    EXPECT_EQ(req.kernel, "softmax_rows");
    EXPECT_EQ(req.num_warps, 8);
    EXPECT_EQ(req.num_stages, 2);
    EXPECT_EQ(req.arch, 90);
    ASSERT_EQ(req.signature.size(), 6u);
    const char* types[] = {"*fp32", "*bf16", "i32", "i32", "i64", "fp32"};
    const bool div16[] = {true, true, false, false, true, false};  // rows 40, cols 1000, rows * 2 = 80
    for (size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(req.signature[i].type, types[i]) << i;
        EXPECT_EQ(req.signature[i].div16, div16[i]) << i;
    }
    std::vector<std::pair<std::string, int64_t>> consts = {{"BLOCK", 1024}, {"COLS_PAD", 1008}};
    EXPECT_EQ(req.constexprs, consts);
    nlohmann::json j = nlohmann::json::parse(kl::encode_triton_request(req));
    EXPECT_EQ(j["source"], r.source_path);
    EXPECT_EQ(j["constexprs"]["COLS_PAD"], 1008);
    EXPECT_EQ(j["signature"][1]["type"], "*bf16");
    EXPECT_FALSE(j["constexprs"].contains("num_warps"));
}

// [SECTION] Answer

TEST(TritonAnswer, GoodAnswerParses) {
    kl::TritonCompiled k = kl::parse_triton_answer(good_answer().dump(), "tiny/tri");
    EXPECT_EQ(k.name, "softmax_rows");
    EXPECT_EQ(k.cubin, kCubin);
    EXPECT_EQ(k.shared, 32);
    EXPECT_EQ(k.num_warps, 8);
    EXPECT_EQ(k.params.size(), 4u);
    EXPECT_EQ(k.ttgir, "#blocked");
}

TEST(TritonAnswer, HelperRefusalIsACompileErrorWithItsLine) {
    try {
        kl::parse_triton_answer(R"({"ok": false, "error": "kernel k takes 4 arguments; the manifest gives 2"})", "x/y");
        FAIL() << "no error";
    } catch (const kl::CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("x/y failed to compile: kernel k takes 4 arguments"), std::string::npos);
    }
}

TEST(TritonAnswer, MalformedAnswersAreRefusedInOneLine) {
    EXPECT_NE(input_error_of([] {
                  kl::parse_triton_answer("Traceback (most recent call last)", "x/y");
              }).find("not valid JSON"),
              std::string::npos);
    nlohmann::json a = good_answer();
    a["cubin_base64"] = "not base64!";
    EXPECT_NE(input_error_of([&] { kl::parse_triton_answer(a.dump(), "x/y"); }).find("cubin_base64"),
              std::string::npos);
    a = good_answer();
    a["cubin_base64"] = b64("PK\x03\x04 not an elf");
    EXPECT_NE(input_error_of([&] { kl::parse_triton_answer(a.dump(), "x/y"); }).find("ELF"), std::string::npos);
    a = good_answer();
    a["metadata"].erase("shared");
    EXPECT_NE(input_error_of([&] { kl::parse_triton_answer(a.dump(), "x/y"); }).find("metadata.shared"),
              std::string::npos);
    a = good_answer();
    a["metadata"]["num_ctas"] = 2;
    EXPECT_NE(input_error_of([&] { kl::parse_triton_answer(a.dump(), "x/y"); }).find("num_ctas = 1"),
              std::string::npos);
}

TEST(TritonAnswer, Base64RoundTrips) {
    for (std::string s : {std::string(""), std::string("a"), std::string("ab"), std::string("abc"), kCubin}) {
        bool ok = false;
        EXPECT_EQ(kl::base64_decode(b64(s), &ok), s);
        EXPECT_TRUE(ok);
    }
    bool ok = true;
    kl::base64_decode("abc", &ok);
    EXPECT_FALSE(ok);
}

// [SECTION] Launch contract

TEST(TritonLaunch, GeometryComesFromTheMetadata) {
    kl::TritonCompiled k = kl::parse_triton_answer(good_answer().dump(), "x/y");
    kl::TritonLaunchShape s = kl::triton_launch_shape(k, dim3(100, 3));
    EXPECT_EQ(s.block.x, 256u);
    EXPECT_EQ(s.block.y, 1u);
    EXPECT_EQ(s.shared, 32);
    EXPECT_EQ(s.global_scratch_bytes, 0);
    EXPECT_EQ(s.profile_scratch_bytes, 0);
    k.global_scratch_size = 100;
    k.global_scratch_align = 128;
    k.profile_scratch_size = 8;
    s = kl::triton_launch_shape(k, dim3(100, 3));
    EXPECT_EQ(s.global_scratch_bytes, 30080);  // 300 programs x 100 bytes, rounded up to 128
    EXPECT_EQ(s.profile_scratch_bytes, 2400);
}

TEST(TritonLaunch, ArgumentsEndWithGlobalThenProfileScratch) {
    int a = 0, b = 0;
    std::vector<kl::KernelArg> args = {kl::KernelArg::pointer(&a), kl::KernelArg::i32v(7)};
    auto packed = kl::pack_triton_args(args, nullptr, nullptr);
    ASSERT_EQ(packed.size(), 4u);
    EXPECT_EQ(packed[0].ptr, &a);
    EXPECT_EQ(packed[1].i32, 7);
    EXPECT_EQ(packed[2].kind, kl::KernelArg::Kind::Pointer);
    EXPECT_EQ(packed[2].ptr, nullptr);
    EXPECT_EQ(packed[3].ptr, nullptr);
    packed = kl::pack_triton_args(args, &a, &b);
    EXPECT_EQ(packed[2].ptr, &a);
    EXPECT_EQ(packed[3].ptr, &b);
}

// [SECTION] Cache key

TEST(TritonCache, KeyChangesWithEverythingThatChangesTheCubin) {
    kl::TritonCompileRequest req;
    req.source_path = "/a/07.py";
    req.kernel = "k";
    req.signature = {{"*fp32", true}, {"i32", false}};
    req.constexprs = {{"BLOCK", 1024}};
    const std::string base = kl::triton_cache_key(req, "src", "helper", "3.6.0");
    EXPECT_EQ(base, kl::triton_cache_key(req, "src", "helper", "3.6.0"));
    kl::TritonCompileRequest moved = req;
    moved.source_path = "/elsewhere/07.py";
    EXPECT_EQ(base, kl::triton_cache_key(moved, "src", "helper", "3.6.0")) << "the bytes count, not the path";
    EXPECT_NE(base, kl::triton_cache_key(req, "src2", "helper", "3.6.0"));
    EXPECT_NE(base, kl::triton_cache_key(req, "src", "helper2", "3.6.0"));
    EXPECT_NE(base, kl::triton_cache_key(req, "src", "helper", "3.5.1"));
    for (int change = 0; change < 5; ++change) {
        kl::TritonCompileRequest r = req;
        if (change == 0) r.constexprs[0].second = 2048;
        if (change == 1) r.num_warps = 8;
        if (change == 2) r.num_stages = 4;
        if (change == 3) r.arch = 80;
        if (change == 4) r.signature[1].div16 = true;
        EXPECT_NE(base, kl::triton_cache_key(r, "src", "helper", "3.6.0")) << change;
    }
}

// [SECTION] Child process

TEST(ChildExec, FeedsStdinKeepsStdoutAndStderr) {
    kl::ExecResult r = kl::run_program({kl::find_on_path("sh"), "-c", "cat; echo oops >&2; exit 3"}, "hello", 10);
    EXPECT_TRUE(r.started);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.out, "hello");
    EXPECT_EQ(r.err, "oops\n");
}

TEST(ChildExec, TimeOutKillsTheChild) {
    kl::ExecResult r = kl::run_program({kl::find_on_path("sleep"), "30"}, "", 0.3);
    EXPECT_TRUE(r.started);
    EXPECT_TRUE(r.timed_out);
}

TEST(ChildExec, MissingProgramIsNotStarted) {
    kl::ExecResult r = kl::run_program({"/nonexistent/python3"}, "", 1);
    EXPECT_FALSE(r.started);
    EXPECT_NE(r.failure.find("/nonexistent/python3"), std::string::npos);
    EXPECT_EQ(kl::find_on_path("surely-no-such-program-here"), "");
}

// [SECTION] Missing Python or Triton

TEST(TritonAvailability, MissingInterpreterSaysWhatToSet) {
    kl::TritonAvailability a = kl::probe_triton("/nonexistent/python3");
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("KL_PYTHON"), std::string::npos) << a.reason;
    EXPECT_NE(a.reason.find("pip install triton"), std::string::npos) << a.reason;
    EXPECT_EQ(a.reason.find('\n'), std::string::npos);
}

TEST(TritonAvailability, PythonWithoutTritonSaysWhatToInstall) {
    TempTree t;
    std::string py = fake_python(t, "python3", "echo \"ModuleNotFoundError: No module named 'triton'\" >&2\nexit 3\n");
    kl::TritonAvailability a = kl::probe_triton(py);
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find(py + " cannot import triton (ModuleNotFoundError: No module named 'triton'); pip install "
                                 "triton in that python3"),
              std::string::npos)
        << a.reason;
}

TEST(TritonAvailability, HelperThatAnswersTheProbeIsAvailable) {
    TempTree t;
    std::string py = fake_python(t, "python3", "echo '{\"ok\": true, \"triton_version\": \"9.9.9\"}'\n");
    kl::TritonAvailability a = kl::probe_triton(py);
    EXPECT_TRUE(a.available) << a.reason;
    EXPECT_EQ(a.version, "9.9.9");
}

// The engine's whole compile path with a fake interpreter that answers like the helper: the
// request reaches it on stdin, the answer is parsed and cached, and a second compile is a cache
// hit that runs nothing. (Each test runs in its own process under CTest, so KL_PYTHON set here
// is what the once-per-process probe sees.)
TEST(TritonCompile, FakeInterpreterAnswersAndTheAnswerIsCached) {
    TempTree t;
    setenv("XDG_CACHE_HOME", t.path("cache").c_str(), 1);
    const std::string answer = t.write("answer.json", good_answer().dump());
    const std::string log = t.path("requests.log");
    std::string py = fake_python(t, "python3",
                                 "if [ \"$5\" = --probe ]; then echo '{\"ok\": true, \"triton_version\": \"9.9.9\"}'; "
                                 "exit 0; fi\ncat >> " +
                                     log + "\necho >> " + log + "\ncat " + answer + "\n");
    setenv("KL_PYTHON", py.c_str(), 1);
    ASSERT_TRUE(kl::triton_availability().available) << kl::triton_availability().reason;
    kl::TritonCompileRequest req;
    req.source_path = t.write("07_tri.py", "import triton\n\n@triton.jit\ndef softmax_rows(out_ptr):\n    pass\n");
    req.kernel = "softmax_rows";
    req.label = "tiny/tri";
    req.signature = {{"*fp32", true}};
    kl::TritonCompiled first = kl::compile_triton(req);
    EXPECT_FALSE(first.from_cache);
    EXPECT_EQ(first.cubin, kCubin);
    kl::TritonCompiled second = kl::compile_triton(req);
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.cache_key, first.cache_key);
    std::string sent = kl::read_file(log);
    EXPECT_EQ(std::count(sent.begin(), sent.end(), '\n'), 1) << "the second compile ran the helper again";
    nlohmann::json j = nlohmann::json::parse(sent);
    EXPECT_EQ(j["kernel"], "softmax_rows");
    EXPECT_EQ(j["signature"][0]["type"], "*fp32");
    EXPECT_EQ(j["display"], req.source_path);
    EXPECT_NE(j["source"], req.source_path) << "the helper reads the checked copy, not the rung's file";
    unsetenv("KL_PYTHON");
}

}  // namespace kl_test_triton
