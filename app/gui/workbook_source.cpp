// The source view: the rung's .cu file with colours, its diff against the previous rung (what
// this rung changes), and the PTX that NVRTC makes of it at the current parameters. PTX is
// compiled in a `kladder ptx` child on a background thread (NVRTC needs no GPU, but takes a
// moment); the child is ended by Cancel, by a new request, by leaving the view and at exit.
// [SECTION] index: loading / code lines / diff / ptx / panel
#include <imgui.h>

#include <algorithm>
#include <sstream>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "gui/child_process.h"
#include "gui/code_view.h"
#include "gui/runner_client.h"
#include "gui/widgets.h"
#include "gui/workbook.h"

namespace kl::gui {

namespace {

// [SECTION] Loading

// read_file: a regular file of bounded size only (the source may have become a FIFO since the
// ladder was loaded).
bool read_lines(const std::string& path, std::vector<std::string>* lines, std::string* error) {
    try {
        *lines = split_lines(read_file(path));
        return true;
    } catch (const Error& e) {
        *error = e.what();
        return false;
    }
}

// A Triton rung's source is Python.
Language language_of(const Rung* r) { return r && r->is_triton() ? Language::Python : Language::Cuda; }

// What the PTX thread answers when its child was cancelled (not an error to show).
constexpr const char* kPtxCancelled =
    "\x01"
    "cancelled";

// Lines that are neither blank nor comments (// and /* */ in CUDA, # in Python): the count the
// source view shows beside the file name, so a lesson can compare a Triton rung's length with a
// CUDA rung's without typing a number that would drift.
int code_lines(const std::vector<std::string>& lines, bool python) {
    int n = 0;
    bool in_block = false;
    for (const auto& l : lines) {
        size_t i = l.find_first_not_of(" \t");
        if (i == std::string::npos) continue;
        if (python) {
            n += l[i] != '#';
            continue;
        }
        if (in_block) {
            size_t close = l.find("*/");
            if (close == std::string::npos) continue;
            in_block = false;
            i = l.find_first_not_of(" \t", close + 2);
            if (i == std::string::npos) continue;
        }
        if (l.compare(i, 2, "//") == 0) continue;
        if (l.compare(i, 2, "/*") == 0) {
            size_t close = l.find("*/", i + 2);
            if (close == std::string::npos) {
                in_block = true;
                continue;
            }
            if (l.find_first_not_of(" \t", close + 2) == std::string::npos) continue;
        }
        ++n;
    }
    return n;
}

}  // namespace

// [SECTION] Code lines

void Workbook::draw_code_lines(const std::vector<std::string>& lines, bool ptx) {
    ImFont* mono = fonts_.mono;
    float lh = mono->FontSize * 1.3f;
    float digits = mono->CalcTextSizeA(mono->FontSize, FLT_MAX, 0, "00000").x;
    float widest = 0;
    for (const auto& l : lines) widest = std::max(widest, float(l.size()));
    float char_w = mono->CalcTextSizeA(mono->FontSize, FLT_MAX, 0, "M").x;
    ImGui::BeginChild("##code", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    // Block comments carry from line to line: tokenize from the top, draw only what is visible.
    ImGuiListClipper clipper;
    clipper.Begin(int(lines.size()), lh);
    std::vector<LexState> states(lines.size() + 1);
    LexState st;
    // Headers quote measured figures: masked while this step's prediction, or a later one's on
    // this rung, waits.
    const RevealGate gate =
        ptx || !ladder_ || !rung_ ? RevealGate() : reveal_gate().source_gate(ladder_->id, rung_->id);
    for (size_t i = 0; i < lines.size(); ++i) {
        states[i] = st;
        if (!ptx && (st.in_block_comment || lines[i].find("/*") != std::string::npos))
            tokenize_line(lines[i], language_of(rung_), st);
    }
    while (clipper.Step()) {
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            ImVec2 p = ImGui::GetCursorScreenPos();
            char num[16];
            std::snprintf(num, sizeof num, "%4d", i + 1);
            dl->AddText(mono, mono->FontSize, p, palette().faint, num);
            LexState ls = states[size_t(i)];
            draw_code_line(dl, mono, ImVec2(p.x + digits + 8, p.y), gate.source_line(lines[size_t(i)]),
                           ptx ? Language::Ptx : language_of(rung_), ls);
            ImGui::Dummy(ImVec2(digits + 8 + widest * char_w, lh));
        }
    }
    ImGui::PopStyleVar();
    ImGui::EndChild();
}

// [SECTION] Diff

void Workbook::draw_diff() {
    const Palette& pal = palette();
    const Ladder& L = *ladder_;
    const Rung& r = *rung_;
    int index = r.index;
    // The learner's rung is compared with the rung it was forked from: what they changed.
    const Rung* from = r.learner ? L.find_rung(r.forked_from) : nullptr;
    if (index == 0 && !from) {
        ImGui::TextDisabled("%s is the first rung of the ladder: nothing to compare with.", r.title.c_str());
        return;
    }
    const Rung& prev = from ? *from : L.rungs[size_t(index - 1)];
    std::string key = prev.source_path + "|" + r.source_path;
    if (source_.diff_key != key) {
        std::vector<std::string> a, b;
        std::string err;
        source_.diff.clear();
        source_.diff_title.clear();
        if (prev.file.empty() || r.file.empty()) {
            source_.diff_title = "One of the two rungs calls a library routine and has no source of ours.";
        } else if (!read_lines(prev.source_path, &a, &err) || !read_lines(r.source_path, &b, &err)) {
            source_.diff_title = err;
        } else {
            source_.diff = diff_lines(a, b);
            DiffStats st = count_changes(source_.diff);
            source_.diff_title = prev.file + "  \xE2\x86\x92  " + r.file + "    +" + std::to_string(st.added) +
                                 " \xE2\x88\x92" + std::to_string(st.removed) + " lines";
        }
        source_.diff_key = key;
    }
    ImGui::TextDisabled("%s", source_.diff_title.c_str());
    if (source_.diff.empty()) return;
    ImFont* mono = fonts_.mono;
    float lh = mono->FontSize * 1.3f;
    float digits = mono->CalcTextSizeA(mono->FontSize, FLT_MAX, 0, "0000").x;
    float char_w = mono->CalcTextSizeA(mono->FontSize, FLT_MAX, 0, "M").x;
    size_t widest = 0;
    for (const auto& d : source_.diff) widest = std::max(widest, d.text.size());
    // Headers quote measured figures (either rung's: course/reveal.h, LessonRevealGate::source_gate).
    const RevealGate shown = reveal_gate().source_gate(L.id, r.id);  // a copy: the next call may rebuild
    const RevealGate gate = shown.closed() ? shown : reveal_gate().source_gate(L.id, prev.id);
    ImGui::BeginChild("##diff", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImGuiListClipper clipper;
    clipper.Begin(int(source_.diff.size()), lh);
    float full_w = std::max(ImGui::GetContentRegionAvail().x, 2 * digits + 40 + widest * char_w);
    while (clipper.Step()) {
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const DiffLine& d = source_.diff[size_t(i)];
            ImVec2 p = ImGui::GetCursorScreenPos();
            ImU32 bg = d.op == DiffLine::Op::Added     ? with_alpha(pal.good, 0.16f)
                       : d.op == DiffLine::Op::Removed ? with_alpha(pal.bad, 0.16f)
                                                       : 0;
            if (bg) dl->AddRectFilled(p, ImVec2(p.x + full_w, p.y + lh), bg);
            char a[16] = "", b[16] = "";
            if (d.old_line) std::snprintf(a, sizeof a, "%4d", d.old_line);
            if (d.new_line) std::snprintf(b, sizeof b, "%4d", d.new_line);
            dl->AddText(mono, mono->FontSize, p, pal.faint, a);
            dl->AddText(mono, mono->FontSize, ImVec2(p.x + digits + 6, p.y), pal.faint, b);
            const char* sign = d.op == DiffLine::Op::Added ? "+" : d.op == DiffLine::Op::Removed ? "\xE2\x88\x92" : " ";
            ImU32 sc = d.op == DiffLine::Op::Added ? pal.good : pal.bad;
            dl->AddText(mono, mono->FontSize, ImVec2(p.x + 2 * digits + 14, p.y), sc, sign);
            LexState ls;
            draw_code_line(dl, mono, ImVec2(p.x + 2 * digits + 30, p.y), gate.source_line(d.text), language_of(rung_),
                           ls);
            ImGui::Dummy(ImVec2(full_w, lh));
        }
    }
    ImGui::PopStyleVar();
    ImGui::EndChild();
}

// [SECTION] PTX

void Workbook::draw_ptx() {
    const Rung& r = *rung_;
    if (r.file.empty()) {
        ImGui::TextDisabled("%s calls a library routine: there is no PTX of ours to show.", r.title.c_str());
        return;
    }
    ParamValues params = params_for(r);
    // The device the selection is resolved against: the live GPU, else the recorded one shown.
    const std::optional<SelectionDevice>& device = selection_view().selection.device;
    std::string arch = rung_arch(r, device ? device->info.arch() : "sm_90");
    std::vector<std::string> defines = compile_defines(r, params, dtype_);
    std::string key = r.source_path + "|" + arch;
    for (const auto& x : defines) key += "|" + x;
    if (source_.ptx_key != key) {
        source_.ptx_key = key;
        // NVRTC runs in `kladder ptx` (the window links no CUDA library), on its own thread;
        // the frame only checks whether it is done.
        std::vector<std::string> argv = {"", "ptx", ladder_->id, "--rung", r.id, "--arch", arch};
        argv.insert(argv.end(), {"--dtype", to_string(dtype_)});
        for (const auto& [k, v] : params) argv.insert(argv.end(), {"-p", k + "=" + std::to_string(v)});
        // Each new request ends the child of the one before (ChildCancel).
        source_.ptx = std::async(std::launch::async, [argv, cancel = source_.ptx_cancel.start()]() mutable {
                          std::string why;
                          argv[0] = find_kladder(&why);
                          if (argv[0].empty()) return std::make_pair(std::string(), why);
                          ChildResult c = run_child(argv, cancel.get());
                          if (c.cancelled) return std::make_pair(std::string(), std::string(kPtxCancelled));
                          if (!c.started) return std::make_pair(std::string(), "kladder ptx: " + c.failure);
                          if (c.exit_code != 0)
                              return std::make_pair(std::string(), c.err.empty() ? "kladder ptx failed" : c.err);
                          return std::make_pair(c.out, std::string());
                      }).share();
    }
    std::string defs;
    for (const auto& x : defines)
        if (!r.is_triton() || x.rfind("ELEM", 0) != 0)
            defs += std::string(defs.empty() ? "" : "  ") + (r.is_triton() ? "" : "-D") + x;
    // A Triton rung's PTX is Triton's (kladder ptx runs the Triton helper with the learner's python3).
    const char* compiler = r.is_triton() ? "Triton" : "NVRTC";
    ImGui::TextDisabled("%s (kladder ptx), %s, %s", compiler, arch.c_str(), defs.c_str());
    source_.ptx_shown = true;
    if (!source_.ptx.valid() || source_.ptx.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        ImGui::Spacing();
        ImGui::TextDisabled("compiling with %s\xE2\x80\xA6", compiler);
        ImGui::SameLine();
        if (plain_button("Cancel")) source_.ptx_cancel.cancel();
        test_target("button:cancel_ptx");
        return;
    }
    const auto& [ptx, error] = source_.ptx.get();
    if (error == kPtxCancelled) {
        ImGui::Spacing();
        ImGui::TextDisabled("Compilation cancelled.");
        ImGui::SameLine();
        if (plain_button("Compile again")) source_.ptx_key.clear();  // the next frame starts it anew
        return;
    }
    if (!error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().bad));
        ImGui::TextWrapped("%s", error.c_str());
        ImGui::PopStyleColor();
        return;
    }
    if (source_.ptx_lines_key != source_.ptx_key) {
        source_.ptx_lines = split_lines(ptx);
        source_.ptx_lines_key = source_.ptx_key;
    }
    draw_code_lines(source_.ptx_lines, true);
}

// Leaving the PTX view ends its child; coming back starts the compile again.
void Workbook::stop_ptx() {
    if (!source_.ptx.valid() || source_.ptx.wait_for(std::chrono::seconds(0)) == std::future_status::ready) return;
    source_.ptx_cancel.cancel();
    source_.ptx_key.clear();
}

std::string Workbook::ptx_status() const {
    if (!source_.ptx.valid()) return "none";
    if (source_.ptx.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return "compiling";
    const std::string& error = source_.ptx.get().second;
    return error == kPtxCancelled ? "cancelled" : error.empty() ? "ready" : "error";
}

bool Workbook::ptx_pending() const {
    return right_tab_ == 1 && source_.tab == 2 && source_.ptx.valid() &&
           source_.ptx.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

// [SECTION] Panel

void Workbook::draw_source() {
    if (!ladder_ || !rung_) {
        ImGui::Dummy(ImVec2(0, 30 * fonts_.scale));
        text_centered("This step has no rung: no source to show.", palette().muted);
        return;
    }
    const char* tabs[] = {"Source", rung_->learner ? "Diff vs the rung it came from" : "Diff vs previous rung", "PTX"};
    segmented("##source_tabs", tabs, 3, &source_.tab);
    if (!rung_->file.empty() && source_.loaded_path != rung_->source_path) {
        source_.lines.clear();
        source_.load_error.clear();
        read_lines(rung_->source_path, &source_.lines, &source_.load_error);
        source_.loaded_path = rung_->source_path;
    }
    ImGui::SameLine(0, 16 * fonts_.scale);
    if (rung_->file.empty())
        ImGui::TextDisabled("(library routine)");
    else if (source_.load_error.empty()) {
        const std::string about = rung_->file + ", " + std::to_string(code_lines(source_.lines, rung_->is_triton())) +
                                  " lines of code" + (rung_->is_triton() ? " (Python, Triton)" : "");
        if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(about.c_str()).x) ImGui::NewLine();  // whole
        ImGui::TextDisabled("%s", about.c_str());
    } else
        ImGui::TextDisabled("%s", rung_->file.c_str());
    if (!rung_->file.empty()) {  // fork it into the learner's workspace, or edit the learner's own
        ImGui::SameLine(0, 16 * fonts_.scale);
        if (plain_button(rung_->learner ? "Edit mine" : "Make it mine")) {
            if (rung_->learner) {
                if (learner_.rung != rung_->id) open_learner_rung(*rung_);
                pending_right_tab_ = 3;
            } else {
                make_it_mine(*rung_);
            }
        }
        test_target("button:make_mine");
    }
    ImGui::Spacing();
    if (source_.tab == 1) return draw_diff();
    if (source_.tab == 2) return draw_ptx();
    if (rung_->file.empty()) {
        ImGui::TextDisabled("%s calls a library routine; it has no source file of ours.", rung_->title.c_str());
        return;
    }
    if (!source_.load_error.empty()) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().bad), "%s", source_.load_error.c_str());
        return;
    }
    draw_code_lines(source_.lines, false);
}

}  // namespace kl::gui
