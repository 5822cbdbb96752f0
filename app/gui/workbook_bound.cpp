// Bound numbers in the step text: `{{ ... }}` filled in from the learner's live runs, else the
// recordings (course/bindings.h). In the Markdown each value becomes a link whose target is
// "kl-bound:" + the percent-encoded source line; the text panel draws such links as bound
// numbers with the source (device, date, file or live run) on hover.
#include <algorithm>
#include <cstdio>

#include "base/paths.h"
#include "course/bindings.h"
#include "gui/workbook.h"
#include "model/results.h"

namespace kl::gui {

namespace {

std::string percent_encode(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        }
    }
    return out;
}

// A Markdown link carrying the value's source; brackets in the shown text are escaped.
std::string bound_link(const BoundValue& v) {
    std::string shown;
    for (char c : v.shown) {
        if (c == '[' || c == ']' || c == '\\') shown += '\\';
        shown += c;
    }
    return "[" + shown + "](kl-bound:" + percent_encode(v.source_line()) + ")";
}

}  // namespace

std::string bound_source_of(const std::string& url) {
    static const std::string prefix = "kl-bound:";
    if (url.rfind(prefix, 0) != 0) return "";
    std::string out;
    for (size_t i = prefix.size(); i < url.size(); ++i) {
        if (url[i] == '%' && i + 2 < url.size()) {
            out += static_cast<char>(std::stoi(url.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += url[i];
        }
    }
    return out.empty() ? " " : out;
}

const NumberSources& Workbook::numbers() {
    if (bound_.numbers && bound_.generation == store_.generation()) return *bound_.numbers;
    auto numbers = std::make_shared<NumberSources>(&ladders_);
    std::vector<std::string> errors;  // a peers or cards file that does not load: its numbers stay unresolved
    numbers->load_recorded(assets_dir() + "/recorded", &errors, /*results=*/false);
    std::string now = iso_now_utc();
    for (const auto& r : store_.runs()) {
        if (r.live) {
            numbers->add_run(r.record, true, runner_.device, now, "your run");
            continue;
        }
        std::string device = "unknown device", created;
        for (const auto& src : store_.sources())
            if (src.path == r.origin) device = src.device, created = src.created;
        numbers->add_run(r.record, false, device, created, r.origin);
    }
    // Device bindings answer from the lessons' device card (several cards are recorded): the
    // shown device's, or with a GPU of no recording (no card of its own) the first recorded
    // device's, as before the store kept to one device; the text's source lines name it.
    const std::vector<std::string> recorded = store_.recorded_devices();
    const bool shown_recorded =
        std::find(recorded.begin(), recorded.end(), store_.preferred_device()) != recorded.end();
    numbers->set_preferred_device(shown_recorded || recorded.empty() ? store_.preferred_device() : recorded.front());
    if (runner_.calibration) numbers->set_live_calibration(*runner_.calibration, runner_.device);
    // `{{ device name }}` and the other device facts speak of the GPU the window shows: this one,
    // else the recorded device of the plots (the one the selection is resolved against).
    if (std::optional<SelectionDevice> shown = selection_device())
        numbers->set_device(shown->info, runner_.gpu ? "this GPU" : "device properties " + shown->from);
    bound_.numbers = numbers;
    bound_.generation = store_.generation();
    bound_.plain.clear();
    return *bound_.numbers;
}

const std::string& Workbook::bound(const std::string& text) {
    if (text.find("{{") == std::string::npos) return text;
    const NumberSources& n = numbers();  // first: a rebuild clears the cache
    auto it = bound_.plain.find(text);
    if (it != bound_.plain.end()) return it->second;
    return bound_.plain[text] = n.render(text);
}

void Workbook::resolve_step_text(const LessonStep& st) {
    const NumberSources& n = numbers();
    // Before a prediction is kept the gate folds the text past `<!-- reveal -->` and withholds
    // the predicted figure wherever else it is bound.
    const RevealGate gate = reveal_gate().current();
    std::vector<BoundValue> values;
    text_.doc = md::parse(gate.render(n, gate.step_text(st), &values, bound_link));
    text_.look_at = gate.render(n, st.look_at, &values);
    text_.question = gate.render(n, st.question, &values);
    text_.answer = gate.render(n, st.answer, &values);
    text_.unresolved.clear();
    for (const BoundValue& v : values)
        if (!v.ok) text_.unresolved.push_back(v.error);
    text_.store_generation = store_.generation();
}

}  // namespace kl::gui
