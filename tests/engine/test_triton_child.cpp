// The Triton helper's child process (app/model/triton_child.h): what it inherits (an environment
// of four variables, no descriptor of ours, a private folder), its limits (time with the whole
// process group, output), and the helper's audit hook, run by the machine's real python3 against
// a stand-in Triton package whose compile tries what a hostile rung might make Triton do.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/child_exec.h"
#include "model/triton_child.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_triton_child {

namespace {

std::string script(const TempTree& t, const std::string& name, const std::string& body) {
    std::string p = t.write(name, "#!/bin/sh\n" + body);
    chmod(p.c_str(), 0755);
    return p;
}

bool alive(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

// The interpreter python3 on PATH runs (itself, not a launcher script such as a pyenv shim) and
// its version, "3.11".
std::pair<std::string, std::string> real_python() {
    kl::ExecResult r = kl::run_program(
        {kl::find_on_path("python3"), "-c", "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])"},
        "", 60);
    const size_t nl = r.out.find('\n');
    if (nl == std::string::npos || r.out.size() < nl + 2) return {"", ""};
    return {r.out.substr(0, nl), r.out.substr(nl + 1, r.out.size() - nl - 2)};
}

// A stand-in for Triton in a virtual-environment layout around the real python3 (so `-I` still
// finds it): jit, ASTSource, GPUTarget, and a compile that does each action of actions.json
// (write PATH, write_here NAME, run ARGV..., system CMD, socket, dlopen LIB), printing what
// happened to stderr, then answers like Triton.
const char* const kFakeTriton = R"PY(
import json, os, subprocess
__version__ = "0.0-stand-in"
HERE = os.path.dirname(os.path.realpath(__file__))
def jit(fn):
    fn.arg_names = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    fn.constexprs = []
    return fn
class Kernel:
    asm = {"cubin": b"\x7fELF\x02\x01\x01\x00stand-in", "ptx": ".visible .entry k(", "ttgir": ""}
    metadata = {"name": "k", "shared": 0, "num_warps": 4, "num_stages": 1, "num_ctas": 1}
def attempt(action):
    kind = action[0]
    if kind == "write": open(action[1], "w").write("x")
    elif kind == "write_here": open(os.path.join(os.getcwd(), action[1]), "w").write("x")
    elif kind == "run": subprocess.run(action[1:], check=True)
    elif kind == "ptxas": subprocess.run([HERE + "/backends/nvidia/bin/ptxas", "--version"], check=True, close_fds=False)
    elif kind == "system": os.system(action[1])
    elif kind == "socket": __import__("socket").socket()
    elif kind == "dlopen": __import__("ctypes").CDLL(action[1])
    else: raise ValueError("the test asks for an unknown action %r" % (action, ))
def compile(src, target=None, options=None):
    for action in json.load(open(HERE + "/actions.json")):
        try:
            attempt(action)
            print("did", action)
        except OSError as e:
            print("refused", action, e)
    return Kernel()
)PY";

class FakeTriton {
  public:
    explicit FakeTriton(const TempTree& t) : t_(t) {
        const auto [exe, version] = real_python();
        std::filesystem::create_directories(t.path("venv/bin"));
        std::filesystem::create_symlink(exe, t.path("venv/bin/python3"));
        t.write("venv/pyvenv.cfg", "home = " + std::filesystem::path(exe).parent_path().string() +
                                       "\ninclude-system-site-packages = false\n");
        package_ = "venv/lib/python" + version + "/site-packages/triton";
        t.write(package_ + "/__init__.py", kFakeTriton);
        t.write(package_ + "/language/__init__.py", "class constexpr:\n    pass\n");
        t.write(package_ + "/compiler/__init__.py",
                "class ASTSource:\n    def __init__(self, fn, signature, constexprs, attrs):\n        self.fn = fn\n");
        t.write(package_ + "/backends/__init__.py", "");
        t.write(package_ + "/backends/compiler.py",
                "class GPUTarget:\n    def __init__(self, backend, arch, warp):\n        pass\n");
        script(t, package_ + "/backends/nvidia/bin/ptxas", "echo 'ptxas stand-in release 13.0'\n");
        python_ = t.path("venv/bin/python3");
    }

    // Compiles a one-kernel rung with the helper, as compile_triton runs it; the helper's answer.
    nlohmann::json compile(const std::vector<std::vector<std::string>>& actions, std::string* err = nullptr) {
        t_.write(package_ + "/actions.json", nlohmann::json(actions).dump());
        kl::PrivateFolder folder;
        kl::write_file_atomically(folder.path() + "/rung.py", "import triton\n\n@triton.jit\ndef k(x):\n    pass\n");
        const std::string req = R"({"source": ")" + folder.path() +
                                R"(/rung.py", "display": "rung.py", )"
                                R"("kernel": "k", "signature": [{"type": "*fp32"}], "constexprs": {}, )"
                                R"("num_warps": 4, "num_stages": 1, "arch": 90})";
        kl::ExecResult r = kl::run_triton_helper(python_, {}, req, folder.path(), 60);
        if (err) *err = r.err;
        try {
            return nlohmann::json::parse(r.out);
        } catch (const std::exception&) { return {{"ok", false}, {"error", "no answer: " + r.err}}; }
    }

  private:
    const TempTree& t_;
    std::string package_, python_;
};

}  // namespace

// [SECTION] What the child inherits

TEST(TritonChild, EnvironmentIsFourVariablesAndTheInterpreterIsIsolated) {
    TempTree t;
    setenv("PYTHONPATH", "/evil", 1);
    setenv("TRITON_CACHE_MANAGER", "evil:Manager", 1);
    setenv("PYTHONSTARTUP", "/evil.py", 1);
    const std::string py = script(t, "python3",
                                  "env > \"$HOME/env.txt\"; pwd -P > \"$HOME/pwd.txt\"; "
                                  "echo \"$1 $2 $3\" > \"$HOME/args.txt\"; cp \"$HOME\"/*.txt " +
                                      t.root() + "/\n");
    std::string folder;
    {
        kl::PrivateFolder f;
        folder = f.path();
        struct stat st {};
        ASSERT_EQ(stat(folder.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0700u) << "the folder must be private";
        kl::ExecResult r = kl::run_triton_helper(py, {"--probe"}, "", folder, 30);
        EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(folder)) << "the folder outlives the compile";
    unsetenv("PYTHONPATH");
    unsetenv("TRITON_CACHE_MANAGER");
    unsetenv("PYTHONSTARTUP");
    const std::string env = kl::read_file(t.path("env.txt"));
    for (const char* gone : {"PYTHONPATH", "TRITON_CACHE_MANAGER", "PYTHONSTARTUP", "XDG_CACHE_HOME", "USER="})
        EXPECT_EQ(env.find(gone), std::string::npos) << gone << " reached the helper:\n" << env;
    for (const std::string& kept :
         {"HOME=" + folder, "TMPDIR=" + folder, "TRITON_CACHE_DIR=" + folder + "/triton-cache",
          "PATH=" + t.root() + ":/usr/bin:/bin"})
        EXPECT_NE(env.find(kept + "\n"), std::string::npos) << kept << " missing:\n" << env;
    EXPECT_NE(kl::read_file(t.path("pwd.txt")).find("kladder-triton-"), std::string::npos) << "cwd: its own folder";
    EXPECT_EQ(kl::read_file(t.path("args.txt")), "-I -B -c\n");
}

TEST(TritonChild, NoDescriptorOfOursIsInherited) {
    TempTree t;
    const int fd = open(t.write("secret.txt", "s").c_str(), O_RDONLY);  // no O_CLOEXEC
    ASSERT_GE(fd, 0);
    ASSERT_EQ(dup2(fd, 100), 100);
    const std::string py = script(t, "python3", "ls /proc/$$/fd\n");
    kl::PrivateFolder folder;
    kl::ExecResult r = kl::run_triton_helper(py, {}, "", folder.path(), 30);
    close(100);
    close(fd);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(("\n" + r.out).find("\n100\n"), std::string::npos) << r.out;
}

// [SECTION] Limits

TEST(TritonChild, TimeLimitKillsTheWholeProcessGroup) {
    TempTree t;
    const std::string pidfile = t.path("pid.txt");
    const std::string py = script(t, "python3", "sleep 60 & echo $! > " + pidfile + "\nsleep 60\n");
    kl::PrivateFolder folder;
    const auto t0 = std::chrono::steady_clock::now();
    kl::ExecResult r = kl::run_triton_helper(py, {}, "", folder.path(), 0.5);
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
    const pid_t child = std::stoi(kl::read_file(pidfile));
    for (int i = 0; i < 200 && alive(child); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(alive(child)) << "the helper's own child outlived the time limit";
}

TEST(TritonChild, ClosingItsOutputsDoesNotEscapeTheTimeLimit) {
    TempTree t;
    const std::string py = script(t, "python3", "exec >&- 2>&- <&-\nsleep 60\n");
    kl::PrivateFolder folder;
    const auto t0 = std::chrono::steady_clock::now();
    kl::ExecResult r = kl::run_triton_helper(py, {}, "", folder.path(), 0.5);
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
}

TEST(TritonChild, EndlessOutputIsStopped) {
    TempTree t;
    const std::string py = script(t, "python3", "exec yes\n");
    kl::PrivateFolder folder;
    kl::ExecResult r = kl::run_triton_helper(py, {}, "", folder.path(), 60);
    EXPECT_TRUE(r.overflowed);
    EXPECT_FALSE(r.timed_out);
}

// [SECTION] The audit hook, with the real python3 and a stand-in Triton

TEST(TritonChildHook, ACompileWithinItsFolderAndTritonsOwnPtxasIsAnswered) {
    TempTree t;
    FakeTriton triton(t);
    std::string err;
    nlohmann::json a = triton.compile({{"write_here", "scratch.ptx"}, {"ptxas"}}, &err);
    EXPECT_TRUE(a.value("ok", false)) << a.dump() << "\n" << err;
    EXPECT_EQ(a.value("triton_version", ""), "0.0-stand-in");
    EXPECT_NE(err.find("ptxas stand-in"), std::string::npos) << err;
}

TEST(TritonChildHook, WritesOutsideItsFolderAreRefused) {
    TempTree t;
    FakeTriton triton(t);
    const std::string outside = t.path("outside.txt");
    nlohmann::json a = triton.compile({{"write", outside}});
    EXPECT_FALSE(a.value("ok", true));
    EXPECT_NE(a.value("error", "").find("refused writing " + outside), std::string::npos) << a.dump();
    EXPECT_FALSE(std::filesystem::exists(outside));
    a = triton.compile({{"write", "relative.txt"}});
    EXPECT_NE(a.value("error", "").find("a relative path"), std::string::npos) << a.dump();
}

TEST(TritonChildHook, ProgramsNetworkAndNativeCodeAreRefused) {
    TempTree t;
    FakeTriton triton(t);
    const std::string marker = t.path("ran.txt");
    for (const std::vector<std::string>& action :
         std::vector<std::vector<std::string>>{{"run", "/bin/sh", "-c", "touch " + marker},
                                               {"system", "touch " + marker},
                                               {"socket"},
                                               {"dlopen", "libc.so.6"}}) {
        SCOPED_TRACE(action.front());
        nlohmann::json a = triton.compile({action});
        EXPECT_FALSE(a.value("ok", true)) << a.dump();
        EXPECT_NE(a.value("error", "").find("refused"), std::string::npos) << a.dump();
    }
    EXPECT_FALSE(std::filesystem::exists(marker)) << "a program ran";
}

}  // namespace kl_test_triton_child
