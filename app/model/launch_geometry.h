// Launch geometry before compiling: the grid, the block and the dynamic shared memory of every
// launch of a rung, evaluated for one problem and checked against the device's limits
// (DeviceLimits of a real GPU, or of a device profile without one). A manifest therefore never
// restates a hardware limit as a constraint ("cdiv(M, BM) <= 65535"): the engine knows the
// launch dimensions and refuses in one line naming the rung, the values and the limit broken.
// What the compiled kernel adds (registers, static shared memory) is checked after compiling,
// by launch_resources.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/device_info.h"
#include "model/manifest.h"

namespace kl {

// One kernel launch of a rung, evaluated (library launches, `builtin`, have no geometry).
struct LaunchGeometry {
    const LaunchSpec* spec = nullptr;
    int64_t grid[3] = {1, 1, 1};
    int64_t block[3] = {1, 1, 1};
    int64_t dynamic_smem = 0;
    int64_t threads() const { return block[0] * block[1] * block[2]; }
};

// The kernel launches that apply to this problem (their `when` holds), evaluated.
std::vector<LaunchGeometry> evaluate_launch_geometry(const Rung& rung, const Scope& scope);

// Why a launch of the rung cannot run on a device with these limits, or "" when all can:
// "grid y = 90000 > 65535, the device's limit (grid y is B * H; B=300, H=300)". A limit of 0
// (smem_per_block_optin of a default DeviceLimits) is unknown and not checked.
std::string launch_geometry_refusal(const Rung& rung, const Scope& scope, const DeviceLimits& limits);

// Throws InputError "<rung_label> (<values>): <refusal>", e.g.
// "attention/flash_bf16 (B=300, H=300): grid y = 90000 > 65535, the device's limit".
void check_launch_geometry(const std::string& rung_label, const Rung& rung, const Scope& scope,
                           const DeviceLimits& limits);
// The same for geometry already evaluated in `scope` (evaluate_launch_geometry).
void check_launch_geometry(const std::string& rung_label, const Rung& rung, const std::vector<LaunchGeometry>& geometry,
                           const Scope& scope, const DeviceLimits& limits);

// The rung's parameters that appear in these expressions ("TPB, EPT"), for one-line refusals
// that name what to lower.
std::string params_used(const Rung& rung, const std::vector<Expr>& exprs);

// What to change to make the expressions' product smaller (a block's threads, a launch's shared
// memory), in the direction each parameter moves it: every parameter of the rung the
// expressions use, doubled on its own in `scope`; those that grow the product are to be
// lowered, those that shrink it raised. For a block of (BM / TM) * (BN / TN) threads: "lower
// BM, BN or raise TM, TN" (issue 38: the hint said to lower TM and TN, which adds threads).
// "" when the expressions do not evaluate in `scope` or no parameter moves them.
std::string shrink_advice(const Rung& rung, const std::vector<Expr>& exprs, const Scope& scope);

}  // namespace kl
