#include "gpu/timing.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "base/errors.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_context.h"
#include "gpu/span_stopwatch.h"

namespace kl {

namespace {
struct FlushChoice {
    const char* name;
    L2Flush::Mode mode;
};
constexpr FlushChoice kFlushes[] = {{"write", L2Flush::Mode::Memset},
                                    {"write_discard", L2Flush::Mode::MemsetDiscard},
                                    {"store_discard", L2Flush::Mode::StoreDiscard},
                                    {"store_last_discard", L2Flush::Mode::StoreLastDiscard},
                                    {"read_last", L2Flush::Mode::ReadLast}};

// The default is the evicting, clean flush where the GPU has L2 cache hints and discards (sm_80);
// KL_L2_FLUSH picks another (the lab's comparisons); a value that names no flush is refused, and
// so is a variant with hints or discards below sm_80.
L2Flush::Mode flush_mode(const DeviceInfo& device) {
    const char* choice = std::getenv("KL_L2_FLUSH");
    if (!choice || !*choice) return device.cc() >= 80 ? L2Flush::Mode::StoreLastDiscard : L2Flush::Mode::Memset;
    for (const FlushChoice& f : kFlushes) {
        if (std::string(choice) != f.name) continue;
        if (f.mode != L2Flush::Mode::Memset && device.cc() < 80)
            throw InputError(std::string("KL_L2_FLUSH=") + choice + " needs sm_80 or later (L2 cache hints)");
        return f.mode;
    }
    throw InputError(std::string("KL_L2_FLUSH: '") + choice +
                     "' is not a flush (write, write_discard, store_discard, store_last_discard or read_last)");
}

}  // namespace

std::string L2Flush::name() const {
    std::string base = "write";
    for (const FlushChoice& f : kFlushes)
        if (f.mode == mode_) base = f.name;
    return after_.empty() ? base : base + "+" + after_;
}

namespace {
// A grid of 256-thread blocks over `items`, at most 4096 blocks (the kernels loop).
dim3 flush_grid(long long items) { return dim3(static_cast<unsigned>(std::min<long long>((items + 255) / 256, 4096))); }
}  // namespace

L2Flush::L2Flush(GpuContext& gpu)
    : gpu_(gpu),
      buffer_("l2_flush", DType::F32, std::max<int64_t>(2 * gpu.device().l2_bytes, 64 << 20) / 4),
      mode_(flush_mode(gpu.device())) {
    if (const char* after = std::getenv("KL_L2_FLUSH_AFTER"); after && *after) {
        after_ = after;
        if (after_ != "touch" && after_ != "reset")
            throw InputError("KL_L2_FLUSH_AFTER: '" + after_ + "' is not touch or reset");
    }
    if (mode_ == Mode::ReadLast) {  // the loads read what a write left: one byte, everywhere
        KL_CUDA_CALL(cudaMemsetAsync(buffer_.data(), 0x5a, buffer_.bytes(), gpu_.stream()));
        sink_ = std::make_unique<DeviceBuffer>("l2_flush_sink", DType::F32, 1);
    }
}

void L2Flush::touch_pages() {
    constexpr long long kPage = 64 << 10;  // the GPU's small page; its 2 MiB pages are covered too
    for (const DeviceBuffer* buf : gpu_.all_buffers()) {
        const long long bytes = static_cast<long long>(buf->bytes());
        if (bytes == 0) continue;
        gpu_.launch_helper("common/tlb_touch.cu", "kl_touch_pages", flush_grid((bytes + kPage - 1) / kPage), dim3(256),
                           {KernelArg::pointer(buf->data()), KernelArg::i64v(bytes), KernelArg::i64v(kPage)});
    }
}

void L2Flush::write(int rep) {
    flush_only(rep);
    if (after_ == "touch") touch_pages();
    if (after_ == "reset") KL_CUDA_CALL(cudaCtxResetPersistingL2Cache());
}

void L2Flush::flush_only(int rep) {
    const long long vectors = static_cast<long long>(buffer_.bytes() / 16);
    const KernelArg base = KernelArg::pointer(buffer_.data());
    switch (mode_) {
        case Mode::Memset:
        case Mode::MemsetDiscard:
            KL_CUDA_CALL(cudaMemsetAsync(buffer_.data(), rep & 0xff, buffer_.bytes(), gpu_.stream()));
            break;
        case Mode::StoreDiscard:
        case Mode::StoreLastDiscard:
            gpu_.launch_helper(
                "common/l2_flush.cu", mode_ == Mode::StoreDiscard ? "kl_l2_flush_store" : "kl_l2_flush_store_last",
                flush_grid(vectors), dim3(256), {base, KernelArg::i64v(vectors), KernelArg::i32v(rep & 0xff)});
            break;
        case Mode::ReadLast:
            gpu_.launch_helper("common/l2_flush.cu", "kl_l2_flush_read_last", flush_grid(vectors), dim3(256),
                               {base, KernelArg::i64v(vectors), KernelArg::pointer(sink_->data())});
            return;
    }
    if (!discards()) return;
    const long long lines = static_cast<long long>(buffer_.bytes() / 128);
    gpu_.launch_helper("common/l2_discard.cu", "kl_l2_discard", flush_grid(lines), dim3(256),
                       {base, KernelArg::i64v(lines)});
}

EventTimer::EventTimer(GpuContext& gpu) : gpu_(gpu) {
    KL_CUDA_CALL(cudaEventCreate(&start_));
    const cudaError_t err = cudaEventCreate(&stop_);
    if (err != cudaSuccess) {  // the destructor does not run for a constructor that throws
        cudaEventDestroy(start_);
        throw_cuda_error(err, "cudaEventCreate", __FILE__, __LINE__);
    }
}

EventTimer::~EventTimer() {  // unchecked: may run while an error propagates
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
}

float EventTimer::time(const std::function<void()>& work) {
    KL_CUDA_CALL(cudaEventRecord(start_, gpu_.stream()));
    work();
    KL_CUDA_CALL(cudaEventRecord(stop_, gpu_.stream()));
    KL_CUDA_CALL(cudaEventSynchronize(stop_));
    float ms = 0;
    KL_CUDA_CALL(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
}

namespace {
// How long the GPU waits before each timed repetition: twice the longest host time the warm-up
// calls took to enqueue their launches, plus 20 us for the two event records, at least 100 us
// (the clock it measures meanwhile is then good to 1% where the global timer steps by 1 us) and at
// most 5 ms (a rung whose host side is slower than that shows the difference in its time, as it
// would in a program). Without warm-up calls there is nothing to go by: 200 us.
long long hold_nanoseconds(const std::vector<double>& enqueue_seconds) {
    if (enqueue_seconds.empty()) return 200'000;
    const double longest = *std::max_element(enqueue_seconds.begin(), enqueue_seconds.end());
    return std::clamp(static_cast<long long>(2e9 * longest) + 20'000, 100'000LL, 5'000'000LL);
}

// KL_HOLD_US (lab): a longer hold, in microseconds, up to 100 ms: the GPU idles that long before
// each repetition, to tell a kernel slowed by the power drawn just before it from one slowed by
// the cache state (docs/tuning/timing.md). Unset or 0: the hold above.
long long lab_hold_nanoseconds(long long hold_ns) {
    const char* text = std::getenv("KL_HOLD_US");
    if (!text || !*text) return hold_ns;
    char* end = nullptr;
    const long long us = std::strtoll(text, &end, 10);
    if (*end != '\0' || us < 0 || us > 100'000)
        throw InputError(std::string("KL_HOLD_US: '") + text +
                         "' is not a whole number of microseconds from 0 to 100000");
    return std::max(hold_ns, us * 1000);
}

// The SM clock in MHz from each hold's two counters (cycles, nanoseconds).
std::vector<double> clocks_from(GpuContext& gpu, const DeviceBuffer& counters, size_t reps) {
    const std::vector<unsigned char> bytes = gpu.download_bytes(counters, 0, reps * 16);
    std::vector<double> mhz(reps);
    for (size_t i = 0; i < reps; ++i) {
        unsigned long long v[2];
        std::memcpy(v, bytes.data() + i * 16, sizeof v);
        mhz[i] = v[1] > 0 ? double(v[0]) / double(v[1]) * 1e3 : 0.0;
    }
    return mhz;
}
}  // namespace

long long stopwatch_hold_ns(const std::vector<double>& enqueue_seconds) {
    return lab_hold_nanoseconds(hold_nanoseconds(enqueue_seconds));
}

void launch_stopwatch_hold(GpuContext& gpu, long long hold_ns, void* clock_slot) {
    const cudaKernel_t hold = gpu.helper_kernel("common/hold.cu", "kl_hold");
    gpu.launch_kernel(hold, "helper common/hold.cu:kl_hold", dim3(1), dim3(1),
                      {KernelArg::i64v(hold_ns), KernelArg::pointer(clock_slot)});
}

TimedRepetitions time_each_repetition(GpuContext& gpu, const RepetitionPlan& plan, L2Flush* flush,
                                      const std::function<void()>& launch) {
    // [stopwatch] Recording starts before the warm-up: the hold then covers CUPTI's host cost of
    // a launch, and its set-up lands in an untimed call.
    const bool asked_span = requested_stopwatch() == Stopwatch::GpuSpan;
    const bool want_span = asked_span && plan.span_refusal.empty();
    std::string span_note;
    std::unique_ptr<SpanRecorder> span = want_span ? SpanRecorder::start(&span_note, plan.span_detach) : nullptr;
    std::vector<double> enqueue_seconds;
    for (int i = 0; i < plan.warmup; ++i) {
        if (plan.before_each) plan.before_each();
        const auto t0 = std::chrono::steady_clock::now();
        launch();
        enqueue_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    gpu.synchronize();
    const long long hold_ns = std::max(stopwatch_hold_ns(enqueue_seconds), plan.hold_floor_ns);
    const int most = std::max(plan.max_reps, 1);
    DeviceBuffer counters("kl_hold_clock", DType::F32, int64_t(most) * 4);  // two 64-bit counters a repetition
    EventTimer timer(gpu);
    TimedRepetitions out;
    out.hold_ns = hold_ns;
    double total_ms = 0;
    while (static_cast<int>(out.ms.size()) < plan.max_reps &&
           (static_cast<int>(out.ms.size()) < plan.min_reps || total_ms < plan.budget_ms)) {
        if (plan.before_each) plan.before_each();
        if (flush) flush->write(static_cast<int>(out.ms.size()));
        launch_stopwatch_hold(gpu, hold_ns, static_cast<unsigned char*>(counters.data()) + out.ms.size() * 16);
        const float ms = timer.time(launch);
        if (span) launch_stopwatch_hold(gpu, 0, nullptr);  // [stopwatch] closes the repetition's bracket
        out.ms.push_back(ms);
        total_ms += ms;
    }
    out.clock_mhz = clocks_from(gpu, counters, out.ms.size());
    if (span) {
        gpu.synchronize();
        int most_items = 0;
        std::vector<double> spans = span->spans_ms(out.ms.size(), &span_note, &most_items);
        if (most_items > 1) out.stopwatch_note = several_items_note(most_items);
        if (!spans.empty()) {
            out.event_ms = std::move(out.ms);
            out.ms = std::move(spans);
            out.stopwatch = "span";
        }
    }
    if (asked_span && out.stopwatch != "span")
        out.stopwatch_note = "span not taken: " + (want_span ? span_note : plan.span_refusal);
    return out;
}

void record_stopwatch(const TimedRepetitions& reps, RunRecord& rec) {
    rec.stopwatch = reps.stopwatch;
    rec.stopwatch_note = reps.stopwatch_note;
    if (!reps.event_ms.empty()) rec.event_median_ms = summarize(reps.event_ms).median_ms;
}

TimingStats time_repetitions(GpuContext& gpu, const RepetitionPlan& plan, L2Flush* flush,
                             const std::function<void()>& launch) {
    return summarize(time_each_repetition(gpu, plan, flush, launch).ms);
}

}  // namespace kl
