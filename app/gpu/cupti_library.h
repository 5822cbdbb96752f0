// CUPTI, loaded at run time (the counters and the kernel timeline use it). dlopen rather than
// linking: a program linked to libcupti would not start where CUPTI is not on the loader path,
// and counters are optional. libcupti itself loads libnvperf_host/target by name; preloading them
// from libcupti's own folder lets it find them even off the path.
#pragma once

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <string>

namespace kl {

// clang-format off
#define KL_CUPTI_FUNCTIONS(X) \
    X(cuptiGetResultString) \
    X(cuptiProfilerInitialize) \
    X(cuptiProfilerDeInitialize) \
    X(cuptiDeviceGetChipName) \
    X(cuptiProfilerDeviceSupported) \
    X(cuptiProfilerGetCounterAvailability) \
    X(cuptiProfilerHostInitialize) \
    X(cuptiProfilerHostDeinitialize) \
    X(cuptiProfilerHostGetMetricProperties) \
    X(cuptiProfilerHostConfigAddMetrics) \
    X(cuptiProfilerHostGetConfigImageSize) \
    X(cuptiProfilerHostGetConfigImage) \
    X(cuptiProfilerHostGetNumOfPasses) \
    X(cuptiProfilerHostEvaluateToGpuValues) \
    X(cuptiRangeProfilerEnable) \
    X(cuptiRangeProfilerDisable) \
    X(cuptiRangeProfilerSetConfig) \
    X(cuptiRangeProfilerStart) \
    X(cuptiRangeProfilerStop) \
    X(cuptiRangeProfilerPushRange) \
    X(cuptiRangeProfilerPopRange) \
    X(cuptiRangeProfilerDecodeData) \
    X(cuptiRangeProfilerGetCounterDataSize) \
    X(cuptiRangeProfilerCounterDataImageInitialize) \
    X(cuptiRangeProfilerGetCounterDataInfo)
// clang-format on

struct CuptiLibrary {
#define KL_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
    KL_CUPTI_FUNCTIONS(KL_DECLARE_POINTER)
#undef KL_DECLARE_POINTER
    std::string path;
    std::string failure;     // why it could not be loaded; empty when loaded
    void* handle = nullptr;  // [timeline] kernel_trace.cpp resolves the activity API from it
};

// The loaded table; when CUPTI cannot be loaded, handle is null and failure says why (never throws).
const CuptiLibrary& cupti_library();

// [timeline] The loaded library for the activity API (kernel_trace.cpp); null with *failure when
// CUPTI could not be loaded at all.
void* cupti_library_handle(std::string* failure);

}  // namespace kl
