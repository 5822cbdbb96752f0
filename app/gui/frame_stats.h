// Frame times measured in the app, split by stage so that a slow frame can be blamed on the
// right thing (docs/gui.md): waiting for input events, building the frame (poll the runner,
// draw, ImGui::Render), submitting GL draw calls, presenting (glfwSwapBuffers, where a software
// rasterizer such as llvmpipe under Xvfb does its work or vsync waits; glFinish when headless),
// the frame's work (all of those: the frame start to the end of present, before the pacing
// sleep), and the whole interval between frames (what the user sees). Percentiles over the last few thousand frames;
// the debug overlay (F12), the exit log line and the --report JSON print them.
// The build stage is wall time, so it also counts the time the UI thread was ready to run but
// another process held the CPU (on a 2-core machine under a sanitizer, a runner starting up
// takes a core for tens of ms). The kernel counts that wait per thread (/proc/thread-self/
// schedstat, the run-queue delay); build_wait is it, and build_own = build - build_wait is what
// the frame's own work and any blocking call cost: the figure a stalled UI thread shows in.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <vector>

namespace kl::gui {

struct FrameSample {
    double events_ms = 0;      // glfwPollEvents
    double build_ms = 0;       // NewFrame .. ImGui::Render (CPU only; wall time)
    double build_wait_ms = 0;  // of build_ms, the time this thread waited for a CPU held by others
    double render_ms = 0;      // glClear + ImGui_ImplOpenGL3_RenderDrawData (GL calls issued)
    double swap_ms = 0;        // glfwSwapBuffers
    double other_ms = 0;       // screenshots, settings saves: work a reader's frame seldom does
    double work_ms = 0;        // frame start to the end of present: what a faster display could not hide
    double interval_ms = 0;    // start of this frame to start of the next, pacing sleep included
};

// The calling thread's total run-queue delay so far (ms): time it was runnable but not running.
// 0 where the kernel does not keep it (no CONFIG_SCHED_INFO): build_own then equals build.
class RunQueueDelay {
  public:
    RunQueueDelay() : fd_(open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)) {}
    ~RunQueueDelay() {
        if (fd_ >= 0) close(fd_);
    }
    RunQueueDelay(const RunQueueDelay&) = delete;
    RunQueueDelay& operator=(const RunQueueDelay&) = delete;
    double ms() const {
        char buf[96];
        const ssize_t n = fd_ >= 0 ? pread(fd_, buf, sizeof buf - 1, 0) : -1;
        if (n <= 0) return 0;
        buf[n] = 0;
        char* end = nullptr;
        std::strtoull(buf, &end, 10);  // time on a CPU (ns); the delay follows
        return double(std::strtoull(end, nullptr, 10)) / 1e6;
    }

  private:
    int fd_;
};

class FrameStats {
  public:
    enum Stage { Events, Build, BuildWait, BuildOwn, Render, Swap, Other, Work, Interval, kStages };

    void add(const FrameSample& s) {
        const std::array<double, kStages> v = {
            s.events_ms,  s.build_ms, s.build_wait_ms, std::max(0.0, s.build_ms - s.build_wait_ms),
            s.render_ms,  s.swap_ms,  s.other_ms,      s.work_ms,
            s.interval_ms};
        for (int i = 0; i < kStages; ++i) {
            if (series_[i].size() < kKeep)
                series_[i].push_back(v[i]);
            else
                series_[i][next_] = v[i];
        }
        next_ = (next_ + 1) % kKeep;
        ++count_;
    }
    // p in [0, 100]; 0 when empty.
    double percentile(Stage stage, double p) const { return percentile(series_[stage], p); }
    double build_percentile(double p) const { return percentile(Build, p); }
    double interval_percentile(double p) const { return percentile(Interval, p); }
    double swap_percentile(double p) const { return percentile(Swap, p); }
    size_t count() const { return count_; }
    size_t samples() const { return series_[Build].size(); }
    void reset() {
        for (auto& s : series_) s.clear();
        next_ = 0;
        count_ = 0;
    }
    const std::vector<double>& build_samples() const { return series_[Build]; }
    static const char* stage_name(Stage s) {
        static const char* names[] = {"events", "build", "build_wait", "build_own", "render",
                                      "swap",   "other", "work",       "interval"};
        return names[s];
    }

  private:
    static double percentile(std::vector<double> v, double p) {
        if (v.empty()) return 0;
        size_t k = std::min(v.size() - 1, size_t(p / 100.0 * double(v.size() - 1) + 0.5));
        std::nth_element(v.begin(), v.begin() + long(k), v.end());
        return v[k];
    }
    static constexpr size_t kKeep = 4096;
    std::array<std::vector<double>, kStages> series_;
    size_t next_ = 0, count_ = 0;
};

}  // namespace kl::gui
