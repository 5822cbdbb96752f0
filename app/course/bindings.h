// Bound numbers: a lesson quotes a measured quantity as `{{ TARGET METRIC KEY=VALUE ... }}`
// instead of typing it, and the workbook fills it in from results: the learner's live runs
// first, else the recordings under assets/recorded/. Every value carries where it came from
// (device, date, file or live run), which the window shows on hover and handouts list.
// Grammar and the list of metrics: docs/formats.md ("Bound numbers"). No CUDA, no UI.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "course/datasheet.h"
#include "model/device_card.h"
#include "model/device_info.h"
#include "model/manifest.h"
#include "model/results.h"

namespace kl {

// One `{{ ... }}` of a text, parsed. Besides a number (`{{ TARGET METRIC ... }}`) it may be a
// computed one (`{{ = EXPR }}`: arithmetic over bindings) or mark conditional prose
// (`{{ if EXPR OP EXPR }}` ... `{{ else }}` ... `{{ end }}`, shown by the device's facts).
struct Binding {
    enum class Kind { Value, Expr, If, Else, End };
    Kind kind = Kind::Value;
    size_t begin = 0, end = 0;                              // byte offsets of "{{" and one past "}}" in the text
    std::string source;                                     // the text between the braces, trimmed (for messages)
    std::string target;                                     // "ladder/rung", "device" or "peer/WHAT"
    std::string metric;                                     // "gbps", "ms", "copy_gbps", ...
    std::vector<std::pair<std::string, std::string>> keys;  // KEY=VALUE in order
    bool bare = false;                                      // "| bare": the number without its unit
    int decimals = -1;                                      // "| .N": N decimals (else 3 significant digits)
    // Expr and If: the expression as tokens (numbers, + - * / ( ) , ceil floor min max, "$K" for
    // operands[K]; an If's one comparison < <= > >= == != among them) and the bindings it reads.
    std::vector<std::string> expr;
    std::vector<Binding> operands;
    std::string as;       // Expr: "pct" (x 100, %), "x" (0.84x), "ratio" (0.84x, or a tie within the spread), "unit:U"
    bool paired = false;  // Expr: every run operand from one recording (or all live)
};

// Every binding of `text`. A malformed one is not returned; its problem is appended to
// `errors` as "`{{ ... }}`: <problem>".
// An `if`, `else` or `end` out of place is reported too.
std::vector<Binding> find_bindings(const std::string& text, std::vector<std::string>* errors);
// The expression of a `{{ = ... }}` (condition = false) or `{{ if ... }}` (true) into b->expr and
// b->operands; false with the reason in *why (find_bindings uses it).
bool parse_computed(const std::string& words, bool condition, Binding* b, std::string* why);

// A number with the run it came from.
struct BoundValue {
    bool ok = false;
    std::string error;  // why it did not resolve (when !ok)
    double value = 0;
    std::string unit;                 // "GB/s", "ms", "TFLOP/s", "%", "" ...
    std::string shown;                // "2,777 GB/s", as the text shows it
    bool live = false;                // from the learner's own run in this session
    std::string device;               // "NVIDIA H100 80GB HBM3"
    std::string date;                 // "2026-11-22"
    std::string origin;               // "assets/recorded/h100_elementwise.json", or "your run"
    std::string what;                 // the run: "vector_add TPB=256 EPT=1 · n=268435456 · fp32 · cold L2"
    bool withheld = false;            // not shown: it would give away a prediction not yet kept (reveal.h)
    double spread = -1;               // the run's own spread in the value's unit ((p90 - p10) / median); -1: unknown
    bool text = false;                // a name, not a number (`{{ device name }}`): no arithmetic
    bool as_shown_device = false;     // a `{{ device ... }}` measurement: the text states it as the shown GPU's
    std::vector<std::string> gpus;    // a computation's: the GPUs of its operands (a run's registers aside)
    std::string source_line() const;  // "NVIDIA H100 80GB HBM3, 2026-11-22, h100_elementwise.json: vector_add ..."
    static BoundValue failed(const std::string& why) {
        BoundValue v;
        v.error = why;
        return v;
    }
};

// The run a `LADDER/RUNG` binding asks for, with what it leaves out filled in: the rung's
// parameter defaults, the ladder's default sizes (the axes of the rung's operation), the first
// dtype, cold L2. Two bindings with equal identities quote the same run.
struct WantedRun {
    std::string ladder, rung, dtype = "fp32", l2 = "cold";
    std::map<std::string, int64_t> sizes, params;
    std::map<std::string, int64_t> unlisted;      // what a recorded run that does not list a parameter ran with
    std::string mode, from;                       // `mode=`, `from=`: which measurement, not which run
    std::string settings;                         // `settings=tuned|default` ([tuned]); "": either
    std::map<std::string, int64_t> asked_params;  // the binding's own parameters: what a tuned run must match
    int64_t blocks = 0;                           // `blocks=` of blocks_per_us
    // The same rung, dtype, L2, sizes and parameters (mode and from aside).
    bool same_run(const WantedRun& o) const;
    // `r` is a run of this identity (any mode, any file, failed or not).
    bool identifies(const RunRecord& r) const;
};
// nullopt, with the reason in *why, when `b` names no run of a loaded ladder.
std::optional<WantedRun> wanted_run(const Binding& b, const std::vector<Ladder>& ladders, std::string* why);
// Run metrics that are one measurement in other units or ratios: every time and rate of a run
// ("time": ms, us, gbps, tflops, pct_copy, ...), its peak memory in GiB or MiB ("memory"); any
// other metric is its own family. "" for a metric bindings do not know.
std::string run_metric_family(const std::string& metric);

// Everything bindings resolve against. Live runs are searched first (newest first), then
// recorded files (newest `created` first); peers and cards have their own lists.
class NumberSources {
  public:
    explicit NumberSources(const std::vector<Ladder>* ladders) : ladders_(ladders) {}
    // Reads <recorded_dir>/*.json (results), peers/*.json and cards/*.json. Files that do not
    // load are appended to `errors` (one line each) and skipped.
    void load_recorded(const std::string& recorded_dir, std::vector<std::string>* errors) {
        load_recorded(recorded_dir, errors, true);
    }
    // `results = false` reads only peers/ and cards/ (the window has the results already).
    void load_recorded(const std::string& recorded_dir, std::vector<std::string>* errors, bool results);
    void add_recorded(ResultsFile file, const std::string& origin);
    // The results a handout is exported from (call before load_recorded): their runs answer
    // before any recording, and their device is the preferred one and the one device facts
    // state; a recording of another device fills in only what they lack, under its own name.
    void add_exported(ResultsFile file, const std::string& origin);
    // One run: a live one (`created` is when it ran), or one of a recorded file's. The record is
    // not copied: it must outlive this object (the window's ResultsStore keeps its runs in a deque).
    void add_run(const RunRecord& run, bool live, const std::string& device, const std::string& created,
                 const std::string& origin);
    // A live run, copied.
    void add_live(const RunRecord& run, const std::string& device, const std::string& date) {
        owned_.push_back(run);
        add_run(owned_.back(), true, device, date, "your run");
    }
    // `origin` names it in source lines ("your calibration", or the results file it came from).
    void set_live_calibration(const Calibration& c, const std::string& device,
                              const std::string& origin = "your calibration");
    void add_card(DeviceCard card) { cards_.push_back(std::move(card)); }
    // The GPU whose facts `{{ device ... }}` states (name, SMs, L2, per-SM limits): the learner's
    // own, an exported results file's, or a profile of assets/devices/ (check-lessons renders
    // every lesson under each). Unset: the preferred recorded device's. Its measured figures
    // (copy_gbps ...) come from its calibration or card; a device with neither (a profile) falls
    // back to the preferred device's card, which the source line names.
    void set_device(const DeviceInfo& device, const std::string& origin);
    void clear_device() { device_.reset(); }
    // Datasheet peaks (the device profiles' `datasheet` entries, course/datasheet.h,
    // docs/formats.md section 4): the entry of the device's name, each with its source.
    void set_datasheets(std::vector<Datasheet> sheets, const std::string& devices_dir);
    // The device whose card and runs answer first (the first recorded file's, unless set): the
    // window sets it from its results store, whose runs it adds one by one with add_run.
    void set_preferred_device(const std::string& device) { preferred_device_ = device; }

    BoundValue resolve(const Binding& b) const;
    // Conditional prose (`{{ if ... }}`): true or false, or nullopt with the reason in *why.
    std::optional<bool> holds(const Binding& cond, std::string* why) const;
    // `text` with each binding replaced by its shown value (or "[unresolved: ...]"); the values
    // in order of appearance go to `values` when given. `wrap`, when set, turns the shown text
    // and its value into what is inserted (the window makes a link carrying the source).
    // `withhold`, when set, names the bindings not to show (a prediction not yet kept, reveal.h):
    // they become `withheld` values, shown as kWithheldShown, never resolved.
    std::string render(const std::string& text, std::vector<BoundValue>* values = nullptr,
                       const std::function<std::string(const BoundValue&)>& wrap = nullptr,
                       const std::function<bool(const Binding&)>& withhold = nullptr) const;

    const std::vector<DeviceCard>& cards() const { return cards_; }
    const RecordedFiles& recorded() const { return files_; }
    const std::vector<Ladder>* ladders() const { return ladders_; }

  private:
    struct Run {
        const RunRecord* record = nullptr;
        bool live = false;
        std::string device, created, origin;
    };
    struct PeerFile {
        std::string path, device, date;
        nlohmann::json entries;
    };
    BoundValue resolve_run(const Binding& b) const;
    BoundValue resolve_device(const Binding& b) const;
    BoundValue resolve_peer(const Binding& b) const;
    BoundValue resolve_expr(const Binding& b) const;
    BoundValue resolve_fact(const Binding& b, const DeviceInfo& d, const std::string& origin) const;
    std::vector<BoundValue> resolve_operands(const Binding& b) const;  // pinned to one recording when paired
    const DeviceInfo* fact_device(std::string* origin) const;
    // The SM count of the GPU named `device` (a run's): the shown device's facts, a recording's, or its card.
    std::optional<double> run_device_sm_count(const std::string& device) const;
    // " on the H100" for a `{{ device ... }}` measurement another GPU's card answered while the
    // shown GPU (a profile) has none, " (H100)" when `bracketed` (a bare figure, a share); ""
    // otherwise. The device named is the device shown.
    std::string measured_elsewhere(const BoundValue& v, bool bracketed) const;
    // `{{ device own_rates }}`: 1 when the card figures (`copy_gbps`, `sgemm_tflops`, ...) shown
    // are the shown GPU's own (a live calibration, or its own card), 0 when a profile borrows
    // another GPU's: prose branches on it to say whose figures they are.
    BoundValue resolve_own_rates(const Binding& b, const std::string& card_name) const;
    // [one device] (bindings_one_device.cpp) A computation is one GPU's: where its operands mix
    // the shown GPU's facts with a figure measured on another GPU (the card a profile borrows, a
    // recording the shown GPU has none of), its unpinned `{{ device ... }}` operands become that
    // GPU's. Returns the GPU they were moved to, "" when nothing moved.
    std::string one_device_operands(const Binding& b, std::vector<BoundValue>* vals) const;
    BoundValue resolve_device_of(const Binding& b, const std::string& gpu) const;  // a device operand of `gpu`
    std::vector<std::string> operand_gpus(const Binding& b, const std::vector<BoundValue>& vals) const;
    std::string shown_gpu() const;  // the GPU `{{ device name }}` names, without " (profile)"

    const std::vector<Ladder>* ladders_;
    std::vector<Run> live_;              // newest last
    mutable std::vector<Run> recorded_;  // newest recording first once sorted (sorted on first use)
    mutable bool recorded_sorted_ = true;
    RecordedFiles files_;          // a deque: runs point into it
    std::deque<RunRecord> owned_;  // live runs added by copy
    std::vector<PeerFile> peers_;
    std::vector<DeviceCard> cards_;
    std::optional<Calibration> live_calibration_;
    std::string live_device_, live_calibration_origin_;
    // The device the lessons are written against: the first recorded results file's (files load
    // in name order, so h100_* before h200_*), as the window's results store does. Recorded
    // runs, peer sessions and device cards of this device come before newer ones of another, so
    // adding a second device's recordings never changes the numbers a lesson shows.
    std::string preferred_device_;
    std::string exported_origin_;       // add_exported: its runs sort first
    std::optional<DeviceInfo> device_;  // set_device
    std::string device_origin_;
    std::vector<Datasheet> datasheets_;
    std::string datasheets_dir_;
};

// What a withheld binding shows in place of its number.
extern const char* const kWithheldShown;

// "2,777 GB/s": value with 3 significant digits (or `decimals`), thousands separators, unit.
std::string format_bound(double value, const std::string& unit, int decimals, bool bare);

// "2^28" -> 268435456, "4096" -> 4096; nullopt otherwise.
std::optional<int64_t> parse_bound_int(const std::string& s);

}  // namespace kl
