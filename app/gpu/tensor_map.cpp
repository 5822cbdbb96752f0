#include "gpu/tensor_map.h"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled and the CU* types (headers only)

#include <cstring>

#include "base/errors.h"
#include "gpu/cuda_check.h"

namespace kl {

static_assert(sizeof(CUtensorMap) == sizeof(TensorMapBytes), "TensorMapBytes must hold exactly one CUtensorMap");
static_assert(alignof(TensorMapBytes) >= 64, "the driver reads tensor maps from 64-byte-aligned memory");

namespace {

std::string describe(const TensorMapRequest& r) {
    return to_string(r.dtype) + " " + std::to_string(r.rows) + " x " + std::to_string(r.cols) + ", box " +
           std::to_string(r.box_rows) + " x " + std::to_string(r.box_cols) + ", swizzle " + std::to_string(r.swizzle);
}

// The driver's encoder, looked up once. Throws GpuError when the driver does not offer it.
PFN_cuTensorMapEncodeTiled_v12000 encoder() {
    static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
        KL_CUDA_CALL(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &status));
        if (status != cudaDriverEntryPointSuccess || !p)
            throw GpuError("cuTensorMapEncodeTiled is not available from this driver (entry-point query status " +
                           std::to_string(static_cast<int>(status)) + ")");
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }();
    return fn;
}

}  // namespace

std::string tensor_map_box_problem(const TensorMapRequest& r) {
    const int64_t esize = dtype_size(r.dtype);
    if (r.box_rows < 1 || r.box_rows > 256 || r.box_cols < 1 || r.box_cols > 256)
        return "box " + std::to_string(r.box_rows) + " x " + std::to_string(r.box_cols) +
               ": each side must be 1..256 elements";
    if ((r.box_cols * esize) % 16 != 0)
        return "box_cols " + std::to_string(r.box_cols) + " x " + std::to_string(esize) +
               " bytes is not a multiple of 16 bytes";
    if (r.swizzle != 0 && r.swizzle != 32 && r.swizzle != 64 && r.swizzle != 128)
        return "swizzle " + std::to_string(r.swizzle) + ": expected 0, 32, 64 or 128 bytes";
    if (r.swizzle != 0 && r.box_cols * esize > r.swizzle)
        return "box_cols " + std::to_string(r.box_cols) + " x " + std::to_string(esize) + " bytes exceeds the " +
               std::to_string(r.swizzle) + "-byte swizzle span";
    if (r.rows < 1 || r.cols < 1 || r.rows > (int64_t(1) << 32) || r.cols > (int64_t(1) << 32))
        return "tensor " + std::to_string(r.rows) + " x " + std::to_string(r.cols) + ": each side must be 1..2^32";
    return "";
}

bool tensor_map_describable(const TensorMapRequest& r) {
    const int64_t pitch = r.cols * dtype_size(r.dtype);
    return reinterpret_cast<uintptr_t>(r.base) % 16 == 0 && pitch % 16 == 0 && pitch < (int64_t(1) << 40);
}

std::shared_ptr<const TensorMapBytes> encode_tensor_map_2d(const TensorMapRequest& r, const std::string& label) {
    std::string problem = tensor_map_box_problem(r);
    if (!problem.empty()) throw InputError(label + ": " + problem);
    auto map = std::shared_ptr<TensorMapBytes>(new TensorMapBytes);  // C++17: aligned new for alignas(64)
    std::memset(map->bytes, 0, sizeof map->bytes);
    if (reinterpret_cast<uintptr_t>(map->bytes) % 64 != 0)
        throw GpuError(label + ": tensor map storage is not 64-byte aligned");
    if (!tensor_map_describable(r)) return map;

    CUtensorMapDataType type = r.dtype == DType::BF16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                               : r.dtype == DType::F16  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                               : r.dtype == DType::E4M3 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    CUtensorMapSwizzle swizzle = r.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : r.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                 : r.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
    // Innermost dimension first: columns, then rows; one stride (bytes between rows).
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(r.cols), static_cast<cuuint64_t>(r.rows)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(r.cols * dtype_size(r.dtype))};
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(r.box_cols), static_cast<cuuint32_t>(r.box_rows)};
    const cuuint32_t element_strides[2] = {1, 1};
    CUresult res =
        encoder()(reinterpret_cast<CUtensorMap*>(map->bytes), type, 2, const_cast<void*>(r.base), dims, strides, box,
                  element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);  // out-of-bounds elements arrive as zeros
    if (res != CUDA_SUCCESS)
        throw GpuError(label + ": cuTensorMapEncodeTiled failed with CUresult " +
                       std::to_string(static_cast<int>(res)) + " for " + describe(r));
    return map;
}

}  // namespace kl
