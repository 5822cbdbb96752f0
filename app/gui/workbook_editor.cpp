// The learner's rung (issue 16): "Make it mine" forks a rung (or an exercise's starting rung) into
// the learner's workspace (model/workspace.h: the XDG data folder, never the repository), and the
// "Mine" tab edits it: the code editor (code_editor.h) with the manifest entry's parameters beside
// it, find, undo, save (Ctrl+S, atomic), "Open in my editor", a file watch that runs the rung again
// whenever the file changes on disk, compile errors in the gutter and in a list, and what became
// of the last run (a fault or a time-out named with the rung) in the panel itself.
// [SECTION] index: fork and load / runner events / saving and watching / panel
#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "gui/child_process.h"
#include "gui/external_editor.h"
#include "gui/widgets.h"
#include "gui/workbook.h"
#include "model/workspace.h"

namespace kl::gui {

namespace {
// A message about the learner's file (by its full path or its name), not about a header it includes.
bool in_learner_file(const CompileDiagnostic& d, const std::string& path) {
    return d.file == path || d.file == path.substr(path.find_last_of('/') + 1);
}

std::string clock_now() {
    std::time_t t = std::time(nullptr);
    char buf[16];
    std::strftime(buf, sizeof buf, "%H:%M:%S", std::localtime(&t));
    return buf;
}
}  // namespace

// [SECTION] Fork and load

Ladder* Workbook::mutable_ladder(const std::string& id) {
    for (auto& l : ladders_)
        if (l.id == id) return &l;
    return nullptr;
}

// The ladder's learner rungs read again from the workspace (after a fork, or a manifest edited
// outside). Rung pointers into the ladder move: the selection is found again by id.
void Workbook::reload_learner_rungs(const std::string& ladder_id, bool quiet) {
    Ladder* L = mutable_ladder(ladder_id);
    if (!L) return;
    std::string selected = rung_ && ladder_ == L ? rung_->id : "";
    L->rungs.erase(std::remove_if(L->rungs.begin(), L->rungs.end(), [](const Rung& r) { return r.learner; }),
                   L->rungs.end());
    std::string error;
    try {
        merge_learner_rungs(*L, workspace_root(), &error);
    } catch (const Error& e) { error = e.what(); }
    // At start a workspace that cannot be used (XDG_DATA_HOME inside the repository) is only
    // noted: the learner hears it when they fork ("Make it mine" names the problem).
    if (!error.empty()) log("your rungs (" + ladder_id + "): " + error, !quiet);
    if (ladder_ == L) {
        rung_ = selected.empty() ? rung_ : L->find_rung(selected);
        if (!rung_ && !L->rungs.empty()) rung_ = &L->rungs.front();
    }
    view_.ladder = nullptr;  // every cached view of the ladder is built again
    strip_.built_view = 0;
    strip_scrolled_to_ = nullptr;
}

void Workbook::make_it_mine(const Rung& r, const std::string& starter_path) {
    if (!ladder_) return;
    std::string ladder_id = ladder_->id, from = r.id;
    ForkedRung forked;
    try {
        forked = fork_rung(*ladder_, from, workspace_root(), starter_path);
    } catch (const Error& e) {
        learner_.message = std::string("Make it mine: ") + e.what();
        learner_.message_error = true;
        log(learner_.message, true);
        return;
    }
    log("made " + ladder_id + "/" + from + " yours: " + forked.source_path);
    reload_learner_rungs(ladder_id);
    const Rung* mine = ladder_ ? ladder_->find_rung(forked.id) : nullptr;
    if (!mine) {
        learner_.message = "Make it mine: " + forked.id + " was written but does not load (see the log)";
        learner_.message_error = true;
        return;
    }
    select_rung(mine, true);
    open_learner_rung(*mine);
    learner_.message = "Your copy of " + from + ": " + forked.source_path;
    learner_.message_error = false;
    pending_right_tab_ = 3;
}

void Workbook::open_learner_rung(const Rung& r) {
    learner_.ladder = ladder_ ? ladder_->id : "";
    learner_.rung = r.id;
    learner_.title = r.title;
    learner_.forked_from = r.forked_from;
    learner_.path = r.source_path;
    learner_.marks.clear();
    learner_.diagnostics.clear();
    learner_.outcome.clear();
    learner_.requests.clear();
    learner_.exercise.reset();  // start_exercise sets it again after a fork for an exercise
    try {
        learner_.editor.load(read_file(r.source_path));
        learner_.watch.watch(r.source_path);
    } catch (const Error& e) {
        learner_.message = e.what();
        learner_.message_error = true;
    }
}

// [SECTION] Runner events for the learner's rung

void Workbook::on_learner_record(const RunnerEvent& e, const RunRecord& rec) {
    if (rec.rung != learner_.rung || rec.ladder != learner_.ladder) return;
    learner_.requests.erase(e.request_id);
    // An exercise's hidden sizes are judged by the goal; the outcome line tells the main run (or a failure).
    if (learner_.exercise && rec.error.empty() && rec.sizes != learner_.exercise_sizes) return;
    set_learner_diagnostics(learner_diagnostics(e, rec));
    learner_.outcome_error = !rec.error.empty();
    if (rec.error_kind == "compile")
        learner_.outcome = "did not compile: " + count_diagnostics(learner_.diagnostics);
    else if (rec.error_kind == "fault")
        learner_.outcome = rec.title + " faulted on the GPU (" + rec.error +
                           "). The runner process lost its CUDA context and restarts for the next run; "
                           "the window is unaffected.";
    else if (!rec.error.empty())
        learner_.outcome = rec.title + ": " + rec.error_kind + ": " + rec.error;
    else
        learner_.outcome = rec.title + ": " + (rec.timing ? std::to_string(rec.timing->median_ms) + " ms, " : "") +
                           (rec.correctness ? rec.correctness->summary() : "not checked");
}

void Workbook::set_learner_diagnostics(std::vector<CompileDiagnostic> ds) {
    learner_.diagnostics = std::move(ds);
    learner_.marks.clear();
    for (const auto& d : learner_.diagnostics)
        if (d.line > 0 && in_learner_file(d, learner_.path))
            learner_.marks.push_back({d.line, d.column, d.severity == Severity::Error, d.message});
}

void Workbook::on_learner_failure(uint64_t request_id, const std::string& message) {
    if (!learner_.requests.erase(request_id)) return;
    learner_.outcome_error = true;
    learner_.outcome = learner_.title + " (" + learner_.rung + "): " + message +
                       ". The runner was stopped and a fresh one takes the next run; the window is unaffected.";
}

// NVRTC's messages about the learner's file: the runner's parsed diagnostics (protocol 3; the file
// named by its full path), else the record's error, which carries the log's first line ("kernel
// L/R failed to compile for sm_90: mine.cu(4): error: ..."). Messages about other files (a
// header) stay in the list, without a mark in this file's gutter.
std::vector<CompileDiagnostic> Workbook::learner_diagnostics(const RunnerEvent& e, const RunRecord& rec) const {
    if (rec.error_kind != "compile") return {};
    std::string name = learner_.path.substr(learner_.path.find_last_of('/') + 1);
    std::vector<CompileDiagnostic> ds = e.diagnostics;
    if (ds.empty()) {
        std::string log = rec.error;
        if (size_t at = log.find(name + "("); at != std::string::npos) log = log.substr(at);
        ds = parse_nvrtc_log(log, name, learner_.path);
    }
    if (ds.empty()) ds.push_back({"", 0, 0, Severity::Error, rec.error});  // still say it, with no line
    return ds;
}

nlohmann::json Workbook::learner_report() const {
    nlohmann::json marks = nlohmann::json::array(), diags = nlohmann::json::array();
    for (int line : learner_.shown_marks) marks.push_back(line);
    for (const auto& d : learner_.diagnostics) diags.push_back(format_diagnostic(d));
    return {{"ladder", learner_.ladder},
            {"rung", learner_.rung},
            {"path", learner_.path},
            {"forked_from", learner_.forked_from},
            {"modified", learner_.editor.modified()},
            {"caret_line", learner_.editor.caret_line()},
            {"gutter_marks", marks},
            {"diagnostics", diags},
            {"outcome", learner_.outcome},
            {"outcome_error", learner_.outcome_error},
            {"message", learner_.message},
            {"exercise", learner_.exercise ? learner_.exercise->title : ""},
            {"goal", learner_.goal_summary},
            {"sanitize", learner_.sanitize.report()}};
}

// [SECTION] Saving and watching

void Workbook::save_learner() {
    WriteResult w = try_write_file_atomically(learner_.path, learner_.editor.text());
    if (!w) {
        learner_.message = w.error;
        learner_.message_error = true;
        log(w.error, true);
        return;
    }
    learner_.editor.mark_saved();
    learner_.message = "saved " + clock_now();
    learner_.message_error = false;
    learner_.watch.accept();
    run_learner();
}

// Compiles, checks and times the learner's rung exactly as any rung: one run request to the runner.
// Without a GPU (or without a runner) it is compiled all the same, by `kladder try --compile-only`.
void Workbook::run_learner() {
    if (!ladder_ || ladder_->id != learner_.ladder) return;
    if ((runner_.hello && !runner_.gpu) || !runner_.client) {
        const Rung* r = ladder_->find_rung(learner_.rung);
        learner_.compile.start(learner_.ladder, learner_.path, r ? params_for(*r) : ParamValues{}, dtype_);
        learner_.outcome = "compiling " + learner_.rung + " with NVRTC (no GPU to run it)\xE2\x80\xA6";
        learner_.outcome_error = false;
        return;
    }
    if (!rung_ || rung_->id != learner_.rung) select_rung(ladder_->find_rung(learner_.rung), true);
    if (!rung_ || rung_->id != learner_.rung || runner_.job) {
        learner_.pending_run = rung_ && rung_->id == learner_.rung;  // after the job in flight
        return;
    }
    learner_.pending_run = false;
    learner_.outcome = "compiling and running " + learner_.rung + "\xE2\x80\xA6";
    learner_.outcome_error = false;
    if (submit_exercise_runs(*rung_)) return;
    run_rung();
    if (runner_.job)
        for (uint64_t id : runner_.job->requests) learner_.requests.insert(id);
}

// Once a second: the file changed on disk (saved in the learner's own editor) -> reload and run.
void Workbook::poll_learner_file() {
    if (learner_.path.empty()) return;
    if (std::optional<LearnerCompileOutcome> o = learner_.compile.take()) {  // compiled without a GPU
        set_learner_diagnostics(o->diagnostics);
        learner_.outcome = learner_.title + ": " + o->summary;
        learner_.outcome_error = !o->compiled;
    }
    if (learner_.pending_run && !runner_.job) run_learner();
    if (!learner_.watch.changed(FileWatch::Clock::now())) return;
    if (learner_.editor.modified()) {
        learner_.message =
            "the file changed on disk while you have unsaved edits here: Save keeps yours, "
            "Reload takes the file's";
        learner_.message_error = true;
        return;
    }
    try {
        learner_.editor.load(read_file(learner_.path));
    } catch (const Error& e) {
        learner_.message = e.what();
        learner_.message_error = true;
        return;
    }
    learner_.message = "reloaded from disk " + clock_now();
    learner_.message_error = false;
    log("your rung changed on disk: " + learner_.path);
    run_learner();
}

void Workbook::open_in_my_editor() {
    std::vector<std::string> argv = external_editor_argv(learner_.path, std::getenv("VISUAL"), std::getenv("EDITOR"));
    std::string why;
    if (spawn_detached(argv, &why)) {
        learner_.message = "opened in " + argv.front() + "; saving there runs it here";
        learner_.message_error = false;
    } else {
        learner_.message = why;
        learner_.message_error = true;
        log("Open in my editor: " + why, true);
    }
}

}  // namespace kl::gui

namespace kl::gui {

// [SECTION] Panel

void Workbook::draw_learner_empty() {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(
        "Write your own rung. \"Make it mine\" copies a rung's .cu file and its manifest entry into "
        "your workspace, outside the repository; it then runs like any rung of the ladder (same "
        "inputs, reference, tolerances and timing) and appears on the strip and in every plot as "
        "\"mine\".");
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    draw_step_exercise_offer();
    if (rung_ && !rung_->file.empty()) {
        std::string label = "Make " + rung_->title + " mine";
        if (primary_button(label.c_str())) make_it_mine(*rung_);
        test_target("button:make_mine_tab");
    } else {
        ImGui::TextDisabled("Select a rung with a source file (not a library routine) to start from it.");
    }
    if (!learner_.message.empty())
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(learner_.message_error ? palette().bad : palette().muted),
                           "%s", learner_.message.c_str());
}

void Workbook::draw_learner_toolbar() {
    CodeEditor& ed = learner_.editor;
    const bool compile_only = (runner_.hello && !runner_.gpu) || !runner_.client;  // run_learner's test
    if (primary_button(ed.modified() ? (compile_only ? "Save and compile (Ctrl+S)" : "Save and run (Ctrl+S)")
                                     : (compile_only ? "Compile (Ctrl+S)" : "Run (Ctrl+S)"))) {
        if (ed.modified())
            save_learner();
        else
            run_learner();
    }
    test_target("button:editor_save");
    ImGui::SameLine();
    if (plain_button("Undo", ImVec2(0, 0), ed.can_undo())) ed.undo();
    test_target("button:editor_undo");
    ImGui::SameLine();
    if (plain_button("Redo", ImVec2(0, 0), ed.can_redo())) ed.redo();
    ImGui::SameLine();
    if (plain_button("Find (Ctrl+F)")) learner_.find_open = !learner_.find_open;
    ImGui::SameLine();
    if (plain_button("Open in my editor")) open_in_my_editor();
    test_target("button:open_in_my_editor");
    // Sanitize (learner_sanitize.h): the file as saved, so an edit is saved first, when there is
    // a GPU to run it on. On a row of its own when the panel is too narrow for it beside the rest.
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x <
        ImGui::CalcTextSize("Sanitize").x + 2 * style.FramePadding.x + 2 * style.ItemSpacing.x + 110 * fonts_.scale)
        ImGui::NewLine();
    const bool gpu = runner_.hello && runner_.gpu;
    if (plain_button("Sanitize", ImVec2(0, 0), !learner_.sanitize.running())) {
        if (gpu && ed.modified() && try_write_file_atomically(learner_.path, ed.text())) {
            ed.mark_saved();
            learner_.watch.accept();
        }
        const Rung* r = ladder_ ? ladder_->find_rung(learner_.rung) : nullptr;
        learner_.sanitize.start(gpu && !ed.modified(), learner_.sanitize.tool_choice(), learner_.ladder, learner_.path,
                                r ? params_for(*r) : ParamValues{}, sizes_, dtype_);
    }
    test_target("button:editor_sanitize");
    ImGui::SameLine();
    learner_.sanitize.draw_tool_choice(110 * fonts_.scale);
    if (ed.modified() && learner_.message_error) {
        ImGui::SameLine();
        if (plain_button("Reload")) {
            try {
                ed.load(read_file(learner_.path));
                learner_.message.clear();
            } catch (const Error& e) { learner_.message = e.what(); }
        }
    }
    ImGui::SameLine();
    ImGui::TextDisabled("line %d, col %d%s", ed.caret_line(), ed.caret_column(), ed.modified() ? "  (modified)" : "");
}

void Workbook::draw_learner_find() {
    ImGui::SetNextItemWidth(220 * fonts_.scale);
    if (learner_.focus_find) ImGui::SetKeyboardFocusHere();
    learner_.focus_find = false;
    bool enter = ImGui::InputTextWithHint("##find", "find", learner_.find, sizeof learner_.find,
                                          ImGuiInputTextFlags_EnterReturnsTrue);
    test_target("input:find");
    bool back = ImGui::GetIO().KeyShift;
    if (enter) learner_.focus_find = true;  // Enter again finds the next one
    ImGui::SameLine();
    bool next = plain_button("Next");
    ImGui::SameLine();
    bool prev = plain_button("Previous");
    if (enter || next || prev) learner_.find_missed = !learner_.editor.find(learner_.find, prev || (enter && back));
    if (learner_.find_missed && learner_.find[0]) {
        ImGui::SameLine();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().warn), "not found");
    }
}

// Under the editor: every compile message, a click puts the caret at its place.
void Workbook::draw_learner_diagnostics(float height) {
    ImGui::BeginChild("##diagnostics", ImVec2(0, height), true);
    const Palette& pal = palette();
    for (size_t i = 0; i < learner_.diagnostics.size(); ++i) {
        const CompileDiagnostic& d = learner_.diagnostics[i];
        ImGui::PushID(int(i));
        bool here = in_learner_file(d, learner_.path);
        std::string where = d.line <= 0 ? std::string("whole compile")
                                        : (here ? std::string("line ") : d.file + ":") + std::to_string(d.line) +
                                              (d.column ? ":" + std::to_string(d.column) : "");
        std::string text = where + "  " + severity_name(d.severity) + ": " + d.message;
        ImGui::PushStyleColor(ImGuiCol_Text,
                              ImGui::ColorConvertU32ToFloat4(d.severity == Severity::Error     ? pal.bad
                                                             : d.severity == Severity::Warning ? pal.warn
                                                                                               : pal.muted));
        if (ImGui::Selectable(text.c_str()) && d.line > 0 && here)
            learner_.editor.jump_to(d.line, std::max(1, d.column));
        ImGui::PopStyleColor();
        test_target("diag:" + std::to_string(i));
        ImGui::PopID();
    }
    ImGui::EndChild();
}

// The manifest entry's parameters beside the editor (the sliders in the controls panel set them).
void Workbook::draw_learner_params(const Rung& r) {
    section_label("PARAMETERS");
    ParamValues now = params_for(r);
    for (const ParamSpec& p : r.params) {
        ImGui::Text("%s = %lld", p.name.c_str(), (long long)now[p.name]);
        ImGui::TextDisabled("  %s", p.describe_allowed().c_str());
    }
    if (r.params.empty()) ImGui::TextDisabled("none");
    ImGui::Spacing();
    section_label("FORKED FROM");
    ImGui::TextWrapped("%s", r.forked_from.empty() ? "(unknown)" : r.forked_from.c_str());
    ImGui::Spacing();
    section_label("FILE");
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", learner_.path.c_str());
    ImGui::PopTextWrapPos();
}

void Workbook::handle_learner_keys() {
    ImGuiIO& io = ImGui::GetIO();
    if (!io.KeyCtrl) return;
    if (ImGui::IsKeyPressed('S', false)) {
        if (learner_.editor.modified())
            save_learner();
        else
            run_learner();
    }
    if (ImGui::IsKeyPressed('F', false)) learner_.find_open = learner_.focus_find = true;
    if (ImGui::IsKeyPressed('Z', false)) io.KeyShift ? learner_.editor.redo() : learner_.editor.undo();
    if (ImGui::IsKeyPressed('Y', false)) learner_.editor.redo();
}

void Workbook::draw_learner() {
    const Rung* r = ladder_ && !learner_.rung.empty() && ladder_->id == learner_.ladder
                        ? ladder_->find_rung(learner_.rung)
                        : nullptr;
    if (!r) return draw_learner_empty();
    handle_learner_keys();
    ImGui::PushFont(fonts_.bold);
    ImGui::TextUnformatted(r->title.c_str());
    ImGui::PopFont();
    draw_learner_toolbar();
    if (learner_.find_open) draw_learner_find();
    if (!learner_.message.empty())
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(learner_.message_error ? palette().bad : palette().muted),
                           "%s", learner_.message.c_str());
    if (!learner_.outcome.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text,
                              ImGui::ColorConvertU32ToFloat4(learner_.outcome_error ? palette().bad : palette().good));
        ImGui::PushTextWrapPos(0);
        ImGui::TextUnformatted(learner_.outcome.c_str());
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
    }
    draw_exercise_goal();
    ImVec2 avail = ImGui::GetContentRegionAvail();
    float params_w = std::min(260 * fonts_.scale, avail.x * 0.3f);
    float list_h = learner_.diagnostics.empty() ? 0 : std::min(avail.y * 0.3f, 140 * fonts_.scale);
    const float sanitize_h = learner_.sanitize.has_content() ? std::min(avail.y * 0.25f, 120 * fonts_.scale) : 0;
    const float editor_h = avail.y - list_h - sanitize_h;
    learner_.shown_marks.clear();
    learner_.editor.draw("##learner_editor", ImVec2(avail.x - params_w - 8, editor_h), fonts_.mono, learner_.marks,
                         &learner_.shown_marks);
    ImGui::SameLine();
    ImGui::BeginChild("##learner_params", ImVec2(params_w, editor_h), false);
    draw_learner_params(*r);
    ImGui::EndChild();
    if (list_h > 0) draw_learner_diagnostics(list_h - 4);
    if (sanitize_h > 0) learner_.sanitize.draw(learner_.editor, learner_.path, sanitize_h - 4);
}

}  // namespace kl::gui
