// Frame times measured in the app: the time to build a frame (poll, draw, ImGui::Render) and the
// interval between frames (what the user sees, including GL and swap). Percentiles over the
// last few thousand frames; the debug overlay (F12) and the exit log print them.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace kl::gui {

class FrameStats {
  public:
    void add(double build_ms, double interval_ms) {
        if (build_.size() < kKeep) {
            build_.push_back(build_ms);
            interval_.push_back(interval_ms);
        } else {
            build_[next_] = build_ms;
            interval_[next_] = interval_ms;
        }
        next_ = (next_ + 1) % kKeep;
        ++count_;
    }
    // p in [0, 100]; 0 when empty.
    double build_percentile(double p) const { return percentile(build_, p); }
    double interval_percentile(double p) const { return percentile(interval_, p); }
    size_t count() const { return count_; }
    size_t samples() const { return build_.size(); }
    void reset() {
        build_.clear();
        interval_.clear();
        next_ = 0;
        count_ = 0;
    }
    const std::vector<double>& build_samples() const { return build_; }

  private:
    static double percentile(std::vector<double> v, double p) {
        if (v.empty()) return 0;
        size_t k = std::min(v.size() - 1, size_t(p / 100.0 * double(v.size() - 1) + 0.5));
        std::nth_element(v.begin(), v.begin() + long(k), v.end());
        return v[k];
    }
    static constexpr size_t kKeep = 4096;
    std::vector<double> build_, interval_;
    size_t next_ = 0, count_ = 0;
};

}  // namespace kl::gui
