// The double-precision forward reference that both attention ladders launch: the forward ladder
// checks its rungs against it, and the backward ladder builds its O and L inputs from it. One
// launch sequence, so the grid limit, the shared-memory size and the argument order of
// kernels/attention/reference.cu are written once.
#pragma once
#include <string>
#include <vector>

#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

// O as B*H*N rows of d floats and the log-sum-exp as B*H*N floats, from the context's Q, K and V
// buffers (dtype p.dtype; causal from the problem's `causal` axis).
struct AttentionForwardOutputs {
    std::vector<float> o;
    std::vector<float> lse;
};

// `who` names the caller in the one-line error when the grid would exceed its limit.
AttentionForwardOutputs run_attention_forward_reference(const Problem& p, OpContext& gpu, const std::string& who);

}  // namespace kl
