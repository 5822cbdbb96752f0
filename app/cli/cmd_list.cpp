// `kladder list [lessons|ladders|rungs|operations] [--ladder L] [--lab] [--plan-on PROFILE]`
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "cli_common.h"
#include "commands.h"
#include "course/lesson_plan.h"
#include "model/arch.h"
#include "model/device_profile.h"
#include "model/operation.h"

namespace kl::cli {

namespace {
struct ListOptions {
    std::string what = "all";
    std::string ladder;
    bool lab = false;     // the lab rungs instead of the teaching ones
    std::string plan_on;  // a device profile: which of each lesson's live steps it can run
};

constexpr size_t kTerminalColumns = 120;  // `kladder list` fits a 120-column terminal (test cli.list_width)

// "K=default (allowed)" items joined by "; ", wrapped at item boundaries into lines of at most
// `width` columns, each line indented by `indent` spaces (an item longer than a line gets its own).
// A teaching rung's pinned lab switches follow as "K=value" items after one saying so.
std::string wrapped_params(const Rung& r, size_t indent, size_t width) {
    std::vector<std::string> items;
    for (const auto& p : r.params)
        if (!p.pinned)
            items.push_back(printable(p.name) + "=" + std::to_string(p.default_value) + " (" +
                            printable(p.describe_allowed()) + ")");
    bool first_pinned = true;
    for (const auto& p : r.params) {
        if (!p.pinned) continue;
        const std::string head = first_pinned ? "lab switches, pinned (" + printable(r.id) + "_lab varies them): " : "";
        items.push_back(head + printable(p.name) + "=" + std::to_string(p.default_value));
        first_pinned = false;
    }
    std::string out, line;
    for (const auto& item : items) {
        if (!line.empty() && indent + line.size() + 2 + item.size() + 1 > width) {  // + 1: the ";" ending a line
            out += std::string(indent, ' ') + line + ";\n";
            line.clear();
        }
        line += (line.empty() ? "" : "; ") + item;
    }
    if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
    return out;
}

// One table row per rung (number, id, dtypes, title), its parameters wrapped on the lines below:
// the teaching rungs (those of the strip), or with --lab the lab rungs, each with the rung it is
// the lab twin of. The number is the rung's own (the manifest's), as on the strip and plot axes.
void print_rungs(const Ladder& L, bool lab) {
    const std::vector<Rung>& rungs = lab ? L.lab_rungs : L.rungs;
    if (lab && rungs.empty()) return;
    if (lab) {
        std::printf("\nladder %s, lab rungs: %s\n", L.id.c_str(), printable(L.title, kTitleChars).c_str());
    } else {
        std::printf("\nladder %s: %s  [operation %s; sizes", L.id.c_str(), printable(L.title, kTitleChars).c_str(),
                    printable(L.operation).c_str());
        for (const auto& [k, v] : L.default_sizes)
            std::printf(" %s=%lld", printable(k).c_str(), static_cast<long long>(v));
        std::printf("]\n");
    }
    const std::vector<std::string> head = {"#", "rung", "dtypes", "title (parameters below: default, allowed)"};
    std::vector<std::vector<std::string>> rows;
    std::vector<size_t> width = {head[0].size(), head[1].size(), head[2].size()};
    for (const auto& r : rungs) {
        std::string dtypes;
        for (DType d : r.dtypes) dtypes += (dtypes.empty() ? "" : ",") + to_string(d);
        rows.push_back({printable(r.number),
                        printable(r.id + (r.reference_mark().empty() ? "" : " (" + r.reference_mark() + ")")), dtypes,
                        r.title});
        for (size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], rows.back()[c].size());
    }
    // The title takes what the other columns and their gaps leave of the terminal (an ellipsis,
    // three bytes for one column, ends a cut one), so a long id elsewhere in the ladder cannot push
    // a row past it.
    const size_t used = width[0] + width[1] + width[2] + 3 * 2;
    const size_t title_chars = used + 24 < kTerminalColumns ? kTerminalColumns - used - 2 : 22;
    for (auto& row : rows) row[3] = printable(row[3], std::min(title_chars, kTitleChars));
    // format_table gives the header, a rule, then one line per row, in order.
    std::istringstream table(format_table(head, rows));
    std::string line;
    for (int i = 0; std::getline(table, line); ++i) {
        std::printf("%s\n", line.c_str());
        if (i >= 2) std::printf("%s", wrapped_params(rungs[i - 2], 5, kTerminalColumns).c_str());
    }
    if (!lab && !L.lab_rungs.empty())
        std::printf("  and %zu lab rung%s, off the strip (measuring and ablation switches): kladder list rungs --lab\n",
                    L.lab_rungs.size(), L.lab_rungs.size() == 1 ? "" : "s");
}
// The lessons table: core first, then the appendix with the architecture it needs; with a device
// profile, how many of each lesson's live steps that device can run, the steps it cannot, and the
// core track's share.
int print_lessons(const std::vector<Ladder>& ladders, const std::string& plan_on) {
    std::optional<DeviceInfo> device;
    if (!plan_on.empty()) device = load_device_profile(plan_on);
    std::vector<LessonLoadError> errors;
    auto lessons = load_all_lessons(lessons_dir(), ladders, &errors);
    std::vector<LessonPlan> plans = plan_lessons_on(lessons, ladders, device ? device->cc() : 0);
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : plans) {
        const Lesson& l = *p.lesson;
        rows.push_back({std::to_string(l.number), l.id, l.appendix() ? "appendix " + printable(l.needs) : "core",
                        std::to_string(l.steps.size()), std::to_string(l.checks.size()),
                        std::to_string(l.cards.size())});
        if (device) rows.back().push_back(std::to_string(p.runnable) + "/" + std::to_string(p.live));
        rows.back().push_back(printable(l.title, kTitleChars));
    }
    std::vector<std::string> head = {"#", "lesson", "track", "steps", "checks", "cards", "title"};
    if (device) head.insert(head.end() - 1, "live");
    std::printf("\n%s", format_table(head, rows).c_str());
    if (device) {
        for (const auto& p : plans)
            for (const auto& s : p.skips)
                std::printf("  skip  lesson %d step %d (%s): %s\n", p.lesson->number, s.step + 1,
                            printable(p.lesson->steps[s.step].rung).c_str(), printable(s.skip).c_str());
        TrackShare core = track_share(plans, "core");
        std::printf("core track on %s (%s): %d of %d live steps run (%.0f%%)\n",
                    printable(device->name, kDeviceNameChars).c_str(), arch_name(device->cc()).c_str(), core.runnable,
                    core.live, core.live ? 100.0 * core.runnable / core.live : 0.0);
    }
    for (const auto& e : errors)
        std::fprintf(stderr, "kladder: lesson %s not loaded: %s\n", printable(e.folder).c_str(),
                     printable(e.message, kMessageChars).c_str());
    return errors.empty() ? 0 : static_cast<int>(ExitCode::BadInput);
}
}  // namespace

Action add_list_command(CLI::App& app) {
    auto opt = std::make_shared<ListOptions>();
    app.add_option("what", opt->what, "lessons, ladders, rungs, operations or all")
        ->check(CLI::IsMember({"all", "lessons", "ladders", "rungs", "operations"}));
    app.add_option("--ladder", opt->ladder, "only this ladder's rungs");
    app.add_flag("--lab", opt->lab,
                 "the lab rungs instead: off the strip, they keep the measuring and ablation switches that the "
                 "teaching rungs pin");
    app.add_option("--plan-on", opt->plan_on,
                   "with lessons: how many of each lesson's live steps the device of this profile "
                   "(assets/devices/*.json) can run, and the core track's share; needs no GPU");
    return [opt] {
        auto ladders = load_ladders_or_throw();
        const bool all = opt->what == "all";
        if (all || opt->what == "ladders") {
            std::vector<std::vector<std::string>> rows;
            for (const auto& L : ladders)
                rows.push_back({L.id, std::to_string(L.rungs.size()), L.operation, printable(L.title, kTitleChars)});
            std::printf("%s", format_table({"ladder", "rungs", "operation", "title"}, rows).c_str());
        }
        if (all || opt->what == "rungs") {
            if (!opt->ladder.empty())
                print_rungs(find_ladder_or_throw(ladders, opt->ladder), opt->lab);
            else
                for (const auto& L : ladders) print_rungs(L, opt->lab);
        }
        // A broken manifest first: the lessons that name its ladder fail because of it.
        for (const auto& e : load_errors()) std::fprintf(stderr, "kladder: %s\n", printable(e, kMessageChars).c_str());
        if (all || opt->what == "lessons")
            if (int code = print_lessons(ladders, opt->plan_on)) return code;
        if (!load_errors().empty()) return static_cast<int>(ExitCode::BadInput);
        if (opt->what == "operations") {
            std::vector<std::vector<std::string>> rows;
            for (const auto& name : operation_names()) {
                const Operation* op = find_operation(name);
                std::string axes;
                for (const auto& a : op->size_axes()) axes += (axes.empty() ? "" : ",") + a.name;
                rows.push_back({name, axes, op->description()});
            }
            std::printf("%s", format_table({"operation", "sizes", "what"}, rows).c_str());
        }
        return 0;
    };
}

}  // namespace kl::cli
