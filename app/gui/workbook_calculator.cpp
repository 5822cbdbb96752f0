// Lesson 12's calculator in the window: the learner edits the inputs, the model library
// (course/calculator.h) does every sum, and the table shows each result with its formula. The
// GEMM rate and the per-GPU peak start from this device's measured cuBLAS bf16 rate (the live
// calibration, else the recorded device card), named beside the fields.
#include <imgui.h>

#include <algorithm>

#include "base/errors.h"
#include "course/bindings.h"
#include "gui/widgets.h"
#include "gui/workbook.h"

namespace kl::gui {

namespace {

// The bound value of `{{ device METRIC }}`, or nullopt.
std::optional<BoundValue> device_number(const NumberSources& numbers, const std::string& metric) {
    std::vector<std::string> errors;
    auto bs = find_bindings("{{ device " + metric + " }}", &errors);
    if (bs.empty()) return std::nullopt;
    BoundValue v = numbers.resolve(bs.front());
    if (!v.ok) return std::nullopt;
    return v;
}

bool input(const char* label, double* v, const char* format, const char* help) {
    // The column's width less room for the label (up to "peak TFLOP/s").
    ImGui::SetNextItemWidth(
        std::max(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 6.5f, ImGui::GetFontSize() * 3));
    const bool changed = ImGui::InputDouble(label, v, 0, 0, format);
    item_tooltip(help);
    return changed;
}

}  // namespace

void Workbook::set_calculator_defaults() {
    calc_.defaults_set = true;
    if (auto bf16 = device_number(numbers(), "bf16_tflops")) {
        calc_.inputs.gemm_tflops = bf16->value;
        calc_.inputs.peak_tflops = bf16->value;
        calc_.rate_source = "measured cuBLAS bf16 at 4096^3: " + bf16->source_line();
    } else {
        calc_.rate_source = "no measured rate on this machine or in the recordings: the datasheet's 989 TFLOP/s";
        calc_.inputs.gemm_tflops = calc_.inputs.peak_tflops = 989;
    }
}

void Workbook::draw_calculator() {
    if (!calc_.defaults_set) set_calculator_defaults();
    CalculatorInputs& in = calc_.inputs;
    section_label("Inputs");
    ImGui::TextWrapped("Rates start from %s.", calc_.rate_source.c_str());
    if (ImGui::BeginTable("##calc_inputs", 3, ImGuiTableFlags_SizingStretchSame)) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("GEMM");
        input("M", &in.M, "%.0f", "rows of A and C");
        input("N", &in.N, "%.0f", "columns of B and C");
        input("K", &in.K, "%.0f", "the shared dimension");
        input("rate TFLOP/s", &in.gemm_tflops, "%.1f", "the rate the GEMM runs at");
        ImGui::TableNextColumn();
        ImGui::TextDisabled("Model (GPT-2 style)");
        input("hidden h", &in.hidden, "%.0f", "model width");
        input("layers", &in.layers, "%.0f", "transformer blocks");
        input("vocab", &in.vocab, "%.0f", "token embedding rows");
        input("context", &in.context, "%.0f", "learned position embeddings");
        input("MLP x h", &in.ffn_mult, "%.2f", "the MLP's inner width as a multiple of h");
        ImGui::Checkbox("gated MLP", &in.gated_mlp);
        item_tooltip("SwiGLU-style: three matrices instead of two");
        ImGui::Checkbox("tied head", &in.tied_embedding);
        item_tooltip("the output head shares the token embedding");
        ImGui::TableNextColumn();
        ImGui::TextDisabled("Training run");
        input("tokens D", &in.tokens, "%.3g", "training tokens");
        input("GPUs", &in.gpus, "%.0f", "GPUs in the run");
        input("peak TFLOP/s", &in.peak_tflops, "%.1f", "per GPU: the datasheet's dense bf16 (989 on H100) or a rate");
        input("MFU", &in.mfu, "%.2f", "model FLOPs utilization, 0 to 1");
        input("GB per GPU", &in.gpu_memory_gb, "%.0f", "device memory");
        int p = static_cast<int>(in.precision);
        const char* names[] = {"fp32 AdamW", "mixed AdamW", "mixed + fp32 grad"};
        ImGui::SetNextItemWidth(
            std::max(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 6.5f, ImGui::GetFontSize() * 3));
        if (ImGui::Combo("state", &p, names, 3)) in.precision = TrainingPrecision(p);
        ImGui::Checkbox("sharded (ZeRO/FSDP)", &in.sharded);
        ImGui::EndTable();
    }
    if (plain_button("Defaults")) {
        in = CalculatorInputs{};
        set_calculator_defaults();
    }
    item_tooltip("GPT-2 small on 8 GPUs, rates from this device");
    ImGui::Spacing();
    section_label("Results");
    std::vector<CalculatorRow> rows;
    try {
        rows = calculator_rows(in);
    } catch (const InputError& e) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().bad), "%s", e.what());
        return;
    }
    const ImGuiTableFlags flags =
        ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("##calc_results", 3, flags)) {
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch, 1.6f);
        ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("how", ImGuiTableColumnFlags_WidthStretch, 2.4f);
        ImGui::TableHeadersRow();
        std::string section;
        for (const auto& r : rows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (r.section != section) {
                section = r.section;
                ImGui::TextDisabled("%s", section.c_str());
                ImGui::SameLine();
            }
            ImGui::TextUnformatted(r.what.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(r.value.c_str());
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", r.formula.c_str());
        }
        ImGui::EndTable();
    }
}

}  // namespace kl::gui
