#include "gui/class_view.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "course/plausibility.h"
#include "gui/runner_client.h"
#include "report/class_handout.h"

namespace fs = std::filesystem;

namespace kl::gui {

namespace {

// The last non-empty line of a child's stderr: `kladder: ...`, the one that names the problem.
std::string last_line_of(const std::string& err) {
    size_t end = err.find_last_not_of("\n ");
    if (end == std::string::npos) return "";
    size_t start = err.rfind('\n', end);
    return err.substr(start == std::string::npos ? 0 : start + 1,
                      end + 1 - (start == std::string::npos ? 0 : start + 1));
}

bool submit_ready(const std::shared_future<SubmitOutcome>& f) {
    return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace

SubmitOutcome submit_outcome(int exit_code, const std::string& out, const std::string& err) {
    SubmitOutcome o;
    const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    if (!j.is_object() || j.value("schema", "") != "kernel-ladder/submit") {
        const std::string line = printable(last_line_of(err), kMessageChars);
        o.line = !line.empty() ? line : "kladder submit exited " + std::to_string(exit_code) + " without a word";
        return o;
    }
    try {
        o.written = true;
        o.accepted = j.at("accepted").get<bool>();
        o.file = j.at("file").get<std::string>();
        for (const auto& c : j.at("checks"))
            o.checks.push_back(
                std::string(c.at("passed").get<bool>() ? "passed  " : "FAILED  ") +
                printable(c.at("name").get<std::string>() + ": " + c.at("detail").get<std::string>(), kMessageChars));
        for (const auto& f : j.at("findings"))
            o.findings.push_back(printable(f.at("level").get<std::string>() + " (" + f.at("check").get<std::string>() +
                                               "): " + f.at("detail").get<std::string>(),
                                           kMessageChars));
        o.line = o.accepted ? "accepted; signed submission written to " + printable(o.file)
                            : printable(j.at("refusal").get<std::string>(), kMessageChars) +
                                  " (signed submission written to " + printable(o.file) + ")";
    } catch (const nlohmann::json::exception& e) {
        o = SubmitOutcome{};
        o.line = std::string("kladder submit printed an object this window cannot read: ") + e.what();
    }
    return o;
}

std::string exercise_spec(const Lesson& lesson, int step_index) {
    return fs::path(lesson.dir).filename().string() + "/" + std::to_string(step_index + 1);
}

std::string submission_path(const std::string& exercise_spec) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
    return data_dir() + "/submissions/" + report::exercise_slug(exercise_spec) + "_" + stamp + ".json";
}

OpenedClass open_class(const std::string& folder, const std::string& key_file, const std::string& devices_dir) {
    OpenedClass c;
    c.folder = folder;
    try {
        if (folder.empty()) throw InputError("give the folder of submissions to open");
        if (key_file.empty()) throw InputError("give the class key file the submissions were signed with");
        const ClassKey key = load_class_key(key_file);
        c.key_id = key.id();
        c.merge = merge_class(folder, key, load_datasheets(devices_dir));
    } catch (const Error& e) {
        c.merge = {};
        c.error = printable(e.what(), kMessageChars);
    }
    return c;
}

// [SECTION] Submit

void ClassView::start_submit(const std::string& exercise, const std::string& source, const std::string& learner,
                             const std::string& key_file) {
    const std::string out = submission_path(exercise);
    std::error_code ec;
    fs::create_directories(fs::path(out).parent_path(), ec);
    std::vector<std::string> argv = {"",      "submit", exercise, source, "--name", learner,
                                     "--key", key_file, "--json", "-o",   out};
    submit_shown_.reset();
    submit_ = std::async(std::launch::async, [argv, cancel = submit_cancel_.start()]() mutable {
                  std::string why;
                  argv[0] = find_kladder(&why);
                  if (argv[0].empty()) return submit_outcome(-1, "", why);
                  ChildResult c = run_child(argv, cancel.get());
                  if (c.cancelled) return submit_outcome(-1, "", "submission cancelled");
                  if (!c.started) return submit_outcome(-1, "", "kladder submit: " + c.failure);
                  return submit_outcome(c.exit_code, c.out, c.err);
              }).share();
}

bool ClassView::submit_running() const { return submit_.valid() && !submit_ready(submit_); }

void ClassView::refuse_submit(const std::string& line) {
    submit_ = {};
    submit_shown_ = SubmitOutcome{};
    submit_shown_->line = line;
}

const std::optional<SubmitOutcome>& ClassView::submit_outcome_shown() {
    if (submit_ready(submit_)) {
        submit_shown_ = submit_.get();
        submit_ = {};
    }
    return submit_shown_;
}

// [SECTION] Class folder

void ClassView::start_open(const std::string& folder_path, const std::string& key_file) {
    open_ = std::async(std::launch::async, open_class, folder_path, key_file, assets_dir() + "/devices");
}

bool ClassView::open_running() const {
    return open_.valid() && open_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

const OpenedClass* ClassView::opened() {
    if (open_.valid() && !open_running()) {
        opened_ = std::make_shared<OpenedClass>(open_.get());
        const std::vector<std::string> exercises = opened_->merge.exercises();
        if (std::find(exercises.begin(), exercises.end(), exercise_shown) == exercises.end())
            exercise_shown = exercises.empty() ? "" : exercises.front();
        window_open = true;
    }
    return opened_.get();
}

nlohmann::json ClassView::report() const {
    nlohmann::json j = {{"submit_running", submit_running()}, {"open_running", open_running()}};
    if (submit_shown_)
        j["submit"] = {{"line", submit_shown_->line},
                       {"written", submit_shown_->written},
                       {"accepted", submit_shown_->accepted},
                       {"checks", submit_shown_->checks}};
    if (opened_) {
        nlohmann::json exercises = nlohmann::json::object();
        for (const std::string& ex : opened_->merge.exercises()) {
            nlohmann::json board = nlohmann::json::array(), devices = nlohmann::json::object(),
                           unranked = nlohmann::json::array();
            for (const ClassEntry* e : opened_->merge.leaderboard(ex))
                board.push_back({{"learner", e->sub.learner}, {"device", e->device()}, {"pct_roof", e->pct_roof}});
            for (const auto& b : opened_->merge.device_leaderboards(ex)) devices[b.device] = b.ranked.size();
            for (const ClassEntry* e : opened_->merge.not_ranked(ex))
                unranked.push_back({{"learner", e->sub.learner}, {"status", e->status()}});
            exercises[ex] = {{"leaderboard", board}, {"devices", devices}, {"not_ranked", unranked}};
        }
        j["class"] = {{"folder", opened_->folder},           {"error", opened_->error},
                      {"key_id", opened_->key_id},           {"entries", opened_->merge.entries.size()},
                      {"problems", opened_->merge.problems}, {"exercises", exercises},
                      {"window_open", window_open},          {"exercise_shown", exercise_shown}};
    }
    return j;
}

}  // namespace kl::gui
