#include "course/calculator.h"

#include <cmath>
#include <cstdio>

#include "base/errors.h"

namespace kl {

namespace {

void need(bool ok, const std::string& field, double v, const std::string& what) {
    if (ok) return;
    char b[64];
    std::snprintf(b, sizeof b, "%g", v);
    throw InputError("calculator: " + field + " = " + b + ": " + what);
}

void positive(double v, const std::string& field) { need(std::isfinite(v) && v > 0, field, v, "must be > 0"); }

std::string sci(double v, const char* unit) {
    char b[64];
    std::snprintf(b, sizeof b, "%.3g %s", v, unit);
    return b;
}

}  // namespace

std::string format_quantity(double v) {
    char b[64];
    if (std::fabs(v) < 1e15 && v == std::floor(v))
        std::snprintf(b, sizeof b, "%.0f", v);
    else
        std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

void check_calculator_inputs(const CalculatorInputs& in) {
    positive(in.M, "M");
    positive(in.N, "N");
    positive(in.K, "K");
    positive(in.gemm_tflops, "gemm_tflops");
    positive(in.hidden, "hidden");
    positive(in.layers, "layers");
    need(std::isfinite(in.vocab) && in.vocab >= 0, "vocab", in.vocab, "must be >= 0");
    need(std::isfinite(in.context) && in.context >= 0, "context", in.context, "must be >= 0");
    positive(in.ffn_mult, "ffn_mult");
    positive(in.tokens, "tokens");
    need(std::isfinite(in.gpus) && in.gpus >= 1, "gpus", in.gpus, "must be >= 1");
    positive(in.peak_tflops, "peak_tflops");
    need(std::isfinite(in.mfu) && in.mfu > 0 && in.mfu <= 1, "mfu", in.mfu, "must be in (0, 1]");
    positive(in.gpu_memory_gb, "gpu_memory_gb");
}

double bytes_per_param(TrainingPrecision p) {
    switch (p) {
        case TrainingPrecision::Fp32Adam: return 16;
        case TrainingPrecision::MixedAdam: return 16;
        case TrainingPrecision::MixedAdamFp32Grad: return 20;
    }
    return 16;
}

std::string bytes_per_param_breakdown(TrainingPrecision p) {
    switch (p) {
        case TrainingPrecision::Fp32Adam: return "weight 4 + gradient 4 + Adam m 4 + Adam v 4";
        case TrainingPrecision::MixedAdam: return "bf16 weight 2 + bf16 gradient 2 + fp32 master 4 + m 4 + v 4";
        case TrainingPrecision::MixedAdamFp32Grad:
            return "bf16 weight 2 + bf16 gradient 2 + fp32 gradient 4 + fp32 master 4 + m 4 + v 4";
    }
    return "";
}

std::string to_string(TrainingPrecision p) {
    switch (p) {
        case TrainingPrecision::Fp32Adam: return "fp32 AdamW";
        case TrainingPrecision::MixedAdam: return "mixed precision AdamW";
        case TrainingPrecision::MixedAdamFp32Grad: return "mixed precision AdamW, fp32 gradient copy";
    }
    return "";
}

CalculatorResults calculate(const CalculatorInputs& in) {
    check_calculator_inputs(in);
    CalculatorResults r;
    r.gemm_flops = 2 * in.M * in.N * in.K;
    r.gemm_seconds = r.gemm_flops / (in.gemm_tflops * 1e12);
    const double h = in.hidden, ffn = in.ffn_mult * h;
    // Q, K, V and the output projection (h x h each, with biases); the MLP's two (or three)
    // matrices with biases; two LayerNorms (scale and shift).
    r.block_attention_params = 4 * h * h + 4 * h;
    r.block_mlp_params = in.gated_mlp ? 3 * h * ffn + 2 * ffn + h : 2 * h * ffn + ffn + h;
    r.block_norm_params = 4 * h;
    r.block_params = r.block_attention_params + r.block_mlp_params + r.block_norm_params;
    // Token and position embeddings, an untied output head, the final LayerNorm.
    r.embedding_params = in.vocab * h + in.context * h + (in.tied_embedding ? 0 : in.vocab * h) + 2 * h;
    r.total_params = in.layers * r.block_params + r.embedding_params;
    r.training_flops = 6 * r.total_params * in.tokens;
    r.cluster_flops_per_s = in.gpus * in.peak_tflops * 1e12 * in.mfu;
    r.training_seconds = r.training_flops / r.cluster_flops_per_s;
    r.training_days = r.training_seconds / 86400;
    r.bytes_per_param = bytes_per_param(in.precision);
    r.state_bytes = r.total_params * r.bytes_per_param;
    r.state_bytes_per_gpu = in.sharded ? r.state_bytes / in.gpus : r.state_bytes;
    r.fits = r.state_bytes_per_gpu <= in.gpu_memory_gb * 1e9;
    return r;
}

std::vector<CalculatorRow> calculator_rows(const CalculatorInputs& in) {
    const CalculatorResults r = calculate(in);
    const auto q = format_quantity;
    std::vector<CalculatorRow> rows;
    auto add = [&](const char* sec, const char* what, const std::string& value, const std::string& formula) {
        rows.push_back({sec, what, value, formula});
    };
    add("GEMM", "FLOPs", sci(r.gemm_flops, "FLOP"), "2 M N K = 2 x " + q(in.M) + " x " + q(in.N) + " x " + q(in.K));
    add("GEMM", "time at the rate", sci(r.gemm_seconds * 1e3, "ms"), "FLOPs / " + q(in.gemm_tflops) + " TFLOP/s");
    add("Model", "attention per block", sci(r.block_attention_params, "params"), "4 h^2 + 4 h, h = " + q(in.hidden));
    add("Model", "MLP per block", sci(r.block_mlp_params, "params"),
        std::string(in.gated_mlp ? "3 h f + 2 f + h" : "2 h f + f + h") + ", f = " + q(in.ffn_mult) + " h");
    add("Model", "block", sci(r.block_params, "params"), "attention + MLP + 2 LayerNorms (4 h); ~12 h^2 plain");
    add("Model", "embeddings", sci(r.embedding_params, "params"),
        "vocab h + context h" + std::string(in.tied_embedding ? " (head tied)" : " + vocab h (head)") + " + 2 h");
    add("Model", "total parameters N", sci(r.total_params, "params"), q(in.layers) + " layers x block + embeddings");
    add("Training", "FLOPs", sci(r.training_flops, "FLOP"), "6 N D, D = " + q(in.tokens) + " tokens");
    add("Training", "cluster rate", sci(r.cluster_flops_per_s, "FLOP/s"),
        q(in.gpus) + " GPUs x " + q(in.peak_tflops) + " TFLOP/s x MFU " + q(in.mfu));
    char days[64];
    std::snprintf(days, sizeof days, "%.1f days", r.training_days);
    add("Training", "time", days, "6 N D / (G x peak x MFU) = " + sci(r.training_seconds, "s"));
    add("Memory", "bytes per parameter", q(r.bytes_per_param) + " B", bytes_per_param_breakdown(in.precision));
    add("Memory", "weights + gradients + optimizer", sci(r.state_bytes / 1e9, "GB"), "N x bytes per parameter");
    add("Memory", "per GPU", sci(r.state_bytes_per_gpu / 1e9, "GB"),
        std::string(in.sharded ? "sharded over " + q(in.gpus) + " GPUs" : "replicated on every GPU") +
            (r.fits ? ": fits in " : ": does not fit in ") + q(in.gpu_memory_gb) + " GB, before activations");
    return rows;
}

std::string calculator_markdown(const CalculatorInputs& in) {
    std::string md = "| part | what | value | how |\n|---|---|---|---|\n";
    for (const auto& r : calculator_rows(in))
        md += "| " + r.section + " | " + r.what + " | " + r.value + " | " + r.formula + " |\n";
    return md;
}

}  // namespace kl
