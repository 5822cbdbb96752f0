// Device ceilings measured once per device and cached: the copy bandwidth every memory-bound
// rung is compared with, and the cuBLAS GEMM rates every compute-bound rung is compared with.
#pragma once
#include "model/results.h"

namespace kl {

class GpuContext;

// Cached in cache_dir("calibration")/<device uuid>.json; `force` measures again.
Calibration load_or_measure_calibration(GpuContext& gpu, bool force = false);
Calibration measure_calibration(GpuContext& gpu);

}  // namespace kl
