// Every result the workbook knows: recorded files (assets/recorded/*.json, or --results) and
// live runs from the runner, in arrival order. Plots and the ladder strip ask it questions
// ("the latest run of this rung at these sizes") instead of keeping lists of their own.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/manifest.h"
#include "model/results.h"

namespace kl::report {

struct StoredRun {
    RunRecord record;
    bool live = false;
    std::string origin;  // file the record came from, or "live"
    std::string device;  // the GPU it ran on (the results file's device, or the live runner's)
    uint64_t seq = 0;    // arrival order: larger is newer
};

// One loaded results file, for the "measured on ..." banner.
struct RecordedSource {
    std::string path, device, created;
    std::string tool, command;              // as the file records them (an export writes them back)
    std::optional<DeviceInfo> device_info;  // with its limits (schema v2) for the occupancy view
    std::optional<Calibration> calibration;
    size_t runs = 0;
};

using Sizes = std::map<std::string, int64_t>;

class ResultsStore {
  public:
    // Loads every *.json of `dir` (sorted by name); files that fail are listed in `errors`.
    void load_recorded_dir(const std::string& dir, std::vector<std::string>* errors);
    // Throws InputError (from load_results) when the file cannot be used.
    void load_recorded_file(const std::string& path);
    void add_file(const ResultsFile& file, const std::string& origin);
    void add_live(const RunRecord& record);

    // One device at a time (issue 38: an H100 roof under H200 bars, an "unknown device" handout):
    // every answer below (latest, latest_any, sweep, calibration) comes from the runs of the
    // device shown and of no other. A rung that device did not run has no answer (nullptr: "not
    // recorded for this device"), never another device's run. Live runs are the live device's
    // (set_live_device): shown when it is the device shown, first among its runs. The device shown
    // is the first file's (or the live device's, when nothing was recorded) until set: the
    // window sets it from a lesson step's `device`, the Device menu or the runner's GPU.
    // latest_on() asks for one named device instead.
    void set_preferred_device(const std::string& device);
    void set_live_device(const std::string& device);
    const std::string& preferred_device() const { return preferred_device_; }
    // Whether the device shown recorded (or ran live) anything at all.
    bool has_runs_on_preferred_device() const;
    std::vector<std::string> recorded_devices() const;  // distinct, in load order
    std::vector<std::string> devices() const;           // the live device (when set) first, then those
    // `like` if it recorded per-launch resources, else the newest run of the same rung,
    // parameters and dtype that did on a device of the same architecture (registers and shared
    // memory belong to the compiled code: another GPU of that architecture runs the same), or
    // nullptr.
    const StoredRun* resources_for(const StoredRun& like) const;
    const StoredRun* latest_on(const std::string& device, const std::string& ladder, const std::string& rung,
                               const Sizes& sizes, const std::string& dtype, const ParamValues* params = nullptr) const;

    // A deque: plots and the strip keep pointers to runs while new ones arrive.
    const std::deque<StoredRun>& runs() const { return runs_; }
    const std::vector<RecordedSource>& sources() const { return sources_; }
    uint64_t generation() const { return generation_; }  // changes whenever a run is added

    // The device shown's newest successful-or-failed run of `rung` at exactly these sizes and dtype. With
    // `params`, a run with exactly those parameters is preferred; without, any parameters.
    const StoredRun* latest(const std::string& ladder, const std::string& rung, const Sizes& sizes,
                            const std::string& dtype, const ParamValues* params = nullptr) const;
    // The device shown's newest run of `rung` at any size (the strip shows it dimmed when nothing
    // matches).
    const StoredRun* latest_any(const std::string& ladder, const std::string& rung) const;
    // The device shown's runs of one rung matching sizes/params/dtype except along `axis` (a size axis or a
    // parameter): the points of a sweep, newest per axis value, sorted by the axis value.
    // Axes in `tie` vary with `axis` (each equal to it) instead of being held at `sizes`.
    std::vector<const StoredRun*> sweep(const std::string& ladder, const std::string& rung, const std::string& axis,
                                        const Sizes& sizes, const ParamValues& params, const std::string& dtype,
                                        const std::vector<std::string>& tie = {}) const;
    // Calibration to draw ceilings with, the device shown's: the live runner's when that is the
    // device shown, else its newest recorded one; nullopt when it has none (no other device's).
    std::optional<Calibration> calibration() const;
    void set_live_calibration(std::optional<Calibration> c) {
        live_calibration_ = std::move(c);
        ++generation_;
    }

  private:
    std::deque<StoredRun> runs_;
    std::vector<RecordedSource> sources_;
    std::optional<Calibration> live_calibration_;
    std::string preferred_device_, live_device_;
    uint64_t seq_ = 0, generation_ = 1;
    bool shown(const StoredRun& r) const { return r.device == preferred_device_; }
    // Among the device shown's runs, true when `a` should be answered rather than `b` (nullptr:
    // always): a live run before a recorded one, then the newer.
    bool better(const StoredRun& a, const StoredRun* b) const;
};

// The value of an axis in a record: a size if the axis is a size, else a parameter; nullopt if neither.
std::optional<int64_t> axis_value(const RunRecord& r, const std::string& axis);

}  // namespace kl::report
