// The compile cache and what a compile reads (issue 34, "The compile cache"): the include
// scanner, cache entries with their key and checksum, the key over every file read, `try`'s
// staging, the cache folder's place, and the compile time limit.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "base/errors.h"
#include "base/paths.h"
#include "base/sha256.h"
#include "base/watchdog.h"
#include "gpu/compile_cache.h"
#include "gpu/compiler.h"
#include "model/include_scan.h"
#include "model/try_staging.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_compile_cache {

namespace fs = std::filesystem;

namespace {

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const kl::InputError& e) { return e.what(); }
    return "";
}

std::vector<std::string> names_of(const std::vector<kl::IncludeDirective>& ds, bool shadow = false) {
    std::vector<std::string> out;
    for (const auto& d : ds)
        if (d.shadow == shadow) out.push_back(d.name);
    return out;
}

const char* kKernel = "extern \"C\" __global__ void k(float* y) { y[0] = KL_VALUE; }\n";

}  // namespace

TEST(Sha256, KnownDigests) {
    EXPECT_EQ(kl::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(kl::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(kl::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(kl::Sha256().update("ab").update("c").hex(), kl::sha256_hex("abc"));
}

// [SECTION] The include scanner: directives where the preprocessor finds them, and only there

TEST(IncludeScan, FindsDirectivesAsThePreprocessorDoes) {
    const std::string text =
        "#include \"a.cuh\"\n"
        "  #  include <b.h>  // angle\n"
        "/* #include \"in_comment.cuh\" */\n"
        "const char* s = \"#include \\\"in_string.cuh\\\"\";\n"
        "#inc\\\nlude \"spliced.cuh\"\n"
        "%:include \"digraph.cuh\"\n"
        "#/* comment */include \"after_comment.cuh\"\n"
        "int big = 1'000'000; #include \"not_at_line_start.cuh\"\n"
        "const char* r = R\"x(\n#include \"in_raw.cuh\"\n)x\";\n"
        "#if __has_include(\"maybe.cuh\") && defined(__has_include)\n#endif\n"
        "#include_next <next.h>\n";
    const auto ds = kl::find_includes(text, "t.cu");
    EXPECT_EQ(names_of(ds), (std::vector<std::string>{"a.cuh", "b.h", "spliced.cuh", "digraph.cuh", "after_comment.cuh",
                                                      "maybe.cuh", "next.h"}));
    // Lines inside comments and raw strings that read like #include are kept for the check only.
    EXPECT_EQ(names_of(ds, true), (std::vector<std::string>{"in_raw.cuh"}));
    ASSERT_EQ(ds.size(), 8u);
    EXPECT_EQ(ds[2].line, 5);  // the spliced directive starts on stored line 5
    EXPECT_EQ(ds[5].line, 11);
    EXPECT_EQ(ds[6].line, 13);
    EXPECT_TRUE(ds[1].angle);
    EXPECT_TRUE(ds[6].test);
}

TEST(IncludeScan, RefusesMacrosAndNulBytes) {
    EXPECT_EQ(error_of([] { kl::find_includes("\n#include KL_WHERE\n", "t.cu"); }),
              "t.cu:2: #include KL_WHERE: only #include \"file\" and #include <file> are allowed (a macro could name "
              "any file)");
    EXPECT_NE(error_of([] { kl::find_includes("#if __has_include(KL_WHERE)\n#endif\n", "t.cu"); }).find("t.cu:1: "),
              std::string::npos);
    EXPECT_EQ(error_of([] { kl::find_includes(std::string("a\nb\n\0c", 6), "t.cu"); }),
              "t.cu:3: a NUL byte in the source (NVRTC would silently ignore everything after it)");
}

TEST(IncludeScan, ReadsSubfoldersAndNestedHeaders) {
    TempTree t;
    t.write("r/sub/outer.cuh", "#include \"inner.cuh\"\n");
    t.write("r/sub/inner.cuh", "#define KL_VALUE 1.0f\n");
    t.write("r/unrelated.cuh", "#error never read\n");
    const std::string src = t.write("r/k.cu", "#include \"sub/outer.cuh\"\n#include <cuda_fp16.h>\n");
    const kl::ScannedSource s = kl::scan_source(src, {{t.path("r")}, {t.path("r")}, kl::cuda_include_dir()});
    ASSERT_EQ(s.headers.size(), 2u);
    EXPECT_EQ(s.headers[0].name, "sub/outer.cuh");
    EXPECT_EQ(s.headers[1].name, "inner.cuh");
    EXPECT_TRUE(s.headers[1].beside_includer);
    EXPECT_EQ(s.headers[1].text, "#define KL_VALUE 1.0f\n");
}

TEST(IncludeScan, RefusesFifosLinksOutAndTwoFilesUnderOneName) {
    TempTree t;
    const std::string folder = t.path("r");
    fs::create_directories(folder + "/sub");
    ASSERT_EQ(mkfifo((folder + "/sub/fifo.cuh").c_str(), 0600), 0);
    const kl::IncludeSearch search{{folder}, {folder}, kl::cuda_include_dir()};
    t.write("r/sub/outer.cuh", "\n#include \"fifo.cuh\"\n");
    std::string src = t.write("r/a.cu", "#include \"sub/outer.cuh\"\n");
    EXPECT_EQ(error_of([&] { kl::scan_source(src, search); }),
              folder + "/sub/outer.cuh:2: #include \"fifo.cuh\": " + folder +
                  "/sub/fifo.cuh is a FIFO, not a regular "
                  "file");
    fs::create_symlink("/etc/hostname", folder + "/out.cuh");
    src = t.write("r/b.cu", "#include \"out.cuh\"\n");
    EXPECT_NE(error_of([&] { kl::scan_source(src, search); }).find("is a link to /etc/hostname, outside"),
              std::string::npos);
    src = t.write("r/c.cu", "#include </etc/hostname>\n");
    EXPECT_NE(error_of([&] { kl::scan_source(src, search); }).find("c.cu:1: #include </etc/hostname>: an absolute"),
              std::string::npos);
    t.write("r/same.cuh", "// top\n");
    t.write("r/sub/same.cuh", "// sub\n");
    t.write("r/sub/uses.cuh", "#include \"same.cuh\"\n");
    src = t.write("r/d.cu", "#include \"same.cuh\"\n#include \"sub/uses.cuh\"\n");
    EXPECT_NE(error_of([&] { kl::scan_source(src, search); }).find("NVRTC is given one file per include name"),
              std::string::npos);
}

// [SECTION] Cache entries

TEST(CacheEntry, RoundTripsAndRefusesEveryDamage) {
    const std::string key(64, 'a'), other(64, 'b');
    const kl::CacheEntry e{key,
                           std::string("\x7f"
                                       "ELF\0code",
                                       8),
                           "ptxas info: a note"};
    const std::string bytes = kl::encode_cache_entry(e);
    const kl::CacheEntry back = kl::decode_cache_entry(bytes, key);
    EXPECT_EQ(back.code, e.code);
    EXPECT_EQ(back.log, e.log);
    EXPECT_EQ(error_of([&] { kl::decode_cache_entry(bytes, other); }),
              "it was written for another key (aaaaaaaaaaaaaaaa...)");
    for (size_t i = 0; i < bytes.size(); ++i) {  // every single flipped byte is caught
        std::string bad = bytes;
        bad[i] = static_cast<char>(bad[i] ^ 0x20);
        EXPECT_THROW(kl::decode_cache_entry(bad, key), kl::InputError) << "byte " << i;
    }
    EXPECT_THROW(kl::decode_cache_entry(bytes.substr(0, bytes.size() - 1), key), kl::InputError);
    EXPECT_THROW(kl::decode_cache_entry(bytes + "x", key), kl::InputError);
    EXPECT_THROW(kl::decode_cache_entry("", key), kl::InputError);
}

// An edited header in a subfolder, a second header under the rung: each changes the key.
TEST(CompileCache, KeyCoversEveryFileRead) {
    TempTree t;
    t.write("r/sub/deep/value.cuh", "#define KL_VALUE 1.0f\n");
    t.write("r/sub/mid.cuh", "#include \"deep/value.cuh\"\n");
    kl::CompileRequest req;
    req.source_path = t.write("r/k.cu", std::string("// ") + t.root() + "\n#include \"sub/mid.cuh\"\n" + kKernel);
    req.output = kl::CompileRequest::Output::Ptx;
    const kl::CompiledCode first = kl::compile_kernel(req);
    EXPECT_FALSE(first.from_cache);
    EXPECT_NE(first.code.find("1065353216"), std::string::npos);  // 1.0f as bits
    EXPECT_TRUE(kl::compile_kernel(req).from_cache);
    t.write("r/sub/deep/value.cuh", "#define KL_VALUE 2.0f\n");
    const kl::CompiledCode edited = kl::compile_kernel(req);
    EXPECT_NE(edited.cache_key, first.cache_key);
    EXPECT_NE(edited.code.find("1073741824"), std::string::npos);  // 2.0f as bits
}

TEST(CompileCache, DamagedOrMovedEntriesAreCompiledAgain) {
    TempTree t;
    t.write("r/value.cuh", "#define KL_VALUE 3.0f\n");
    kl::CompileRequest req;
    req.source_path = t.write("r/k.cu", std::string("// ") + t.root() + "\n#include \"value.cuh\"\n" + kKernel);
    req.output = kl::CompileRequest::Output::Ptx;
    const kl::CompiledCode first = kl::compile_kernel(req);
    const std::string entry = kl::cache_dir("kernels") + "/" + first.cache_key + ".ptx";
    ASSERT_TRUE(fs::exists(entry));
    std::string bytes = kl::encode_cache_entry({first.cache_key, first.code + "// forged\n", first.log});
    bytes[bytes.size() - 3] = 'X';  // the checksum no longer matches
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
    testing::internal::CaptureStderr();
    const kl::CompiledCode again = kl::compile_kernel(req);
    const std::string warning = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(again.from_cache);
    EXPECT_EQ(again.code, first.code);
    EXPECT_NE(warning.find("is damaged (its checksum does not match its contents); compiling"), std::string::npos)
        << warning;
    // A whole entry of another key copied over this one.
    std::ofstream(entry, std::ios::binary | std::ios::trunc)
        << kl::encode_cache_entry({std::string(64, 'c'), "forged", ""});
    testing::internal::CaptureStderr();
    EXPECT_FALSE(kl::compile_kernel(req).from_cache);
    EXPECT_NE(testing::internal::GetCapturedStderr().find("written for another key"), std::string::npos);
    EXPECT_TRUE(kl::compile_kernel(req).from_cache);  // rewritten whole
}

TEST(CompileCache, NulByteAndFifoIncludeAreInputErrors) {
    TempTree t;
    kl::CompileRequest req;
    req.source_path = t.write("r/k.cu", std::string(kKernel) + std::string("\0int junk;", 10));
    EXPECT_NE(error_of([&] { kl::compile_kernel(req); }).find("k.cu:2: a NUL byte"), std::string::npos);
    ASSERT_EQ(mkfifo(t.path("r/fifo.cuh").c_str(), 0600), 0);
    req.source_path = t.write("r/f.cu", std::string("#include \"fifo.cuh\"\n") + kKernel);
    EXPECT_NE(error_of([&] { kl::compile_kernel(req); }).find("f.cu:1: #include \"fifo.cuh\""), std::string::npos);
}

// [SECTION] Where the cache may be

TEST(CacheFolder, InsideTheDataTreeIsRefused) {
    const char* saved = std::getenv("XDG_CACHE_HOME");
    const std::string keep = saved ? saved : "";
    setenv("XDG_CACHE_HOME", (kl::data_root() + "/kernels/cache").c_str(), 1);
    const std::string error = error_of([] { kl::cache_dir("kernels"); });
    if (saved)
        setenv("XDG_CACHE_HOME", keep.c_str(), 1);
    else
        unsetenv("XDG_CACHE_HOME");
    EXPECT_NE(error.find("is inside the data tree"), std::string::npos) << error;
    EXPECT_FALSE(fs::exists(kl::data_root() + "/kernels/cache"));
}

// [SECTION] try's staging

TEST(TryStaging, StagesTheFileAndTheHeadersItNamesPrivately) {
    TempTree t;
    t.write("mine/used.cuh", "#include \"sub/nested.cuh\"\n");
    t.write("mine/sub/nested.cuh", "#define KL_VALUE 1.0f\n");
    t.write("mine/unrelated.cuh", "#error not staged\n");
    const std::string file = t.write("mine/-DFOO\".cu", std::string("#include \"used.cuh\"\n") + kKernel);
    chmod(file.c_str(), 0640);
    chmod(t.path("mine/used.cuh").c_str(), 0644);
    std::string folder;
    {
        kl::TryStaging staging(file, "mine.cu", t.path("like"));
        folder = staging.folder();
        EXPECT_EQ(staging.source(), folder + "/mine.cu");
        std::vector<std::string> staged;
        for (const auto& e : fs::recursive_directory_iterator(folder))
            if (e.is_regular_file()) staged.push_back(fs::relative(e.path(), folder).string());
        std::sort(staged.begin(), staged.end());
        EXPECT_EQ(staged, (std::vector<std::string>{"mine.cu", "sub/nested.cuh", "used.cuh"}));
        struct stat st {};
        ASSERT_EQ(stat(staging.source().c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0600u);  // 0640: the group's read bit is not kept
        ASSERT_EQ(stat(folder.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0700u);
        kl::CompileRequest req;
        req.source_path = staging.source();
        req.output = kl::CompileRequest::Output::Ptx;
        EXPECT_NE(kl::compile_kernel(req).code.find("1065353216"), std::string::npos);
    }
    EXPECT_FALSE(fs::exists(folder)) << "the staging folder outlived the run";
    // A header deleted since: the next staging has no copy of it, and the compile says so.
    fs::remove(t.path("mine/sub/nested.cuh"));
    kl::TryStaging staging(file, "mine.cu", t.path("like"));
    EXPECT_FALSE(fs::exists(staging.folder() + "/sub/nested.cuh"));
    kl::CompileRequest req;
    req.source_path = staging.source();
    EXPECT_THROW(kl::compile_kernel(req), kl::CompileError);
}

// [SECTION] The compile time limit

TEST(CompileTimeLimit, EndsTheProcessWithOneLine) {
    kl::CompileRequest req;
    req.source_path = kl::data_root() + "/tests/hostile/slow_compile.cu";
    req.label = "tiny/slow";
    EXPECT_EXIT(
        {
            setenv("KL_COMPILE_TIMEOUT_S", "1", 1);
            kl::compile_kernel(req);
        },
        testing::ExitedWithCode(2), "kladder: compiling tiny/slow took longer than 1 s \\(KL_COMPILE_TIMEOUT_S\\)");
    setenv("KL_COMPILE_TIMEOUT_S", "1.5", 1);
    EXPECT_NE(error_of([] { kl::compile_time_limit_s(); }).find("'1.5' is not a number of seconds"), std::string::npos);
    unsetenv("KL_COMPILE_TIMEOUT_S");
    EXPECT_EQ(kl::compile_time_limit_s(), 300);
}

}  // namespace kl_test_compile_cache
