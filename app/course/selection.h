// What the learner has chosen, resolved once: the ladder, the rung, its parameters (the rung's
// defaults with the step's and the learner's overrides), the sizes, the dtype, the sweep with its
// points, and the device all of it is resolved against. The window builds one Selection when a
// choice changes and every panel draws from it; the run it starts, `kladder run` and `kladder
// serve` resolve through the same functions (model/run_plan.h), so a refusal reads the same in
// all three. No CUDA.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "course/lesson.h"
#include "course/sweep_spec.h"
#include "model/device_info.h"
#include "model/run_plan.h"

namespace kl {

// The device a selection is resolved against, and where its limits come from.
struct SelectionDevice {
    DeviceInfo info;   // has_limits always holds
    std::string from;  // "of this GPU", "as recorded", "from its profile in assets/devices"
};

// The live GPU when the window has one; else the recorded device the plots show, with its limits
// when its results file has them, else the shipped profile of its architecture (results written
// before the schema carried limits; sm_90's when even its architecture is unknown); nullopt when
// none is known.
std::optional<SelectionDevice> pick_selection_device(const std::optional<DeviceInfo>& gpu,
                                                     const std::optional<DeviceInfo>& recorded);

// The shipped device profile of an architecture (assets/devices/<arch>_*.json), read once.
std::optional<DeviceInfo> profile_for_arch(const std::string& arch);

struct SelectionChoice {
    const Ladder* ladder = nullptr;
    const Rung* rung = nullptr;
    std::map<std::string, int64_t> sizes;  // the ladder's axes: its defaults, the step's, the learner's
    ParamValues overrides;                 // the step's, then the learner's
    DType dtype = DType::F32;
    std::string sweep_axis;            // "": no sweep chosen
    const LessonStep* step = nullptr;  // its sweep's values and ties apply when it sweeps sweep_axis
};

struct Selection {
    ParamValues params;              // the rung's defaults with the overrides it knows: shown even when refused
    std::optional<ResolvedRun> run;  // resolved, and bound to `device` when there is one
    std::string refusal;             // why it cannot run, one line as `kladder run` says it; "" when it can
    std::optional<SelectionDevice> device;
    SweepSpec sweep;  // the chosen axis, its points (the step's, else the default ones), its tied axes
};

Selection make_selection(const SelectionChoice& choice, const std::optional<SelectionDevice>& device);

// The rung's defaults with those of `overrides` it declares (unvalidated: what the sliders show).
ParamValues defaults_with(const Rung& rung, const ParamValues& overrides);

// The run of `rung` at these sizes and parameters in this dtype, resolved and bound to `device`
// when given, as make_selection resolves the selection's own.
struct Resolution {
    std::optional<ResolvedRun> run;  // resolved (its geometry evaluated on the device, even when refused there)
    std::string refusal;             // the one line resolve_run or bind_to_device throws; "" when it runs
    bool refused_by_device = false;  // the input holds, the device's launch limits refuse it
};
Resolution resolve_at(const Ladder& ladder, const Rung& rung, const std::map<std::string, int64_t>& sizes,
                      const ParamValues& params, DType dtype, const std::optional<SelectionDevice>& device);

// Why `rung` cannot run at these sizes and parameters in this choice's dtype, on `device` when
// given (the one line resolve_run or bind_to_device throws), or "" when it can. The sliders ask it
// for every value they offer, a sweep for every point.
std::string refusal_at(const Ladder& ladder, const Rung& rung, const std::map<std::string, int64_t>& sizes,
                       const ParamValues& params, DType dtype, const std::optional<SelectionDevice>& device);

// The points of a sweep along `axis` when no lesson step names them: a parameter's allowed values
// (its powers of two, or 12 evenly spaced values, when it allows more than 16); a size's powers of
// two up to its current value (at most 17: the range where the GPU fills up), and the value itself.
std::vector<int64_t> default_sweep_points(const Rung& rung, const std::map<std::string, int64_t>& sizes,
                                          const std::string& axis);

// The sweep of a choice along its sweep_axis: the step's values and ties when its step sweeps that
// axis, else default_sweep_points. The window's Sweep and `kladder sweep` without --values.
SweepSpec sweep_of(const SelectionChoice& choice);

// The options of one run of this choice at these sizes and parameters.
RunOptions run_options_of(const std::map<std::string, int64_t>& sizes, const ParamValues& params, DType dtype);

}  // namespace kl
