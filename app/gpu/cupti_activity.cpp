#include "gpu/cupti_activity.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <type_traits>
#include <utility>

#include "gpu/cupti_library.h"

namespace kl {

namespace {

struct ActivityApi {
    decltype(&::cuptiActivityEnable) enable = nullptr;
    decltype(&::cuptiActivityDisable) disable = nullptr;
    decltype(&::cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
    decltype(&::cuptiActivityFlushAll) flush_all = nullptr;
    decltype(&::cuptiActivityGetNextRecord) next_record = nullptr;
    decltype(&::cuptiGetResultString) result_string = nullptr;
    decltype(&::cuptiFinalize) finalize = nullptr;
    std::string failure;
    bool registered = false;
};

ActivityApi& activity_api() {
    static ActivityApi api = [] {
        ActivityApi a;
        void* h = cupti_library_handle(&a.failure);
        if (!h) return a;
        auto sym = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
            if (!fn && a.failure.empty()) a.failure = std::string("CUPTI has no ") + name;
        };
        sym(a.enable, "cuptiActivityEnable");
        sym(a.disable, "cuptiActivityDisable");
        sym(a.register_callbacks, "cuptiActivityRegisterCallbacks");
        sym(a.flush_all, "cuptiActivityFlushAll");
        sym(a.next_record, "cuptiActivityGetNextRecord");
        sym(a.result_string, "cuptiGetResultString");
        a.finalize = reinterpret_cast<decltype(a.finalize)>(dlsym(h, "cuptiFinalize"));  // optional
        return a;
    }();
    return api;
}

// CUPTI hands completed buffers to a plain C callback: the records go to the one sink in use.
std::mutex g_activity_mutex;
std::function<void(const ActivityRecord&)> g_activity_sink;  // empty: none in use

void CUPTIAPI activity_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = size_t(8) << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}

// The record's span in *out; false for a kind neither user reads.
bool to_activity_record(const CUpti_Activity* rec, ActivityRecord* out) {
    switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
            *out = {ActivityRecord::Kind::Kernel, k->name ? k->name : "?", k->start, k->end};
            return true;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
            *out = {ActivityRecord::Kind::Memset, "memset", m->start, m->end};
            return true;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
            *out = {ActivityRecord::Kind::Memcpy, "memcpy", m->start, m->end};
            return true;
        }
        default: return false;
    }
}

void CUPTIAPI activity_buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* rec = nullptr;
    std::lock_guard<std::mutex> lock(g_activity_mutex);
    while (activity_api().next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
        ActivityRecord r;
        if (g_activity_sink && to_activity_record(rec, &r)) g_activity_sink(r);
    }
    std::free(buffer);
}

}  // namespace

std::string cupti_failure(CUptiResult r, const char* call) {
    const char* text = nullptr;
    if (activity_api().result_string) activity_api().result_string(r, &text);
    return std::string("CUPTI ") + call + ": " + (text ? text : "error " + std::to_string(int(r)));
}

std::string activity_ready() {
    ActivityApi& api = activity_api();
    if (!api.failure.empty()) return api.failure;
    if (!api.registered) {
        const CUptiResult r = api.register_callbacks(activity_buffer_requested, activity_buffer_completed);
        if (r != CUPTI_SUCCESS) return cupti_failure(r, "cuptiActivityRegisterCallbacks");
        api.registered = true;
    }
    return "";
}

bool enable_activity(CUpti_ActivityKind kind, std::string* why) {
    const CUptiResult r = activity_api().enable(kind);
    if (r == CUPTI_SUCCESS) return true;
    *why = cupti_failure(r, ("cuptiActivityEnable(kind " + std::to_string(int(kind)) + ")").c_str());
    return false;
}

void disable_activity(CUpti_ActivityKind kind) {
    if (activity_api().disable) activity_api().disable(kind);
}

ActivitySink::ActivitySink(std::function<void(const ActivityRecord&)> sink) {
    std::lock_guard<std::mutex> lock(g_activity_mutex);
    g_activity_sink = std::move(sink);
}

ActivitySink::~ActivitySink() {
    std::lock_guard<std::mutex> lock(g_activity_mutex);
    g_activity_sink = nullptr;
}

bool flush_activity(std::string* why) {
    const CUptiResult r = activity_api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (r == CUPTI_SUCCESS) return true;
    *why = cupti_failure(r, "cuptiActivityFlushAll");
    return false;
}

void detach_activity() {
    ActivityApi& api = activity_api();
    if (api.finalize && api.finalize() == CUPTI_SUCCESS) api.registered = false;
}

}  // namespace kl
