// Lesson 12's calculator: the arithmetic of resource accounting, from one kernel to a training
// run. 2MNK FLOPs of a GEMM and its time at a rate; 6ND FLOPs of training; MFU and days of
// training; bytes per parameter with AdamW (fp32, or mixed precision); the parameters of a
// GPT-2-style model. No CUDA, no UI: the window edits a CalculatorInputs and shows
// calculator_rows(); the lesson handout prints the same rows as a table.
#pragma once
#include <string>
#include <vector>

namespace kl {

// How the training state is kept, per parameter (the rows of calculator_bytes_per_param).
enum class TrainingPrecision {
    Fp32Adam,          // fp32 weights, gradients, Adam m and v: 16 bytes
    MixedAdam,         // bf16 weights and gradients + fp32 master weights, m and v: 16 bytes
    MixedAdamFp32Grad  // the same keeping an fp32 gradient copy too: 20 bytes
};

struct CalculatorInputs {
    // One GEMM: C (M x N) = A (M x K) B (K x N).
    double M = 4096, N = 4096, K = 4096;
    double gemm_tflops = 700;  // the rate it runs at (default: this device's measured cuBLAS bf16)
    // The model: a GPT-2-style decoder (attention's four h x h projections, an MLP of ffn_mult x h).
    double hidden = 768, layers = 12, vocab = 50257, context = 1024;
    double ffn_mult = 4;
    bool gated_mlp = false;      // SwiGLU-style: three matrices instead of two
    bool tied_embedding = true;  // the output head shares the token embedding
    // The run.
    double tokens = 300e9;      // D
    double gpus = 8;            // G
    double peak_tflops = 989;   // per GPU: the datasheet's dense bf16, or a measured rate
    double mfu = 0.5;           // model FLOPs utilization, 0..1
    double gpu_memory_gb = 80;  // per GPU, decimal GB
    TrainingPrecision precision = TrainingPrecision::MixedAdam;
    bool sharded = true;  // ZeRO/FSDP: state split over the GPUs, not replicated
};

// Every result, in base units (FLOPs, seconds, bytes, parameters).
struct CalculatorResults {
    double gemm_flops = 0, gemm_seconds = 0;
    double block_attention_params = 0, block_mlp_params = 0, block_norm_params = 0, block_params = 0;
    double embedding_params = 0, total_params = 0;
    double training_flops = 0;       // 6 N D
    double cluster_flops_per_s = 0;  // G x peak x MFU
    double training_seconds = 0, training_days = 0;
    double bytes_per_param = 0, state_bytes = 0, state_bytes_per_gpu = 0;
    bool fits = false;  // state_bytes_per_gpu <= gpu memory (before activations)
};

// Throws InputError naming the field when an input is not finite, negative or out of range
// (MFU outside (0, 1], zero GPUs, a zero rate).
void check_calculator_inputs(const CalculatorInputs& in);
CalculatorResults calculate(const CalculatorInputs& in);

// Bytes per parameter for a precision, and the breakdown as "param 2 + grad 2 + master 4 + ...".
double bytes_per_param(TrainingPrecision p);
std::string bytes_per_param_breakdown(TrainingPrecision p);
std::string to_string(TrainingPrecision p);

// One line of the calculator's table: what, the value as shown ("1.24e+07 s = 144 days"), and
// the formula with the inputs put in. The window's panel and the handout print these.
struct CalculatorRow {
    std::string section, what, value, formula;
};
std::vector<CalculatorRow> calculator_rows(const CalculatorInputs& in);
// The rows as a Markdown table (the handout's).
std::string calculator_markdown(const CalculatorInputs& in);

// "1.24e+07", "4096", "0.5": a number for the table, 3 significant digits or exact integers.
std::string format_quantity(double v);

}  // namespace kl
