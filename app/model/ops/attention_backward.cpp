// Operation of the attention_backward ladder (kernels/attention_backward/): the backward pass of
// the attention ladder's O = softmax(Q K^T / sqrt(d)) V. Inputs Q, K, V, O, dO as [B, H, N, d]
// bf16 and the forward's log-sum-exp L[B, H, N] fp32; outputs dQ, dK, dV as [B, H, N, d] bf16.
// causal = 1: query i sees keys 0..i. The math: model/ops/attention_backward_ref.h.
//
// [SECTION] index: inputs and tolerance / reference (CPU, or GPU with a CPU spot check) / operation
//
// The inputs are consistent: O and L are the forward of Q, K, V, computed by the attention
// ladder's double reference (kernels/attention/reference.cu), O rounded to bf16 as a forward
// would store it. The reference is written from the math in double on the CPU
// (attention_backward_ref.cpp) while the problem is small (B H N^2 d <= 2^26, about a second;
// every size the unit and GPU tests use but one); above, a double GPU helper
// (kernels/attention_backward/reference.cu) computes it and a few of its rows of dQ, dK and dV are
// recomputed on the CPU from the same inputs and must agree to 1e-6, as the forward's reference
// is checked: a GPU reference that drifts is an error, not a silently wrong baseline.

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "base/errors.h"
#include "model/op_context.h"
#include "model/operation.h"
#include "model/ops/attention_backward_ref.h"
#include "model/ops/attention_forward_reference.h"

namespace kl {

namespace {

// [SECTION] Inputs and tolerance
//
// Q uniform in [-3, 3), K, V and dO in [-1, 1): a scaled score q.k / sqrt(d) then has standard
// deviation 1 for any d (variance 3 x 1/3 per term, d terms, divided by d), so the rows of P are
// neither flat (where a dropped key tile would hide) nor one-hot (where dS would vanish).
constexpr float kBackwardQueryRange = 3.f;
constexpr double kCpuReferenceLimit = double(int64_t(1) << 26);  // B H N^2 d: a CPU second in double

struct Head {
    std::vector<float> q, k, v, o, dout, lse;
    AttentionHead<float> view(int64_t n, int64_t d, bool causal) const {
        AttentionHead<float> h;
        h.q = q.data(), h.k = k.data(), h.v = v.data(), h.o = o.data(), h.dout = dout.data(), h.lse = lse.data();
        h.n = n, h.d = d, h.causal = causal;
        return h;
    }
};

std::vector<float> download_head(OpContext& gpu, const char* name, int64_t bh, int64_t count) {
    DeviceArray& buf = gpu.buffer(name);
    const size_t es = static_cast<size_t>(dtype_size(buf.dtype()));
    std::vector<unsigned char> raw =
        gpu.download_bytes(buf, static_cast<size_t>(bh * count) * es, static_cast<size_t>(count) * es);
    std::vector<float> out(static_cast<size_t>(count));
    for (size_t i = 0; i < out.size(); ++i) {
        if (buf.dtype() == DType::F32) {
            std::memcpy(&out[i], &raw[i * 4], 4);
        } else {
            uint16_t b;
            std::memcpy(&b, &raw[i * 2], 2);
            out[i] = bf16_to_float(b);
        }
    }
    return out;
}

Head load_head(OpContext& gpu, int64_t bh, int64_t n, int64_t d) {
    return {download_head(gpu, "Q", bh, n * d), download_head(gpu, "K", bh, n * d),  download_head(gpu, "V", bh, n * d),
            download_head(gpu, "O", bh, n * d), download_head(gpu, "dO", bh, n * d), download_head(gpu, "L", bh, n)};
}

// [SECTION] Reference

// The whole problem on the CPU, head by head.
void cpu_reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) {
    const int64_t bh_count = p.size("B") * p.size("H"), n = p.size("N"), d = p.size("d");
    for (const char* name : {"dQ", "dK", "dV"}) out[name].assign(static_cast<size_t>(bh_count * n * d), 0.f);
    std::vector<double> dq, dk, dv;
    for (int64_t bh = 0; bh < bh_count; ++bh) {
        const Head head = load_head(gpu, bh, n, d);
        attention_backward_head(head.view(n, d, p.size("causal") != 0), dq, dk, dv);
        for (int64_t e = 0; e < n * d; ++e) {
            out["dQ"][bh * n * d + e] = float(dq[e]);
            out["dK"][bh * n * d + e] = float(dk[e]);
            out["dV"][bh * n * d + e] = float(dv[e]);
        }
    }
}

// Rows of the GPU reference recomputed on the CPU; throws GpuError on a disagreement.
void self_check(const Problem& p, OpContext& gpu, const ReferenceOutputs& out) {
    const int64_t bh_count = p.size("B") * p.size("H"), n = p.size("N"), d = p.size("d");
    const std::set<std::pair<int64_t, int64_t>> rows = {
        {0, 0}, {0, n - 1}, {bh_count / 2, (2 * n) / 3}, {bh_count - 1, n / 2}, {bh_count - 1, n - 1}};
    int64_t loaded = -1;
    Head head;
    std::vector<double> dq(static_cast<size_t>(d)), dk(dq), dv(dq);
    for (const auto& [bh, r] : rows) {
        if (bh != loaded) head = load_head(gpu, loaded = bh, n, d);
        const AttentionHead<float> h = head.view(n, d, p.size("causal") != 0);
        attention_backward_dq_row(h, r, dq.data());
        attention_backward_dkdv_row(h, r, dk.data(), dv.data());
        for (const auto& [name, want] :
             {std::pair<const char*, const std::vector<double>*>{"dQ", &dq}, {"dK", &dk}, {"dV", &dv}})
            for (int64_t c = 0; c < d; ++c) {
                const float got = out.at(name)[(bh * n + r) * d + c];
                const double expected = (*want)[c];
                if (std::fabs(double(got) - expected) <= 1e-6 + 1e-6 * std::fabs(expected)) continue;
                char msg[320];
                std::snprintf(msg, sizeof msg,
                              "attention_backward reference self-check failed for %s: %s at head %lld, row %lld, "
                              "column %lld is %.9g on the GPU but %.9g on the CPU (double)",
                              p.describe().c_str(), name, static_cast<long long>(bh), static_cast<long long>(r),
                              static_cast<long long>(c), double(got), expected);
                throw GpuError(msg);
            }
    }
}

// The double GPU helper: dQ by blocks of 8 query rows, dK and dV by blocks of 8 key rows.
void gpu_reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) {
    const int64_t bh = p.size("B") * p.size("H"), n = p.size("N"), d = p.size("d");
    constexpr int64_t kRows = 8, kThreads = 128;  // REF_ROWS, REF_THREADS of reference.cu
    const int64_t row_blocks = (n + kRows - 1) / kRows;
    if (bh * row_blocks > 2147483647LL)
        throw InputError("attention_backward reference: B * H * ceil(N / 8) = " + std::to_string(bh * row_blocks) +
                         " blocks exceed the grid limit 2^31 - 1");
    DeviceArray& dq = gpu.add_buffer("ref_dQ", DType::F32, bh * n * d);
    DeviceArray& dk = gpu.add_buffer("ref_dK", DType::F32, bh * n * d);
    DeviceArray& dv = gpu.add_buffer("ref_dV", DType::F32, bh * n * d);
    const size_t smem = static_cast<size_t>(2 * kRows * d) * sizeof(double);
    auto in = [&](const char* name) { return KernelArg::pointer(gpu.buffer(name).data()); };
    const std::vector<KernelArg> tail = {in("Q"),
                                         in("K"),
                                         in("V"),
                                         in("O"),
                                         in("dO"),
                                         in("L"),
                                         KernelArg::i64v(n),
                                         KernelArg::i32v(static_cast<int32_t>(d)),
                                         KernelArg::i32v(static_cast<int32_t>(p.size("causal"))),
                                         KernelArg::i64v(row_blocks)};
    std::vector<KernelArg> dq_args = {KernelArg::pointer(dq.data())},
                           dkdv_args = {KernelArg::pointer(dk.data()), KernelArg::pointer(dv.data())};
    dq_args.insert(dq_args.end(), tail.begin(), tail.end());
    dkdv_args.insert(dkdv_args.end(), tail.begin(), tail.end());
    const dim3 grid(static_cast<unsigned>(bh * row_blocks)), block(kThreads);
    const std::vector<std::string> defines = {"ELEM=__nv_bfloat16"};
    gpu.launch_helper("attention_backward/reference.cu", "ref_attention_dq", grid, block, dq_args, defines, smem);
    gpu.launch_helper("attention_backward/reference.cu", "ref_attention_dkdv", grid, block, dkdv_args, defines, smem);
    out["dQ"] = gpu.download_as_float(dq);
    out["dK"] = gpu.download_as_float(dk);
    out["dV"] = gpu.download_as_float(dv);
    for (const char* name : {"ref_dQ", "ref_dK", "ref_dV"}) gpu.remove_buffer(name);
    self_check(p, gpu, out);
}

// [SECTION] The operation

class AttentionBackward : public Operation {
  public:
    std::string name() const override { return "attention_backward"; }
    std::string description() const override {
        return "dQ, dK, dV of O = softmax(Q K^T / sqrt(d)) V per head from dO, O and the forward's log-sum-exp L; "
               "[B, H, N, d] bf16; causal = 1 masks keys after the query";
    }
    std::vector<SizeAxis> size_axes() const override {
        return {{"B", 1, 65535, "batch"},
                {"H", 1, 65535, "heads"},
                {"N", 1, int64_t(1) << 20, "sequence length (queries = keys)"},
                {"d", 1, 256, "head dimension (the kernels take 64 or 128)"},
                {"causal", 0, 1, "1: query i sees keys 0..i only"}};
    }
    std::vector<DType> dtypes() const override { return {DType::BF16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t rows = p.size("B") * p.size("H") * p.size("N");
        const int64_t n = rows * p.size("d");
        return {{"Q", p.dtype, n, BufferDecl::Role::Input},   {"K", p.dtype, n, BufferDecl::Role::Input},
                {"V", p.dtype, n, BufferDecl::Role::Input},   {"O", p.dtype, n, BufferDecl::Role::Input},
                {"dO", p.dtype, n, BufferDecl::Role::Input},  {"L", DType::F32, rows, BufferDecl::Role::Input},
                {"dQ", p.dtype, n, BufferDecl::Role::Output}, {"dK", p.dtype, n, BufferDecl::Role::Output},
                {"dV", p.dtype, n, BufferDecl::Role::Output}};
    }
    // Five matrix products of 2 N^2 d FLOPs per head (S = Q K^T recomputed, dP = dO V^T,
    // dV = P^T dO, dQ = dS K, dK = dS^T Q): 2.5 times the forward's two. Causal counts half, as
    // the forward does. Ideal traffic: Q, K, V, O, dO and L read once, dQ, dK, dV written once.
    Work work(const Problem& p) const override {
        const double bh = double(p.size("B")) * double(p.size("H")), n = double(p.size("N")), d = double(p.size("d"));
        const double flops = 10 * bh * n * n * d * (p.size("causal") ? 0.5 : 1.0);
        return {flops, 8 * bh * n * d * dtype_size(p.dtype) + 4 * bh * n};
    }
    // bf16 outputs: rounding dQ, dK, dV to bf16 moves each by at most 2^-9 of itself; the fp32
    // sums of N terms err by about 2^-24 sqrt(N) of the terms' size, far less. The tensor-core
    // rungs round P and dS to bf16 before their products, as every FlashAttention does: each term
    // of dV_j = sum_i P_ij dO_i moves by up to 2^-9 of itself, so dV_j by up to 2^-9 sum_i P_ij
    // |dO_i|, and the attention a key receives, sum_i P_ij, is not bounded by 1 as a row's is:
    // under the causal mask the first keys receive about ln N (8.3 at N = 4096), up to
    // 2^-9 x 8.3 x 0.5 = 8e-3 with every rounding aligned (dK and dQ alike, through dS).
    // Emulated on the CPU (docs/tuning/attention_backward.md): 2.8e-3 at N = 130, causal, key 1,
    // where dV is 6e-3. Hence 1e-2 absolute, and 2e-2 relative (10 half-ulps of bf16) for the
    // outputs of order 1. A dropped key tile leaves its keys' dK and dV at zero; a missing scale
    // or a wrong D moves every output by far more.
    Tolerance tolerance(const Problem&) const override { return {1e-2, 2e-2}; }
    void make_inputs(const Problem& p, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("Q"), seed * 1000003u + 1, -kBackwardQueryRange, kBackwardQueryRange);
        gpu.fill_uniform(gpu.buffer("K"), seed * 1000003u + 2, -1.f, 1.f);
        gpu.fill_uniform(gpu.buffer("V"), seed * 1000003u + 3, -1.f, 1.f);
        gpu.fill_uniform(gpu.buffer("dO"), seed * 1000003u + 4, -1.f, 1.f);
        forward_outputs(p, gpu);
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const double cost =
            double(p.size("B")) * double(p.size("H")) * double(p.size("N")) * double(p.size("N")) * double(p.size("d"));
        if (cost <= kCpuReferenceLimit)
            cpu_reference(p, gpu, out);
        else
            gpu_reference(p, gpu, out);
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string&) const override {
        return {p.size("B") * p.size("H") * p.size("N"), p.size("d")};
    }

  private:
    // O and L by the forward ladder's double reference, O rounded to bf16 on upload.
    static void forward_outputs(const Problem& p, OpContext& gpu) {
        const AttentionForwardOutputs forward = run_attention_forward_reference(p, gpu, "attention_backward inputs");
        gpu.upload_from_float(gpu.buffer("O"), forward.o);
        gpu.upload_from_float(gpu.buffer("L"), forward.lse);
    }
};

}  // namespace

KL_REGISTER_OPERATION(AttentionBackward)

}  // namespace kl
