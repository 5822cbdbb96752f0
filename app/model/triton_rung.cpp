#include "model/triton_rung.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/child_exec.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "base/paths.h"
#include "model/triton_child.h"
#include "model/triton_source.h"

namespace fs = std::filesystem;

namespace kl {

namespace {

// Importing Triton takes seconds on a cold disk; a compile of a large kernel, tens of seconds.
constexpr double kProbeTimeoutS = 120;
constexpr double kCompileTimeoutS = 120;

// What to do about it, the same words everywhere.
const char* const kInstallHint =
    "pip install triton in that python3 (system-wide or in a virtual environment: the helper runs it isolated, "
    "without user site-packages), or set KL_PYTHON to a python3 that has it";

std::string first_line(const std::string& text) {
    size_t start = text.find_first_not_of(" \n\r\t");
    if (start == std::string::npos) return "";
    // The last non-empty line: Python ends a traceback with the error itself.
    size_t end = text.find_last_not_of(" \n\r\t");
    size_t nl = text.rfind('\n', end);
    const size_t from = nl == std::string::npos || nl < start ? start : nl + 1;
    std::string line;
    for (unsigned char c : text.substr(from, std::min<size_t>(end + 1 - from, 300))) {
        if (c >= 0x20 && c != 0x7f) {
            line += static_cast<char>(c);
            continue;
        }
        char hex[8];  // the child's words reach a terminal: no control character passes
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        line += hex;
    }
    return line;
}

uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace

// [SECTION] Python and Triton

TritonAvailability probe_triton(const std::string& kl_python) {
    TritonAvailability a;
    if (!kl_python.empty()) {
        a.python = find_on_path(kl_python);
        if (a.python.empty()) {
            a.reason = "Triton rungs need Python with Triton: KL_PYTHON=" + kl_python +
                       " is not on PATH (set it to a python3 and pip install triton there)";
            return a;
        }
    } else {
        a.python = find_on_path("python3");
        if (a.python.empty()) {
            a.reason =
                "Triton rungs need Python with Triton: no python3 on PATH (install Python 3, pip install "
                "triton, or set KL_PYTHON to a python3 that has it)";
            return a;
        }
    }
    std::error_code ec;
    const fs::path absolute = fs::absolute(a.python, ec);  // the helper runs in a folder of its own
    if (!ec) a.python = absolute.lexically_normal().string();
    ExecResult r;
    try {
        PrivateFolder folder;
        r = run_triton_helper(a.python, {"--probe"}, "", folder.path(), kProbeTimeoutS);
    } catch (const Error& e) {
        a.reason = std::string("Triton rungs: ") + e.what();
        return a;
    }
    if (!r.started) {
        a.reason = "Triton rungs need Python with Triton: cannot run " + r.failure +
                   "; set KL_PYTHON to a python3 "
                   "that has Triton (pip install triton)";
        return a;
    }
    if (r.timed_out) {
        a.reason = "Triton rungs: " + a.python + " did not answer within " + std::to_string(int(kProbeTimeoutS)) +
                   " s when importing triton";
        return a;
    }
    if (r.exit_code != 0) {
        std::string why = first_line(r.err);
        if (why.rfind("cannot import triton: ", 0) == 0) why.erase(0, 22);
        a.reason = "Triton rungs need Triton: " + a.python + " cannot import triton (" + why + "); " + kInstallHint;
        return a;
    }
    try {
        nlohmann::json j = parse_json_limited(r.out, a.python + " --probe");
        a.version = j.value("triton_version", "");
    } catch (const std::exception&) {}
    if (a.version.empty()) {
        a.reason = "Triton rungs: " + a.python + " answered the probe with something other than the helper's JSON (" +
                   first_line(r.out + r.err) + ")";
        return a;
    }
    a.available = true;
    return a;
}

const TritonAvailability& triton_availability() {
    static std::once_flag once;
    static TritonAvailability cached;
    std::call_once(once, [] {
        const char* env = std::getenv("KL_PYTHON");
        cached = probe_triton(env ? env : "");
    });
    return cached;
}

void check_triton_rung_source(const Rung& rung) {
    std::vector<std::string> kernels;
    read_checked_triton_source(rung.source_path, &kernels);
    for (const LaunchSpec& l : rung.launches)
        if (!l.entry.empty() && std::find(kernels.begin(), kernels.end(), l.entry) == kernels.end()) {
            std::string have;
            for (const auto& k : kernels) have += (have.empty() ? "" : ", ") + k;
            throw InputError(rung.source_path + ": no @triton.jit function '" + l.entry +
                             "' (the launch's entry; it has " + (have.empty() ? "none" : have) + ")");
        }
}

// [SECTION] Request

TritonCompileRequest triton_request(const Rung& rung, const LaunchSpec& launch, const ParamValues& params,
                                    const Scope& scope, const std::map<std::string, DType>& buffer_dtypes, int arch_cc,
                                    const std::string& label) {
    TritonCompileRequest req;
    req.source_path = rung.source_path;
    req.kernel = launch.entry;
    req.label = label;
    req.arch = arch_cc;
    std::map<std::string, int64_t> consts;
    for (const auto& [name, value] : params) {
        if (name == "num_warps")
            req.num_warps = static_cast<int>(value);
        else if (name == "num_stages")
            req.num_stages = static_cast<int>(value);
        else
            consts[name] = value;
    }
    for (const auto& [name, e] : rung.constexprs) consts[name] = e.eval(scope);
    req.constexprs.assign(consts.begin(), consts.end());
    for (const auto& a : launch.args) {
        TritonArg t;
        if (a.kind == ArgSpec::Kind::Buffer) {
            auto it = buffer_dtypes.find(a.buffer);
            if (it == buffer_dtypes.end()) throw InputError(label + ": argument '" + a.text + "': unknown buffer");
            t.type = "*" + to_string(it->second);
            t.div16 = true;  // cudaMalloc'ed: 256-byte aligned
        } else if (a.kind == ArgSpec::Kind::TensorMap) {
            throw InputError(label + ": argument '" + a.text + "': Triton rungs take no tensor maps");
        } else if (a.is_literal || a.type == ArgSpec::Type::F32) {
            t.type = "fp32";
        } else {
            t.type = a.type == ArgSpec::Type::I64 ? "i64" : "i32";
            t.div16 = a.value.eval(scope) % 16 == 0;
        }
        req.signature.push_back(t);
    }
    return req;
}

std::string encode_triton_request(const TritonCompileRequest& req, const std::string& staged) {
    nlohmann::json j;
    j["source"] = staged.empty() ? req.source_path : staged;
    j["display"] = req.source_path;
    j["kernel"] = req.kernel;
    nlohmann::json sig = nlohmann::json::array();
    for (const auto& a : req.signature) sig.push_back({{"type", a.type}, {"div16", a.div16}});
    j["signature"] = sig;
    nlohmann::json c = nlohmann::json::object();
    for (const auto& [name, v] : req.constexprs) c[name] = v;
    j["constexprs"] = c;
    j["num_warps"] = req.num_warps;
    j["num_stages"] = req.num_stages;
    j["arch"] = req.arch;
    return j.dump();
}

// [SECTION] Answer

std::string base64_decode(const std::string& text, bool* ok) {
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    std::string out;
    out.reserve(text.size() / 4 * 3);
    uint32_t acc = 0;
    int bits = 0;
    size_t i = 0;
    for (; i < text.size() && text[i] != '='; ++i) {
        int v = value(text[i]);
        if (v < 0) return *ok = false, std::string();
        acc = (acc << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xFF));
        }
    }
    for (; i < text.size(); ++i)
        if (text[i] != '=') return *ok = false, std::string();
    *ok = text.size() % 4 == 0;
    return out;
}

TritonCompiled parse_triton_answer(const std::string& text, const std::string& label) {
    const std::string origin = "Triton compile helper's answer for " + label;
    nlohmann::json j = parse_json_limited(text, origin);
    JsonReader r{origin};
    if (!j.is_object()) r.fail("", "expected a JSON object");
    if (!j.value("ok", false)) {
        std::string why = j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>() : "no reason";
        throw CompileError("Triton rung " + label + " failed to compile: " + why, why);
    }
    TritonCompiled k;
    k.name = r.str(j, "name", "name");
    k.triton_version = r.str(j, "triton_version", "triton_version");
    bool ok = false;
    k.cubin = base64_decode(r.str(j, "cubin_base64", "cubin_base64"), &ok);
    if (!ok || k.cubin.size() < 4 ||
        k.cubin.compare(0, 4,
                        "\x7f"
                        "ELF") != 0)
        r.fail("cubin_base64", "not the base64 of an ELF cubin");
    k.ptx = r.str_or(j, "ptx", "", "ptx");
    k.ttgir = r.str_or(j, "ttgir", "", "ttgir");
    if (j.contains("params") && j["params"].is_array())
        for (const auto& p : j["params"])
            if (p.is_string()) k.params.push_back(p.get<std::string>());
    const nlohmann::json& md = r.need(j, "metadata", "metadata");
    constexpr int64_t big = int64_t(1) << 40;
    k.shared = r.integer(md, "shared", "metadata.shared", 0, big);
    k.num_warps = static_cast<int>(r.integer(md, "num_warps", "metadata.num_warps", 1, 32));
    k.num_stages = static_cast<int>(r.integer(md, "num_stages", "metadata.num_stages", 0, 64));
    k.num_ctas = static_cast<int>(r.integer(md, "num_ctas", "metadata.num_ctas", 1, 16));
    k.global_scratch_size = r.integer(md, "global_scratch_size", "metadata.global_scratch_size", 0, big);
    k.global_scratch_align = r.integer(md, "global_scratch_align", "metadata.global_scratch_align", 1, 4096);
    k.profile_scratch_size = r.integer(md, "profile_scratch_size", "metadata.profile_scratch_size", 0, big);
    k.profile_scratch_align = r.integer(md, "profile_scratch_align", "metadata.profile_scratch_align", 1, 4096);
    if (k.num_ctas != 1)
        throw InputError(label + ": the kernel asks for " + std::to_string(k.num_ctas) +
                         " CTAs per program (clusters); Triton rungs run num_ctas = 1");
    return k;
}

std::string triton_cache_key(const TritonCompileRequest& req, const std::string& source, const std::string& helper,
                             const std::string& triton_version) {
    TritonCompileRequest keyed = req;
    keyed.source_path.clear();  // the bytes count, not where they are
    keyed.label.clear();
    uint64_t h = fnv1a(source);
    h = fnv1a(helper, h);
    h = fnv1a(encode_triton_request(keyed), h);
    h = fnv1a("triton " + triton_version, h);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

TritonCompiled compile_triton(const TritonCompileRequest& req) {
    // First the rules, in C++: a source outside them never reaches Python, not even the probe's.
    std::vector<std::string> kernels;
    const std::string source = read_checked_triton_source(req.source_path, &kernels);
    if (std::find(kernels.begin(), kernels.end(), req.kernel) == kernels.end())
        throw InputError(req.source_path + ": no @triton.jit function '" + req.kernel + "' (rung " + req.label + ")");
    const TritonAvailability& avail = triton_availability();
    if (!avail.available) throw InputError(avail.reason);
    const std::string key = triton_cache_key(req, source, triton_helper_source(), avail.version);
    const std::string cache_path = cache_dir("kernels") + "/" + key + ".triton.json";
    std::error_code ec;
    if (fs::is_regular_file(cache_path, ec)) {
        try {
            TritonCompiled k = parse_triton_answer(read_file(cache_path), req.label);
            k.cache_key = key;
            k.from_cache = true;
            return k;
        } catch (const Error&) {
            // A damaged cache entry costs a recompile, nothing more.
        }
    }
    // The helper compiles the bytes checked above, copied into its private folder: the rung's file
    // may change after the check, the copy cannot.
    PrivateFolder folder;
    const std::string staged = folder.path() + "/rung.py";
    write_file_atomically(staged, source);
    ExecResult r =
        run_triton_helper(avail.python, {}, encode_triton_request(req, staged), folder.path(), kCompileTimeoutS);
    if (!r.started) throw InputError("Triton rung " + req.label + ": cannot run " + avail.python + ": " + r.failure);
    if (r.timed_out)
        throw CompileError("Triton rung " + req.label + ": the compile did not finish within " +
                               std::to_string(int(kCompileTimeoutS)) + " s and was stopped",
                           r.err);
    if (r.overflowed)
        throw CompileError("Triton rung " + req.label + ": the compile helper wrote more than 64 MiB and was stopped",
                           r.err.substr(0, 65536));
    if (r.out.empty())
        throw CompileError("Triton rung " + req.label + ": the helper exited with " + std::to_string(r.exit_code) +
                               " and no answer: " + first_line(r.err),
                           r.err);
    TritonCompiled k;
    try {
        k = parse_triton_answer(r.out, req.label);
    } catch (const CompileError& e) { throw CompileError(e.what(), e.log() + "\n" + r.err); }
    k.cache_key = key;
    try {
        write_file_atomically(cache_path, r.out);
    } catch (const Error&) {
        // A read-only cache folder costs a recompile next time, nothing more.
    }
    return k;
}

// [SECTION] Launch contract

TritonLaunchShape triton_launch_shape(const TritonCompiled& k, dim3 grid) {
    TritonLaunchShape s;
    s.block = dim3(static_cast<unsigned>(k.num_warps * 32));
    s.shared = k.shared;
    // As Triton's own launcher: one slice per program (and CTA), the whole rounded to the alignment.
    const int64_t programs = int64_t(grid.x) * grid.y * grid.z * k.num_ctas;
    auto bytes = [&](int64_t size, int64_t align) {
        if (size <= 0) return int64_t(0);
        const int64_t total = programs * size;
        return (total + align - 1) / align * align;
    };
    s.global_scratch_bytes = bytes(k.global_scratch_size, k.global_scratch_align);
    s.profile_scratch_bytes = bytes(k.profile_scratch_size, k.profile_scratch_align);
    return s;
}

std::vector<KernelArg> pack_triton_args(std::vector<KernelArg> args, const void* global_scratch,
                                        const void* profile_scratch) {
    args.push_back(KernelArg::pointer(global_scratch));
    args.push_back(KernelArg::pointer(profile_scratch));
    return args;
}

}  // namespace kl
