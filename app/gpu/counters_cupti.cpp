// The CUPTI half of the counters (CUPTI itself is loaded by cupti_library.cpp): plan the metrics on the host
// (libnvperf_host, no GPU needed), and run the counters pass with the range profiler:
// one user range around the rung's launches, replayed by us once per pass (user replay).
// [SECTION] index: Checked calls / Host planning / Device support / Collector
#include <cublas_v2.h>
#include <cuda.h>  // CUcontext and CUdevice types only; libcuda is never linked

#include <algorithm>
#include <vector>

#include "gpu/cublas_library.h"
#include "gpu/cuda_check.h"
#include "gpu/cupti_library.h"
#include "gpu/device_buffer.h"
#include "gpu/gpu_context.h"
#include "model/counters.h"
#include "model/results.h"

namespace kl {

namespace {

const CuptiLibrary& cupti() {
    const CuptiLibrary& L = cupti_library();
    if (!L.failure.empty()) throw CountersUnavailable(L.failure);
    return L;
}

// [SECTION] Checked calls

void check(CUptiResult r, const char* call) {
    if (r == CUPTI_SUCCESS) return;
    const char* text = nullptr;
    if (cupti_library().cuptiGetResultString) cupti_library().cuptiGetResultString(r, &text);
    throw CountersUnavailable(explain_cupti_result(r, call, text ? text : ""));
}

// Params structs start with structSize, the rest zero: CUPTI reads only what the size covers.
#define KL_CUPTI_PARAMS(Type, var) \
    Type var{};                    \
    var.structSize = Type##_STRUCT_SIZE
#define KL_CUPTI_CALL(fn, params) check(cupti().fn(&(params)), #fn)

class HostObject {
  public:
    HostObject() = default;
    HostObject(const std::string& chip, const uint8_t* availability) {
        KL_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params, p);
        p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        p.pChipName = chip.c_str();
        p.pCounterAvailabilityImage = availability;
        KL_CUPTI_CALL(cuptiProfilerHostInitialize, p);
        object_ = p.pHostObject;
    }
    ~HostObject() { reset(); }
    HostObject(HostObject&& o) noexcept : object_(o.object_) { o.object_ = nullptr; }
    HostObject& operator=(HostObject&& o) noexcept {
        if (this != &o) {
            reset();
            object_ = o.object_;
            o.object_ = nullptr;
        }
        return *this;
    }
    CUpti_Profiler_Host_Object* get() const { return object_; }

  private:
    void reset() {
        if (!object_) return;
        KL_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params, p);
        p.pHostObject = object_;
        cupti_library().cuptiProfilerHostDeinitialize(&p);  // best effort in a destructor
        object_ = nullptr;
    }
    CUpti_Profiler_Host_Object* object_ = nullptr;
};

// [SECTION] Host planning

struct Plan {
    MetricPlan metrics;
    std::vector<uint8_t> config_image;
};

Plan make_plan(const HostObject& host, const std::string& chip, const std::vector<std::string>& wanted) {
    Plan plan;
    // Ask about each metric alone: one unknown name must not cost all the others.
    for (const auto& m : wanted) {
        KL_CUPTI_PARAMS(CUpti_Profiler_Host_GetMetricProperties_Params, q);
        q.pHostObject = host.get();
        q.pMetricName = m.c_str();
        if (cupti().cuptiProfilerHostGetMetricProperties(&q) == CUPTI_SUCCESS)
            plan.metrics.supported.push_back(m);
        else
            plan.metrics.unsupported[m] = "not a metric of " + chip + " in this CUPTI";
    }
    if (plan.metrics.supported.empty())
        throw CountersUnavailable("hardware counters unavailable: CUPTI knows none of the metrics for " + chip);
    std::vector<const char*> names;
    for (const auto& m : plan.metrics.supported) names.push_back(m.c_str());
    KL_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params, add);
    add.pHostObject = host.get();
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    KL_CUPTI_CALL(cuptiProfilerHostConfigAddMetrics, add);
    KL_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params, size);
    size.pHostObject = host.get();
    KL_CUPTI_CALL(cuptiProfilerHostGetConfigImageSize, size);
    plan.config_image.resize(size.configImageSize);
    KL_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params, image);
    image.pHostObject = host.get();
    image.configImageSize = plan.config_image.size();
    image.pConfigImage = plan.config_image.data();
    KL_CUPTI_CALL(cuptiProfilerHostGetConfigImage, image);
    KL_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params, passes);
    passes.configImageSize = plan.config_image.size();
    passes.pConfigImage = plan.config_image.data();
    KL_CUPTI_CALL(cuptiProfilerHostGetNumOfPasses, passes);
    plan.metrics.passes = static_cast<int>(passes.numOfPasses);
    return plan;
}

// [SECTION] Device support

std::string unsupported_device_reason(const CUpti_Profiler_DeviceSupported_Params& s) {
    auto bad = [](CUpti_Profiler_Support_Level l) { return l != CUPTI_PROFILER_CONFIGURATION_SUPPORTED; };
    if (bad(s.architecture))
        return "the GPU's architecture is too old for the range profiler (it needs compute capability 7.0 or newer)";
    if (s.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
        return "this is a virtual GPU whose host has not enabled profiling for it";
    if (bad(s.vGpu)) return "this is a virtualized GPU that does not support profiling";
    if (bad(s.confidentialCompute))
        return "the GPU runs in confidential-computing mode, which forbids reading performance counters";
    if (bad(s.cmp)) return "this GPU (a CMP part) does not support profiling";
    if (bad(s.wsl)) return "profiling is not supported for this GPU under WSL";
    if (bad(s.sli)) return "profiling is not supported with SLI enabled";
    return "CUPTI reports that this GPU does not support the range profiler";
}

}  // namespace

MetricPlan plan_metrics(const std::string& chip, const std::vector<std::string>& metrics) {
    HostObject host(chip, nullptr);
    return make_plan(host, chip, metrics).metrics;
}

// [SECTION] Collector

struct CounterCollector::Impl {
    GpuContext& gpu;
    bool opened = false;
    bool profiler_initialized = false;
    std::string unavailable;  // set once opening failed: every later collect answers with it
    CUcontext ctx = nullptr;
    std::string chip;
    std::vector<uint8_t> availability;
    HostObject host;
    Plan plan;
    std::unique_ptr<DeviceBuffer> l2_evict;  // read (not written) before each pass

    explicit Impl(GpuContext& g) : gpu(g) {}
    ~Impl() {
        host = HostObject();
        if (profiler_initialized) {
            KL_CUPTI_PARAMS(CUpti_Profiler_DeInitialize_Params, p);
            cupti_library().cuptiProfilerDeInitialize(&p);
        }
    }

    void open() {
        cupti();  // throws when CUPTI cannot be loaded
        using CtxGetCurrent = CUresult (*)(CUcontext*);
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, CUDART_VERSION, cudaEnableDefault, &found) !=
                cudaSuccess ||
            !fn) {
            cudaGetLastError();
            throw CountersUnavailable("hardware counters unavailable: the driver gave no cuCtxGetCurrent entry point");
        }
        if (reinterpret_cast<CtxGetCurrent>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
            throw CountersUnavailable("hardware counters unavailable: no current CUDA context on this thread");

        KL_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params, init);
        KL_CUPTI_CALL(cuptiProfilerInitialize, init);
        profiler_initialized = true;

        KL_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params, support);
        support.cuDevice = static_cast<CUdevice>(gpu.device().ordinal);
        support.api = CUPTI_PROFILER_RANGE_PROFILING;
        KL_CUPTI_CALL(cuptiProfilerDeviceSupported, support);
        if (support.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
            throw CountersUnavailable("hardware counters unavailable: " + unsupported_device_reason(support));

        KL_CUPTI_PARAMS(CUpti_Device_GetChipName_Params, name);
        name.deviceIndex = static_cast<size_t>(gpu.device().ordinal);
        KL_CUPTI_CALL(cuptiDeviceGetChipName, name);
        chip = name.pChipName ? name.pChipName : "";

        // Which counters this context may read (the permission check happens here on most drivers).
        KL_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params, avail);
        avail.ctx = ctx;
        KL_CUPTI_CALL(cuptiProfilerGetCounterAvailability, avail);
        availability.resize(avail.counterAvailabilityImageSize);
        avail.pCounterAvailabilityImage = availability.data();
        KL_CUPTI_CALL(cuptiProfilerGetCounterAvailability, avail);

        host = HostObject(chip, availability.data());
        plan = make_plan(host, chip, counter_metric_names());

        int64_t bytes = std::max<int64_t>(2 * gpu.device().l2_bytes, 64 << 20);
        try {
            l2_evict = std::make_unique<DeviceBuffer>("counters_l2_evict", DType::F32, bytes / 4);
            KL_CUDA_CALL(cudaMemsetAsync(l2_evict->data(), 0, l2_evict->bytes(), gpu.stream()));
            gpu.synchronize();
        } catch (const GpuError& e) {
            cudaGetLastError();
            throw CountersUnavailable(
                std::string("hardware counters unavailable: no room for the buffer that empties L2 (") + e.what() +
                ")");
        }
        opened = true;
    }

    // Reads 2 x L2 of untouched data: the rung's lines (and its dirty output) leave L2 before the
    // range starts, and what remains is clean, so no write-back of older data lands in the range.
    // A read, not a memset: a memset would leave L2 full of dirty lines that the rung would then
    // write back inside its range. Nsight Compute's cache control leaves L2 equally clean.
    void empty_l2() {
        float ignored = 0;
        KL_CUBLAS_CALL(cublas_library().cublasSetPointerMode(gpu.cublas(), CUBLAS_POINTER_MODE_HOST));
        KL_CUBLAS_CALL(cublas_library().cublasSasum(gpu.cublas(), static_cast<int>(l2_evict->elements()),
                                                    l2_evict->as<float>(), 1, &ignored));
        gpu.synchronize();
    }

    // One range around the workload, replayed pass by pass until CUPTI has every counter; then
    // the metrics evaluated on the host. The profiler is enabled for this call only.
    RawCounters measure(const std::function<void()>& workload) {
        std::vector<const char*> names;
        for (const auto& m : plan.metrics.supported) names.push_back(m.c_str());

        KL_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params, enable);
        enable.ctx = ctx;
        KL_CUPTI_CALL(cuptiRangeProfilerEnable, enable);
        CUpti_RangeProfiler_Object* object = enable.pRangeProfilerObject;
        // Disabled again on every way out, so nothing of the profiler stays on the context.
        struct DisableOnExit {
            CUpti_RangeProfiler_Object* object;
            ~DisableOnExit() {
                KL_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params, p);
                p.pRangeProfilerObject = object;
                cupti_library().cuptiRangeProfilerDisable(&p);
            }
        } disable_on_exit{object};

        std::vector<uint8_t> data = configure(object, names);
        const int passes = replay(object, workload);
        return evaluate(object, data, names, passes);
    }

    // The counter-data image for `names` and the profiler's configuration: one user range, user
    // replay (we rerun the workload for every pass).
    std::vector<uint8_t> configure(CUpti_RangeProfiler_Object* object, std::vector<const char*>& names) {
        KL_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params, size);
        size.pRangeProfilerObject = object;
        size.pMetricNames = names.data();
        size.numMetrics = names.size();
        size.maxNumOfRanges = 1;
        size.maxNumRangeTreeNodes = 1;
        KL_CUPTI_CALL(cuptiRangeProfilerGetCounterDataSize, size);
        std::vector<uint8_t> data(size.counterDataSize);
        KL_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, init);
        init.pRangeProfilerObject = object;
        init.counterDataSize = data.size();
        init.pCounterData = data.data();
        KL_CUPTI_CALL(cuptiRangeProfilerCounterDataImageInitialize, init);

        KL_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params, config);
        config.pRangeProfilerObject = object;
        config.configSize = plan.config_image.size();
        config.pConfig = plan.config_image.data();
        config.counterDataImageSize = data.size();
        config.pCounterDataImage = data.data();
        config.range = CUPTI_UserRange;        // one range around all of the rung's launches
        config.replayMode = CUPTI_UserReplay;  // we rerun the workload for every pass
        config.maxRangesPerPass = 1;
        config.numNestingLevels = 1;
        config.minNestingLevel = 1;
        config.passIndex = 0;
        config.targetNestingLevel = 1;
        KL_CUPTI_CALL(cuptiRangeProfilerSetConfig, config);
        return data;
    }

    // Runs the workload inside the range, L2 emptied before each pass, until CUPTI has all passes.
    int replay(CUpti_RangeProfiler_Object* object, const std::function<void()>& workload) {
        int passes = 0;
        bool all_submitted = false;
        const int max_passes = plan.metrics.passes + 2;  // CUPTI says when it is done; this only stops a runaway
        while (!all_submitted) {
            if (passes >= max_passes)
                throw CountersUnavailable("hardware counters unavailable: CUPTI wanted more than " +
                                          std::to_string(max_passes) + " passes");
            empty_l2();
            KL_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params, start);
            start.pRangeProfilerObject = object;
            KL_CUPTI_CALL(cuptiRangeProfilerStart, start);
            KL_CUPTI_PARAMS(CUpti_RangeProfiler_PushRange_Params, push);
            push.pRangeProfilerObject = object;
            push.pRangeName = "rung";
            KL_CUPTI_CALL(cuptiRangeProfilerPushRange, push);
            KL_CUPTI_PARAMS(CUpti_RangeProfiler_PopRange_Params, pop);
            pop.pRangeProfilerObject = object;
            KL_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params, stop);
            stop.pRangeProfilerObject = object;
            try {
                workload();
                gpu.synchronize();
            } catch (...) {
                cupti_library().cuptiRangeProfilerPopRange(&pop);  // close the range before the profiler goes
                cupti_library().cuptiRangeProfilerStop(&stop);
                throw;
            }
            KL_CUPTI_CALL(cuptiRangeProfilerPopRange, pop);
            KL_CUPTI_CALL(cuptiRangeProfilerStop, stop);
            all_submitted = stop.isAllPassSubmitted != 0;
            ++passes;
        }
        return passes;
    }

    // Decodes the range and evaluates each metric on the host.
    RawCounters evaluate(CUpti_RangeProfiler_Object* object, std::vector<uint8_t>& data,
                         const std::vector<const char*>& names, int passes) {
        KL_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params, decode);
        decode.pRangeProfilerObject = object;
        KL_CUPTI_CALL(cuptiRangeProfilerDecodeData, decode);
        if (decode.numOfRangeDropped != 0)
            throw CountersUnavailable("hardware counters unavailable: CUPTI dropped the profiling range");
        KL_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params, info);
        info.pCounterDataImage = data.data();
        info.counterDataImageSize = data.size();
        KL_CUPTI_CALL(cuptiRangeProfilerGetCounterDataInfo, info);
        if (info.numTotalRanges < 1)
            throw CountersUnavailable("hardware counters unavailable: CUPTI recorded no range");

        RawCounters raw;
        raw.passes = passes;
        raw.chip = chip;
        raw.missing = plan.metrics.unsupported;
        for (const char* name : names) {  // one at a time: a metric that fails to evaluate costs only itself
            double value = 0;
            KL_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params, eval);
            eval.pHostObject = host.get();
            eval.pCounterDataImage = data.data();
            eval.counterDataImageSize = data.size();
            eval.rangeIndex = 0;
            eval.ppMetricNames = &name;
            eval.numMetrics = 1;
            eval.pMetricValues = &value;
            CUptiResult r = cupti().cuptiProfilerHostEvaluateToGpuValues(&eval);
            if (r == CUPTI_SUCCESS)
                raw.values[name] = value;
            else
                raw.missing[name] = "CUPTI could not evaluate it (error " + std::to_string(int(r)) + ")";
        }
        return raw;
    }
};

CounterCollector::CounterCollector(GpuContext& gpu) : impl_(std::make_unique<Impl>(gpu)) {}
CounterCollector::~CounterCollector() = default;

void CounterCollector::collect(const std::function<void()>& workload, RunRecord& rec) {
    CountersReport report;
    if (!impl_->unavailable.empty()) {
        report = counters_unavailable(impl_->unavailable);
    } else {
        try {
            if (!impl_->opened) {
                try {
                    impl_->open();
                } catch (const CountersUnavailable& e) {
                    impl_->unavailable = e.what();  // permanent for this context: do not ask again per rung
                    throw;
                }
            }
            report = counters_to_json(impl_->measure(workload));
        } catch (const CountersUnavailable& e) { report = counters_unavailable(e.what()); }
    }
    rec.counters = report.counters;
    rec.counters_note = report.note;
}

}  // namespace kl
