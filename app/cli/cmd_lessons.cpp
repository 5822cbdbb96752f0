// `kladder check-lessons`: every binding in the lessons resolves against the recordings, every
// other number with a unit of time, bandwidth or FLOP rate is on the allow-list with its
// source, the device cards match the recordings, text that calls a rung by number uses its own, and
// each core lesson stays within 4,400 words and 12 steps (lesson_size.h). Exit 0 when clean,
// 2 with one line per offence. `kladder make-cards`: writes the device reference cards from the recordings. Neither
// needs a GPU.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/errors.h"
#include "base/file_set.h"
#include "base/paths.h"
#include "base/printable.h"
#include "cli_common.h"
#include "commands.h"
#include "course/bindings.h"
#include "course/lesson_check.h"
#include "course/lesson_size.h"
#include "course/rung_numbers.h"
#include "model/device_card.h"
#include "model/device_profile.h"

namespace fs = std::filesystem;

namespace kl::cli {

namespace {
struct LessonCheckOptions {
    std::string lessons, recorded, allow;
    std::string show, on;  // --show LESSON [--on PROFILE]: print the lesson as that device reads it
};

// Every text of one lesson rendered as the device of `profile` (or the preferred recorded one)
// reads it, so a writer can read each profile's version before check-lessons judges it.
int show_lesson_on(const std::vector<Lesson>& lessons, NumberSources& sources, const LessonCheckOptions& o) {
    if (!o.on.empty()) sources.set_device(load_device_profile(o.on), o.on);
    for (const Lesson& l : lessons) {
        if (fs::path(l.dir).filename().string() != o.show && l.id != o.show) continue;
        for (const LessonText& t : lesson_texts(l))
            std::printf("== %s\n%s\n", printable(t.where).c_str(), sources.render(t.text).c_str());
        return 0;
    }
    throw InputError("--show: no lesson '" + o.show + "'");
}

std::string recorded_default() { return (fs::path(assets_dir()) / "recorded").string(); }

int check_lessons_main(const LessonCheckOptions& o) {
    std::vector<Ladder> ladders = load_ladders_or_throw();
    std::string lessons_root = o.lessons.empty() ? lessons_dir() : o.lessons;
    std::string recorded = o.recorded.empty() ? recorded_default() : o.recorded;
    std::string allow = o.allow.empty() ? (fs::path(lessons_root) / "numbers_allowed.toml").string() : o.allow;
    std::error_code ec;
    if (!fs::is_directory(lessons_root, ec)) throw InputError(lessons_root + ": no such lessons folder");
    if (!fs::is_directory(recorded, ec)) throw InputError(recorded + ": no such recordings folder");
    // A broken manifest first: every lesson and recording that names its ladder fails because of it.
    std::vector<std::string> offences = cli::load_errors();
    std::vector<LessonLoadError> load_errors;
    std::vector<Lesson> lessons = load_all_lessons(lessons_root, ladders, &load_errors);
    for (const auto& e : load_errors) offences.push_back(e.message);
    NumberSources sources(&ladders);
    sources.load_recorded(recorded, &offences);
    if (!o.show.empty()) return show_lesson_on(lessons, sources, o);
    std::vector<AllowedNumber> allowed = load_allowed_numbers(allow);
    for (auto& line : check_lessons(lessons, sources, allowed))
        offences.push_back(line.rfind("numbers_allowed.toml:", 0) == 0 ? allow + line.substr(20) : line);
    for (auto& line : check_device_cards(sources, (fs::path(recorded) / "cards").string())) offences.push_back(line);
    for (auto& line : check_rung_numbers(lessons, ladders)) offences.push_back(line);  // "rung 12" is rung 12
    for (auto& line : check_lesson_sizes(lessons)) offences.push_back(line);           // a core lesson fits a sitting
    // Every lesson under each device profile: the prose of each device resolves.
    std::vector<std::pair<std::string, DeviceInfo>> devices;
    for (const auto& e : fs::directory_iterator(fs::path(assets_dir()) / "devices", ec))
        if (e.path().extension() == ".json") devices.emplace_back(e.path().string(), DeviceInfo{});
    std::sort(devices.begin(), devices.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [path, device] : devices) {
        try {
            device = load_device_profile(path);
        } catch (const Error& e) { offences.push_back(e.what()); }
    }
    for (auto& line : check_lessons_on_devices(lessons, sources, devices)) offences.push_back(line);
    // Paths relative to the data root: "lessons/01_first_kernel/02_memory.md:12: ...".
    std::string root = data_root() + "/";
    for (auto line : offences) {
        for (size_t at; (at = line.find(root)) != std::string::npos;) line.erase(at, root.size());
        std::printf("%s\n", printable(line, kMessageChars).c_str());  // lines quote the lessons' text
    }
    // A clean run lists each lesson's length on stderr before the summary. With offences stdout has one
    // line per problem (a long lesson among them) and stderr only the summary, as scripts expect.
    if (offences.empty())
        for (const auto& l : lessons)
            std::fprintf(stderr, "check-lessons: %s\n", printable(lesson_size_line(l, measure_lesson(l))).c_str());
    size_t bindings = 0;
    for (const auto& l : lessons)
        for (const auto& t : lesson_texts(l)) bindings += find_bindings(t.text, nullptr).size();
    size_t pending = 0;
    for (const auto& a : allowed) pending += a.pending;
    std::fprintf(stderr,
                 "check-lessons: %zu lessons, %zu bindings, %zu allow-listed numbers (%zu typed figures pending a "
                 "binding), %zu device profiles, %zu offences\n",
                 lessons.size(), bindings, allowed.size() - pending, pending, devices.size(), offences.size());
    return offences.empty() ? 0 : static_cast<int>(ExitCode::BadInput);
}

int make_cards_main(const std::string& recorded_arg) {
    std::vector<Ladder> ladders;
    std::string recorded = recorded_arg.empty() ? recorded_default() : recorded_arg;
    NumberSources sources(&ladders);
    std::vector<std::string> errors;
    sources.load_recorded(recorded, &errors);
    if (!errors.empty()) throw InputError(errors.front());
    auto cards = make_device_cards(sources.recorded());
    if (cards.empty()) throw InputError(recorded + ": no recordings with a device to make a card from");
    fs::path dir = fs::path(recorded) / "cards";
    std::error_code ec;
    const bool made_dir = fs::create_directories(dir, ec);
    if (ec) throw InputError(dir.string() + ": cannot create: " + ec.message());
    // All cards or none: a card that cannot be written leaves every card as it was.
    try {
        InterruptGuard interrupts;  // Ctrl-C stops at the next card and removes what was staged
        FileSet cards_out;
        for (const auto& [slug, doc] : cards) cards_out.stage((dir / (slug + ".json")).string(), doc.dump(2) + "\n");
        cards_out.commit();
    } catch (const Error&) {
        if (made_dir) fs::remove(dir, ec);  // only when empty: it was made for these cards
        throw;
    }
    for (const auto& [slug, doc] : cards) std::printf("%s\n", printable((dir / (slug + ".json")).string()).c_str());
    return 0;
}
}  // namespace

Action add_check_lessons_command(CLI::App& app) {
    auto o = std::make_shared<LessonCheckOptions>();
    app.add_option("--lessons", o->lessons, "lessons folder (default: the data root's lessons/)");
    app.add_option("--recorded", o->recorded, "recordings folder (default: assets/recorded/)");
    app.add_option("--allow", o->allow, "allow-list (default: <lessons>/numbers_allowed.toml)");
    app.add_option("--show", o->show, "print one lesson's texts rendered (folder or id) instead of checking");
    app.add_option("--on", o->on, "with --show: as this device profile reads it (assets/devices/*.json)");
    return [o] { return check_lessons_main(*o); };
}

Action add_make_cards_command(CLI::App& app) {
    auto recorded = std::make_shared<std::string>();
    app.add_option("--recorded", *recorded, "recordings folder (default: assets/recorded/); cards go to its cards/");
    return [recorded] { return make_cards_main(*recorded); };
}

}  // namespace kl::cli
