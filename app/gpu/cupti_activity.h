// CUPTI's activity API (records of what ran on the GPU, with the GPU's own start and end
// timestamps), resolved from the dlopen'ed CUPTI (cupti_library.h), and the one place its completed
// buffers go. Two users, one at a time: the kernel timeline (kernel_trace.cpp) and the GPU-span
// stopwatch (span_stopwatch.cpp). A CUPTI failure is reported as a reason, never thrown: both users
// fall back (no timeline; the events' stopwatch).
#pragma once
#include <cupti_activity.h>
#include <cupti_result.h>

#include <cstdint>
#include <functional>
#include <string>

namespace kl {

// One activity record as the users need it: a kernel's, a memset's or a memcpy's span.
struct ActivityRecord {
    enum class Kind { Kernel, Memset, Memcpy };
    Kind kind = Kind::Kernel;
    std::string name;  // the kernel's name; "memset" or "memcpy" for the others
    uint64_t start_ns = 0, end_ns = 0;
    bool timed() const { return start_ns != 0 && end_ns >= start_ns; }  // both timestamps collected
};

// "" when the activity API is loaded and its buffer callbacks registered (done here on first use
// and again after detach_activity()); else why not, in one line starting "CUPTI".
std::string activity_ready();

// Enables or disables one kind of record; false with *why ("CUPTI <call>: <CUPTI's words>").
bool enable_activity(CUpti_ActivityKind kind, std::string* why);
void disable_activity(CUpti_ActivityKind kind);  // unchecked: runs on every way out

// Routes every completed record to `sink` while this object lives (one at a time).
class ActivitySink {
  public:
    explicit ActivitySink(std::function<void(const ActivityRecord&)> sink);
    ~ActivitySink();
    ActivitySink(const ActivitySink&) = delete;
    ActivitySink& operator=(const ActivitySink&) = delete;
};

// Delivers every buffered record to the sink now (the records of finished GPU work).
bool flush_activity(std::string* why);

// cuptiFinalize: later launches in this process run without CUPTI attached (kernel_trace.h says
// why that matters); the callbacks are registered again on the next use. No-op without it.
void detach_activity();

// "CUPTI <call>: <CUPTI's text>" for a failed result.
std::string cupti_failure(CUptiResult r, const char* call);

}  // namespace kl
