// `kladder check-kernels`: NVRTC-compiles every rung at its default parameters and at the ends
// of each parameter's range (other parameters at defaults; the ends in the rung's widest dtype unless
// --every-dtype; --defaults-only: the defaults alone), and every lesson
// exercise's starter file and reference solution as its starter rung (cmd_exercise.cpp), skipping combinations
// that break the rung's constraints, for each architecture of --arch (a list). A rung that needs a newer architecture
// than the target (its manifest's min_arch, or an "a" target such as sm_90a) is skipped by design, with its declared
// reason, not failed. Needs no GPU. Exit 0 when every compilation succeeds and no rung at its defaults draws a ptxas
// "Potential Performance Loss" (wgmmas serialized, C7510 / C7520: a rung that ships so runs at a fraction of its
// speed); the same note on another combination is printed as a warning. Triton rungs compile through the Triton helper
// (triton_rung.h) when the learner's python3 has Triton, and are listed as skipped, with what to install, when not.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <cstdio>
#include <memory>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "cli_common.h"
#include "commands.h"
#include "gpu/compiler.h"
#include "gpu/runner.h"
#include "model/compile_diagnostics.h"
#include "model/device_profile.h"
#include "model/operation.h"
#include "model/triton_rung.h"

namespace kl::cli {

namespace {
struct CheckOptions {
    std::string ladder;
    std::vector<std::string> archs{"sm_90"};
    bool defaults_only = false;  // each rung at its default parameters only, not its range ends
    bool every_dtype = false;    // range ends in every dtype, not only the widest (see ends_dtype)
    bool verbose = false;
};

struct Counts {
    int compiled = 0, failed = 0, skipped = 0, by_design = 0, no_triton = 0, slow = 0;  // slow: ptxas notes
};

// Parameter sets to try: defaults, then (unless defaults_only) each parameter at the ends of its
// range.
std::vector<ParamValues> variants(const Rung& r, bool defaults_only) {
    std::vector<ParamValues> out;
    out.push_back(resolve_params(r, {}));
    if (defaults_only) return out;
    for (const auto& p : r.params) {
        auto allowed = p.allowed();
        if (allowed.empty()) continue;  // the loader refuses such ranges; never index an empty list
        for (int64_t v : {allowed.front(), allowed.back()}) {
            if (v == p.default_value) continue;
            ParamValues pv = resolve_params(r, {{p.name, v}});
            bool dup = false;
            for (const auto& o : out) dup |= o == pv;
            if (!dup) out.push_back(pv);
        }
    }
    return out;
}

// The dtype a rung's range ends compile in (its defaults compile in every dtype): the widest, the
// worst case for what a parameter's end can break at compile time (registers, static shared memory,
// unrolled loads); the first listed among equals. Every dtype at every end was 908 compilations on
// sm_90 (2026-12-01), the suite's longest test on CI's two cores; the widest alone is 660.
DType ends_dtype(const Rung& r) {
    DType widest = r.dtypes.front();
    for (DType d : r.dtypes)
        if (dtype_size(d) > dtype_size(widest)) widest = d;
    return widest;
}

// NVRTC accepts an empty file and a file without the kernel a launch names; the runner would
// only find out on the GPU. A CUBIN holds one ".text.<entry>" section per kernel.
std::vector<std::string> missing_entries(const Rung& r, const CompiledCode& c) {
    std::vector<std::string> missing;
    for (const auto& l : r.launches)
        if (!l.entry.empty() && c.code.find(".text." + l.entry + std::string(1, '\0')) == std::string::npos)
            missing.push_back(l.entry);
    return missing;
}

bool blank_source(const std::string& path) {
    std::string text = read_file(path);
    return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

std::string describe(const ParamValues& pv) {
    std::string s;
    for (const auto& [k, v] : pv) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return s.empty() ? "(no parameters)" : printable(s);  // parameter names come from ladder.toml
}

// One variant of a Triton rung, every launch that applies at the ladder's default sizes, through
// the helper (cached like NVRTC output).
void check_triton_variant(const CheckOptions& opt, const Ladder& L, const Rung& r, const ParamValues& pv, DType dt,
                          const Problem& p, int cc, Counts& n) {
    std::map<std::string, DType> dtypes;
    for (const auto& b : find_operation(r.operation)->buffers(p)) dtypes[b.name] = b.dtype;
    for (const auto& s : r.scratch) dtypes[s.name] = s.dtype ? *s.dtype : dt;
    const Scope scope = make_scope(p.sizes, pv, dt, 132);
    const std::string label = L.id + "/" + r.id;
    for (const LaunchSpec* l : applicable_launches(r, scope)) {
        try {
            TritonCompiled c = compile_triton(triton_request(r, *l, pv, scope, dtypes, cc, label));
            ++n.compiled;
            if (opt.verbose)
                std::printf("ok    %s %s sm_%d %s (Triton %s, %lld B shared)%s\n", label.c_str(), to_string(dt).c_str(),
                            cc, describe(pv).c_str(), c.triton_version.c_str(), static_cast<long long>(c.shared),
                            c.from_cache ? " (cached)" : "");
        } catch (const Error& e) {
            ++n.failed;
            std::printf("FAIL  %s %s sm_%d %s\n%s\n", label.c_str(), to_string(dt).c_str(), cc, describe(pv).c_str(),
                        printable_lines(e.what()).c_str());
        }
    }
}
// ptxas's "Potential Performance Loss" notes of one compiled variant: a failure at the rung's
// defaults (index 0 of variants()), a warning elsewhere.
void report_performance_notes(const Rung& r, const CompiledCode& c, bool defaults, const CompileRequest& req, DType dt,
                              const ParamValues& pv, Counts& n) {
    for (const auto& d : diagnostics_of_compile(c.log, r.source_path)) {
        if (d.message.rfind("ptxas: ", 0) != 0) continue;
        if (defaults) ++n.failed;
        ++n.slow;
        std::printf("%s  %s %s %s %s: %s\n", defaults ? "FAIL" : "WARN", req.label.c_str(), to_string(dt).c_str(),
                    req.arch.c_str(), describe(pv).c_str(), printable(d.message).c_str());
    }
}

void fail_uncompiled_rung(const Ladder& L, const Rung& r, const std::string& arch, int skipped, Counts& n) {
    ++n.failed;
    std::printf(
        "FAIL  %s/%s on %s: no variant was compiled (%d skipped by the rung's constraints at the ladder's "
        "default sizes)%s\n",
        L.id.c_str(), r.id.c_str(), arch.c_str(), skipped, blank_source(r.source_path) ? "; its file is empty" : "");
}

// Every rung variant of the ladders for one target architecture.
void check_rungs(const CheckOptions& opt, const std::vector<Ladder>& ladders, const std::string& arch, Counts& n) {
    const int cc = parse_arch(arch).cc;
    for (const auto& L : ladders) {
        if (!opt.ladder.empty() && L.id != opt.ladder) continue;
        for (const Rung* rp : L.every_rung()) {  // lab rungs too: their switches compile at their ends
            const Rung& r = *rp;
            if (r.source_path.empty()) continue;  // library rungs (cuBLAS) have nothing to compile
            if (std::string need = rung_arch_refusal(r, cc); !need.empty()) {
                ++n.by_design;
                std::printf("skip  %s/%s on %s: %s\n", L.id.c_str(), r.id.c_str(), arch.c_str(),
                            printable(need).c_str());
                continue;
            }
            if (r.is_triton()) {
                try {
                    check_triton_rung_source(r);  // in C++, before any Python: a bad source never reaches it
                } catch (const Error& e) {
                    ++n.failed;
                    std::printf("FAIL  %s/%s on %s: %s\n", L.id.c_str(), r.id.c_str(), arch.c_str(), e.what());
                    continue;
                }
            }
            if (r.is_triton() && !triton_availability().available) {
                ++n.no_triton;
                std::printf("skip  %s/%s on %s: a Triton rung, and this machine has no Triton (below)\n", L.id.c_str(),
                            r.id.c_str(), arch.c_str());
                continue;
            }
            const int compiled_before = n.compiled, failed_before = n.failed, skipped_before = n.skipped;
            std::set<std::string> manifest_errors;  // one line each, not one per variant
            const std::vector<ParamValues> vs = variants(r, opt.defaults_only);
            for (size_t vi = 0; vi < vs.size(); ++vi) {
                const ParamValues& pv = vs[vi];
                for (DType dt : r.dtypes) {
                    if (vi > 0 && !opt.every_dtype && dt != ends_dtype(r)) continue;
                    // Constraints are checked at the ladder's default sizes.
                    RunOptions ro;
                    ro.dtype = dt;
                    Problem p = resolve_problem(L, r, ro);
                    try {
                        check_constraints(r, make_scope(p.sizes, pv, dt, 132));
                    } catch (const ManifestError& e) {
                        if (manifest_errors.insert(e.what()).second) std::printf("FAIL  %s\n", e.what());
                        continue;
                    } catch (const InputError& e) {
                        ++n.skipped;
                        if (opt.verbose)
                            std::printf("skip  %s/%s %s: %s\n", L.id.c_str(), r.id.c_str(), describe(pv).c_str(),
                                        printable(e.what()).c_str());
                        continue;
                    }
                    if (r.is_triton()) {
                        check_triton_variant(opt, L, r, pv, dt, p, cc, n);
                        continue;
                    }
                    CompileRequest req;
                    req.source_path = r.source_path;
                    req.defines = compile_defines(r, pv, dt);
                    req.arch = rung_arch(r, arch);
                    req.label = L.id + "/" + r.id;
                    try {
                        CompiledCode c = compile_kernel(req);
                        if (auto miss = missing_entries(r, c); !miss.empty()) {
                            ++n.failed;
                            std::printf("FAIL  %s %s %s %s\n%s: no kernel '%s' (launch entry)%s\n", req.label.c_str(),
                                        to_string(dt).c_str(), req.arch.c_str(), describe(pv).c_str(),
                                        printable(r.source_path).c_str(), miss.front().c_str(),
                                        blank_source(r.source_path) ? ": the file is empty" : "");
                            continue;
                        }
                        ++n.compiled;
                        report_performance_notes(r, c, vi == 0, req, dt, pv, n);
                        if (opt.verbose)
                            std::printf("ok    %s %s %s %s%s\n", req.label.c_str(), to_string(dt).c_str(),
                                        req.arch.c_str(), describe(pv).c_str(), c.from_cache ? " (cached)" : "");
                        if (opt.verbose && !c.log.empty()) std::printf("%s\n", printable_lines(c.log).c_str());
                    } catch (const CompileError& e) {
                        ++n.failed;
                        std::printf("FAIL  %s %s %s %s\n%s\n", req.label.c_str(), to_string(dt).c_str(),
                                    req.arch.c_str(), describe(pv).c_str(), printable_lines(e.log()).c_str());
                    }
                }
            }
            n.failed += static_cast<int>(manifest_errors.size());
            // A rung that no variant compiled for (every one skipped by its constraints, or no
            // dtype) would pass unchecked, even an empty file: that fails.
            if (n.compiled == compiled_before && n.failed == failed_before)
                fail_uncompiled_rung(L, r, arch, n.skipped - skipped_before, n);
        }
    }
}

// Engine helpers that are not rungs (random fill, L2 flush, references): compiled with fp32
// storage, so a broken reference is caught here rather than on the GPU machine.
void check_helpers(const CheckOptions& opt, const std::vector<Ladder>& ladders, const std::string& arch, Counts& n) {
    std::set<std::string> rung_files;
    for (const auto& L : ladders)  // lab rungs' files too: a lab rung's file is a rung, not a helper
        for (const Rung* r : L.every_rung()) rung_files.insert(r->source_path);
    std::vector<std::string> helpers;
    for (const auto& e : std::filesystem::recursive_directory_iterator(kernels_dir()))
        if (e.path().extension() == ".cu" && !rung_files.count(e.path().lexically_normal().string()))
            helpers.push_back(e.path().lexically_normal().string());
    std::sort(helpers.begin(), helpers.end());
    for (const auto& h : helpers) {
        CompileRequest req;
        req.source_path = h;
        req.defines = {"ELEM=float", "ELEM_IS_FP32=1"};
        req.arch = arch;
        req.label = std::filesystem::relative(h, kernels_dir()).string();
        try {
            if (blank_source(h)) {
                ++n.failed;
                std::printf("FAIL  %s (helper): the file is empty\n", printable(req.label).c_str());
                continue;
            }
            compile_kernel(req);
            ++n.compiled;
            if (opt.verbose) std::printf("ok    %s %s (helper)\n", printable(req.label).c_str(), arch.c_str());
        } catch (const CompileError& e) {
            ++n.failed;
            std::printf("FAIL  %s %s (helper)\n%s\n", printable(req.label).c_str(), arch.c_str(),
                        printable_lines(e.log()).c_str());
        }
    }
}
}  // namespace

Action add_check_kernels_command(CLI::App& app) {
    auto opt = std::make_shared<CheckOptions>();
    app.add_option("--ladder", opt->ladder, "only this ladder");
    app.add_option("--arch", opt->archs,
                   "targets, e.g. --arch sm_75,sm_80,sm_86,sm_89,sm_90,sm_120 (default sm_90); rungs that need a "
                   "newer architecture are skipped by design")
        ->delimiter(',');
    app.add_flag("--defaults-only", opt->defaults_only,
                 "compile each rung at its default parameters only, not at the ends of their ranges (what "
                 "parameters change is mostly the same for every target: the ends are worth checking on one)");
    app.add_flag("--every-dtype", opt->every_dtype,
                 "compile the ends of the ranges in every dtype of a rung, not only its widest (the defaults "
                 "compile in every dtype either way)");
    app.add_flag("-v,--verbose", opt->verbose, "print every compilation, and NVRTC warnings");
    return [opt] {
        for (const auto& a : opt->archs) {
            ArchName an = parse_arch(a);
            if (an.cc < 50 || an.specific)
                throw InputError("--arch: '" + a + "' is not a target such as sm_86 (rungs pick their own sm_90a)");
        }
        auto ladders = load_ladders_or_throw();
        if (!opt->ladder.empty()) find_ladder_or_throw(ladders, opt->ladder);  // --ladder must name one
        Counts n;
        for (const auto& e : load_errors()) {  // first: a broken manifest is the thing to fix
            std::printf("FAIL  %s\n", printable(e, kMessageChars).c_str());
            ++n.failed;
        }
        auto t0 = std::chrono::steady_clock::now();
        for (const auto& arch : opt->archs) {
            check_rungs(*opt, ladders, arch, n);
            if (opt->ladder.empty()) check_helpers(*opt, ladders, arch, n);
            const ExerciseCompileCounts ex = compile_exercise_files(ladders, arch, opt->ladder, opt->verbose);
            n.compiled += ex.compiled;
            n.failed += ex.failed;
        }
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (n.no_triton)
            std::printf("skipped %d Triton rung-targets: %s\n", n.no_triton,
                        printable(triton_availability().reason).c_str());
        std::string archs;
        for (const auto& a : opt->archs) archs += (archs.empty() ? "" : ",") + a;
        if (opt->defaults_only)
            archs += ", default parameters only";
        else if (!opt->every_dtype)
            archs += ", range ends in each rung's widest dtype";
        std::printf(
            "check-kernels (%s): %d compiled, %d failed, %d ptxas performance notes, %d skipped by constraints, %d "
            "rung-targets skipped by design "
            "(need a newer architecture) (%.1f s, NVRTC %s)\n",
            archs.c_str(), n.compiled, n.failed, n.slow, n.skipped, n.by_design, s, nvrtc_version_string().c_str());
        return n.failed ? static_cast<int>(ExitCode::BadInput) : 0;
    };
}

}  // namespace kl::cli
