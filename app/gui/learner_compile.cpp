#include "gui/learner_compile.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "gui/runner_client.h"

namespace kl::gui {

LearnerCompileOutcome learner_compile_outcome(int exit_code, const std::string& out, const std::string& err,
                                              const std::string& file) {
    LearnerCompileOutcome o;
    nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    if (!j.is_object() || j.value("schema", "") != "kernel-ladder/try") {
        const std::string line = err.substr(0, err.find('\n'));
        o.summary = line.empty() ? "kladder try exited " + std::to_string(exit_code) + " without a word" : line;
        o.diagnostics.push_back({file, 0, 0, Severity::Error, o.summary});
        return o;
    }
    o.compiled = j.value("compiled", false);
    try {
        const nlohmann::json& ds = j.at("diagnostics");
        for (size_t i = 0; i < ds.size() && i < 1000; ++i)
            o.diagnostics.push_back(diagnostic_from_json(ds[i], "diagnostics[" + std::to_string(i) + "]"));
    } catch (const std::exception& e) {
        o.compiled = false;
        o.summary = std::string("kladder try printed diagnostics this window cannot read: ") + e.what();
        return o;
    }
    if (!o.compiled)
        o.summary = "did not compile: " + count_diagnostics(o.diagnostics);
    else
        o.summary = "compiled with NVRTC" +
                    (o.diagnostics.empty() ? std::string() : " (" + count_diagnostics(o.diagnostics) + ")") +
                    "; no GPU here to check and time it";
    return o;
}

void LearnerCompile::start(const std::string& ladder, const std::string& path, const ParamValues& params, DType dtype) {
    std::vector<std::string> argv = {"", "try", ladder, "--json", "--compile-only", "--dtype", to_string(dtype)};
    for (const auto& [k, v] : params) argv.insert(argv.end(), {"-p", k + "=" + std::to_string(v)});
    argv.insert(argv.end(), {"--", path});
    const std::string file = path.substr(path.find_last_of('/') + 1);
    result_ = std::async(std::launch::async, [argv, file, cancel = cancel_.start()]() mutable {
                  std::string why;
                  argv[0] = find_kladder(&why);
                  if (argv[0].empty()) return learner_compile_outcome(-1, "", why, file);
                  ChildResult c = run_child(argv, cancel.get());
                  if (c.cancelled) return LearnerCompileOutcome{false, {}, "compile cancelled"};
                  if (!c.started) return learner_compile_outcome(-1, "", "kladder try: " + c.failure, file);
                  return learner_compile_outcome(c.exit_code, c.out, c.err, file);
              }).share();
}

bool LearnerCompile::running() const {
    return result_.valid() && result_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

std::optional<LearnerCompileOutcome> LearnerCompile::take() {
    if (!result_.valid() || running()) return std::nullopt;
    LearnerCompileOutcome o = result_.get();
    result_ = {};
    return o;
}

}  // namespace kl::gui
