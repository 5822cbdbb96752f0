#include "gui/learner_sanitize.h"

#include <imgui.h>

#include <chrono>

#include "base/errors.h"
#include "gui/code_editor.h"
#include "gui/runner_client.h"
#include "gui/ui_style.h"
#include "gui/widgets.h"

namespace kl::gui {

LearnerSanitizeOutcome learner_sanitize_outcome(int exit_code, const std::string& out, const std::string& err) {
    LearnerSanitizeOutcome o;
    o.error = true;
    const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    if (!j.is_object() || j.value("schema", "") != "kernel-ladder/try") {
        const std::string line = err.substr(0, err.find('\n'));
        o.summary =
            line.empty() ? "kladder try --sanitize exited " + std::to_string(exit_code) + " without a word" : line;
        return o;
    }
    auto it = j.find("sanitize");
    if (!j.value("compiled", false) || it == j.end() || !it->is_object()) {
        o.summary = "did not compile: Save and run marks the errors";
        return o;
    }
    const nlohmann::json& s = *it;
    try {
        const std::string tool = s.at("tool").get<std::string>();
        const nlohmann::json& fs = s.at("findings");
        for (size_t i = 0; i < fs.size() && i < kMaxSanitizerFindings; ++i)
            o.findings.push_back(finding_from_json(fs[i], "sanitize.findings[" + std::to_string(i) + "]"));
        const std::string check = s.value("check", "");
        const std::string reason = s.value("reason", "");
        if (!s.value("ran", false) && o.findings.empty()) {
            o.summary = reason;
            return o;
        }
        const size_t n = o.findings.size();
        o.summary = (n == 0 ? std::string("no errors") : std::to_string(n) + (n == 1 ? " finding" : " findings")) +
                    " (compute-sanitizer " + tool + ")" + (check.empty() ? "" : "; the check run: " + check) +
                    (reason.empty() ? "" : "; " + reason);
        o.error = n > 0 || exit_code != 0;
    } catch (const std::exception& e) {
        o.findings.clear();
        o.summary = std::string("kladder try printed findings this window cannot read: ") + e.what();
    }
    return o;
}

void LearnerSanitize::start(bool gpu, const std::string& tool, const std::string& ladder, const std::string& path,
                            const ParamValues& params, const std::map<std::string, int64_t>& sizes, DType dtype) {
    cancel_.cancel();
    result_ = {};
    tool_ = tool;
    shown_ = {};
    if (!gpu) {
        shown_.summary = "Sanitize needs a GPU: it runs your kernel under NVIDIA compute-sanitizer";
        shown_.error = true;
        return;
    }
    std::vector<std::string> argv = {"", "try", ladder, "--json", "--sanitize=" + tool, "--dtype", to_string(dtype)};
    for (const auto& [k, v] : params) argv.insert(argv.end(), {"-p", k + "=" + std::to_string(v)});
    for (const auto& [k, v] : sizes) argv.insert(argv.end(), {"-s", k + "=" + std::to_string(v)});
    argv.insert(argv.end(), {"--", path});
    result_ = std::async(std::launch::async, [argv, cancel = cancel_.start()]() mutable {
                  std::string why;
                  argv[0] = find_kladder(&why);
                  if (argv[0].empty()) return learner_sanitize_outcome(-1, "", why);
                  ChildResult c = run_child(argv, cancel.get());
                  if (c.cancelled) return LearnerSanitizeOutcome{{}, "Sanitize cancelled", true};
                  if (!c.started) return learner_sanitize_outcome(-1, "", "kladder try: " + c.failure);
                  return learner_sanitize_outcome(c.exit_code, c.out, c.err);
              }).share();
}

const std::string& LearnerSanitize::draw_tool_choice(float width) {
    ImGui::SetNextItemWidth(width);
    if (ImGui::BeginCombo("##sanitize_tool", choice_.c_str())) {
        for (const char* t : {"memcheck", "racecheck"}) {
            if (ImGui::Selectable(t, choice_ == t)) choice_ = t;
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s", std::string(t) == "memcheck"
                                            ? "memcheck: out-of-bounds and misaligned accesses, at their line"
                                            : "racecheck: shared-memory races between threads of a block");
        }
        ImGui::EndCombo();
    }
    test_target("combo:sanitize_tool");
    return choice_;
}

bool LearnerSanitize::running() const {
    return result_.valid() && result_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

void LearnerSanitize::take() {
    if (!result_.valid() || running()) return;
    shown_ = result_.get();
    result_ = {};
}

void LearnerSanitize::draw(CodeEditor& editor, const std::string& path, float height) {
    take();
    const Palette& pal = palette();
    const std::string name = path.substr(path.find_last_of('/') + 1);
    ImGui::BeginChild("##sanitize", ImVec2(0, height), true);
    if (running()) {
        ImGui::TextDisabled("compute-sanitizer %s: running your check under the tool (tens of times slower)...",
                            tool_.c_str());
    } else {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(shown_.error ? pal.bad : pal.good));
        ImGui::TextWrapped("Sanitize: %s", shown_.summary.c_str());
        ImGui::PopStyleColor();
        test_target("sanitize:summary");
        for (size_t i = 0; i < shown_.findings.size(); ++i) {
            const SanitizerFinding& f = shown_.findings[i];
            const bool here = f.line > 0 && (f.file == path || f.file == name);
            ImGui::PushID(static_cast<int>(i));
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(here ? pal.bad : pal.muted));
            std::string text = format_finding(f);
            if (here) text.replace(0, f.file.size() + 1, "line ");  // "mine.cu:16:" -> "line 16:"
            if (ImGui::Selectable(text.c_str()) && here) editor.jump_to(f.line, 1);
            ImGui::PopStyleColor();
            test_target("sanitize:" + std::to_string(i));
            ImGui::PopID();
        }
    }
    ImGui::EndChild();
}

nlohmann::json LearnerSanitize::report() const {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : shown_.findings) findings.push_back(format_finding(f));
    return {{"running", running()}, {"summary", shown_.summary}, {"error", shown_.error}, {"findings", findings}};
}

}  // namespace kl::gui
