#include "gpu/span_stopwatch.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "base/errors.h"

namespace kl {

namespace {
// What a repetition can put on the GPU: kernels (the rung's, a library's, a peer's), memsets and
// memcpys (a rung that clears an accumulator). KIND_KERNEL, not CONCURRENT_KERNEL: the concurrent
// kind instruments every block and read 4-7% long on kernels of a million blocks.
constexpr CUpti_ActivityKind kSpanKinds[] = {CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
                                             CUPTI_ACTIVITY_KIND_MEMCPY};
constexpr const char* kHoldKernel = "kl_hold";
}  // namespace

bool is_stopwatch_kernel(const std::string& name) {
    static const char* const names[] = {"kl_l2_flush_store", "kl_l2_flush_store_last", "kl_l2_flush_read_last",
                                        "kl_l2_discard",     "kl_touch_pages",         "kl_hold",
                                        "kl_clock_probe"};
    return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return name == n; });
}

Stopwatch requested_stopwatch() {
    const char* v = std::getenv("KL_STOPWATCH");
    if (!v || !*v || std::string(v) == "events") return Stopwatch::Events;
    if (std::string(v) == "span") return Stopwatch::GpuSpan;
    throw InputError(std::string("KL_STOPWATCH: '") + v + "' is not a stopwatch (events or span)");
}

const char* stopwatch_name(Stopwatch s) { return s == Stopwatch::GpuSpan ? "span" : "events"; }

SpanRecorder::SpanRecorder(bool detach) : detach_(detach) {}

std::unique_ptr<SpanRecorder> SpanRecorder::start(std::string* why, bool detach) {
    if (std::string not_ready = activity_ready(); !not_ready.empty()) {
        *why = not_ready;
        return nullptr;
    }
    std::unique_ptr<SpanRecorder> rec(new SpanRecorder(detach));
    rec->sink_ = std::make_unique<ActivitySink>([r = rec.get()](const ActivityRecord& a) { r->records_.push_back(a); });
    for (CUpti_ActivityKind kind : kSpanKinds) {
        if (!enable_activity(kind, why)) return nullptr;  // the destructor disables what was enabled
        ++rec->enabled_;
    }
    return rec;
}

SpanRecorder::~SpanRecorder() {
    for (int i = 0; i < enabled_; ++i) disable_activity(kSpanKinds[i]);
    sink_.reset();
    if (detach_) detach_activity();
}

std::vector<double> SpanRecorder::spans_ms(size_t repetitions, std::string* why, int* most_items) {
    if (!flush_activity(why)) return {};
    return bracketed_spans_ms(std::move(records_), repetitions, why, most_items);
}

std::string several_items_note(int most_items) {
    return "up to " + std::to_string(most_items) +
           " kernels, memsets or memcpys a repetition: CUPTI's serialized records lengthen each launch on the GPU, so "
           "launch-bound work reads slower under the span than under the events alone (docs/tuning/timing.md)";
}

std::vector<double> bracketed_spans_ms(std::vector<ActivityRecord> records, size_t repetitions, std::string* why,
                                       int* most_items) {
    // A record without timestamps cannot be placed in any bracket (it sorts first): one is enough
    // to refuse, since the repetition it belonged to would read short.
    const auto untimed =
        std::count_if(records.begin(), records.end(), [](const ActivityRecord& r) { return !r.timed(); });
    if (untimed > 0) {
        *why = std::to_string(untimed) + " activity record(s) without timestamps";
        return {};
    }
    std::stable_sort(records.begin(), records.end(),
                     [](const ActivityRecord& a, const ActivityRecord& b) { return a.start_ns < b.start_ns; });
    std::vector<double> spans;
    bool inside = false;
    uint64_t first = 0, last = 0;
    int items = 0, most = 0;
    for (const ActivityRecord& r : records) {
        if (r.kind == ActivityRecord::Kind::Kernel && r.name == kHoldKernel) {
            if (inside && last == 0) {
                *why = "a repetition recorded nothing";
                return {};
            }
            if (inside) spans.push_back(double(last - first) / 1e6);
            most = std::max(most, items);
            inside = !inside;
            first = last = 0;
            items = 0;
            continue;
        }
        if (!inside || (r.kind == ActivityRecord::Kind::Kernel && is_stopwatch_kernel(r.name))) continue;
        ++items;
        first = first == 0 ? r.start_ns : std::min(first, r.start_ns);
        last = std::max(last, r.end_ns);
    }
    if (inside || spans.size() != repetitions) {
        *why = "the records hold " + std::to_string(spans.size()) + " bracketed repetitions, not " +
               std::to_string(repetitions);
        return {};
    }
    if (most_items) *most_items = most;
    return spans;
}

}  // namespace kl
