// The Addresses tab (issue 39): one warp's loads and stores, traced from the rung's kernel by
// `kladder trace` (model/address_trace.h) on a GPU and saved under assets/recorded/traces/. A
// grid of the 32 lanes by the warp's accesses, each cell coloured by the 32-byte sector its
// address falls in (global) or by its bank (shared), with each access's sector count against
// the ideal and its bank-conflict degree. What it shows is a recording: the GPU and the day it
// was traced stand above the grid. A step asks for a trace with `trace = { rung, params }`.
#pragma once
#include <optional>
#include <string>

#include "course/lesson.h"
#include "model/address_trace.h"

namespace kl::gui {

struct AddressViewState {
    std::string loaded_for;  // the step's ladder, rung and parameters the trace below was looked up for
    std::optional<AddressTrace> trace;
    std::string file;   // where it came from
    std::string error;  // one line: a trace file that could not be read, or none recorded
    int hovered_access = -1;
};

// The recorded trace for (ladder, spec) among dir/*.json, looked up again only when they change.
// Files that are not traces of that rung at those parameters are passed over; a broken one
// is reported (its first line) when no good one matches.
void find_step_trace(AddressViewState& st, const std::string& ladder, const StepTrace& spec, const std::string& dir);

void draw_address_view(AddressViewState& st, const LessonStep* step, const std::string& traces_dir, float scale);

}  // namespace kl::gui
