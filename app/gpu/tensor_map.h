// TMA tensor maps (CUtensorMap) for kernels that copy tiles with cp.async.bulk.tensor: the
// manifest's `tmap(...)` argument (docs/formats.md). The driver's encoder is reached through
// the runtime's entry-point query, so the engine still links only libcudart.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "gpu/gpu_context.h"
#include "model/dtype.h"

namespace kl {

// A 2-D row-major tensor of rows x cols elements, copied in boxes of box_rows x box_cols.
struct TensorMapRequest {
    const void* base = nullptr;
    DType dtype = DType::BF16;
    int64_t rows = 0, cols = 0, box_rows = 0, box_cols = 0;
    int swizzle = 0;  // bytes: 0, 32, 64 or 128
};

// Problems with the box or swizzle that no tensor shape can fix (the manifest's parameters are
// wrong): "" when the request is valid, else one line saying what breaks which rule.
std::string tensor_map_box_problem(const TensorMapRequest& req);

// Whether the tensor itself can be described: the hardware needs a 16-byte-aligned base and a
// row pitch (cols * element size) that is a multiple of 16 bytes, below 2^40. When it cannot,
// a kernel must not use its map (it gets all-zero bytes) and takes an element-wise path under
// the same test, computed from its own arguments.
bool tensor_map_describable(const TensorMapRequest& req);

// Encodes the map (box problems throw InputError prefixed by `label`; driver failures throw
// GpuError with the parameters). An indescribable tensor gives a zeroed map, not an error.
std::shared_ptr<const TensorMapBytes> encode_tensor_map_2d(const TensorMapRequest& req, const std::string& label);

}  // namespace kl
