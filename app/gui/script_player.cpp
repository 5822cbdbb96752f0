#include "gui/script_player.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "gui/widgets.h"

namespace kl::gui {

namespace {
int key_code(const std::string& name) {
    // GLFW key codes: the glfw backend indexes io.KeysDown with them.
    if (name == "Right") return 262;
    if (name == "Left") return 263;
    if (name == "Down") return 264;
    if (name == "Up") return 265;
    if (name == "Escape") return 256;
    if (name == "Enter") return 257;
    if (name == "Space") return 32;
    if (name == "Tab") return 258;
    if (name == "Backspace") return 259;
    if (name == "Delete") return 261;
    if (name == "Home") return 268;
    if (name == "End") return 269;
    if (name == "F12") return 301;
    if (name.size() == 1 && std::isalnum(static_cast<unsigned char>(name[0])))
        return std::toupper(static_cast<unsigned char>(name[0]));
    return -1;
}

std::string format_seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}
}  // namespace

bool ScriptPlayer::load(const std::string& path, std::string* error) {
    std::string text;
    try {
        text = read_file(path);  // a regular file of bounded size: never waits on a FIFO
    } catch (const Error& e) {
        *error = e.what();
        return false;
    }
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        size_t hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        lines_.push_back(line);
    }
    return true;
}

void ScriptPlayer::apply(ImGuiIO& io, const ScriptView& view) {
    // The scripted pointer stays where the script left it; the display's pointer is ignored.
    io.MousePos = mouse_;
    io.MouseDown[0] = false;
    if (key_ >= 0 && phase_ == 0) {  // release the key pressed last frame; it stays up for a frame
        io.KeysDown[key_] = false;
        io.KeyCtrl = false;
        io.KeyShift = false;
        key_ = -1;
        return;
    }
    if (phase_ > 0) {
        continue_pointer_action(io);
        return;
    }
    if (wait_ > 0) {
        --wait_;
        return;
    }
    if (waiting_idle_) {
        if (view.busy && ++idle_frames_ < 3000) return;
        if (view.busy) errors_.push_back("wait_idle: still busy after 3000 frames");
        waiting_idle_ = false;
    }
    if (!until_.empty()) {
        if (!condition_holds(view)) {
            if (Clock::now() < until_deadline_) return;
            errors_.push_back("wait_until " + until_ + ": not true after " + format_seconds(until_timeout_s_) + " s");
        }
        until_.clear();
    }
    if (next_ >= lines_.size()) return;
    std::string line = lines_[next_++];
    done_lines_.push_back(line);
    run(io, view, line);
}

// click: 1 move, 2 press, 3 release; drag: 1 move, 2 press, 3..12 move, 13 release.
void ScriptPlayer::continue_pointer_action(ImGuiIO& io) {
    bool drag = action_ == "drag";
    int last = drag ? 13 : 3;
    if (phase_ == 1) io.MousePos = from_;
    if (phase_ >= 2) io.MouseDown[0] = phase_ < last;
    if (drag && phase_ >= 3) {
        float t = std::min(1.0f, float(phase_ - 2) / 10.0f);
        io.MousePos = ImVec2(from_.x + (to_.x - from_.x) * t, from_.y + (to_.y - from_.y) * t);
    } else if (phase_ >= 2) {
        io.MousePos = from_;
    }
    mouse_ = io.MousePos;
    phase_ = phase_ >= last ? 0 : phase_ + 1;
}

void ScriptPlayer::run(ImGuiIO& io, const ScriptView& view, const std::string& line) {
    std::istringstream ss(line);
    std::string cmd;
    ss >> cmd;
    if (cmd == "wait") {
        ss >> wait_;
    } else if (cmd == "wait_idle") {
        waiting_idle_ = true;
        idle_frames_ = 0;
        wait_ = 2;  // let the job start before testing for idle
    } else if (cmd == "wait_until") {
        start_wait_until(view, ss, line);
    } else if (cmd == "key") {
        std::string name;
        ss >> name;
        bool ctrl = name.rfind("Ctrl+", 0) == 0;
        if (ctrl) name = name.substr(5);
        bool shift = name.rfind("Shift+", 0) == 0;
        if (shift) name = name.substr(6);
        key_ = name == "=" ? '=' : name == "-" ? '-' : key_code(name);
        if (key_ < 0) {
            errors_.push_back("unknown key in '" + line + "'");
        } else {
            io.KeysDown[key_] = true;
            io.KeyCtrl = ctrl;
            io.KeyShift = shift;
        }
    } else if (cmd == "click" || cmd == "drag") {
        std::string rest;
        std::getline(ss, rest);
        start_pointer_action(io, cmd, rest, line);
    } else if (cmd == "wheel") {
        std::string rest;
        std::getline(ss, rest);
        std::istringstream words(rest);
        std::string target;
        float dy = 0;
        words >> target >> dy;
        ImVec2 a, b;
        if (!find_test_target(target, &a, &b)) {
            errors_.push_back("no widget '" + target + "' on screen for '" + line + "'");
            return;
        }
        io.MousePos = mouse_ = ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f);
        io.MouseWheel += dy;
        wait_ = 2;
    } else if (cmd == "shot") {
        ss >> shot_;
    } else if (cmd == "report") {
        ss >> report_;
    } else if (cmd == "type") {
        std::string text;
        std::getline(ss, text);
        if (!text.empty() && text[0] == ' ') text.erase(0, 1);  // the one space after the command
        io.AddInputCharactersUTF8(text.c_str());
        wait_ = 1;
    } else {
        errors_.push_back("unknown command '" + line + "'");
    }
}

// The target is the rest of the line (names may hold spaces); a drag ends with DX DY.
void ScriptPlayer::start_pointer_action(ImGuiIO& io, const std::string& cmd, std::string rest,
                                        const std::string& line) {
    float dx = 0, dy = 0;
    if (cmd == "drag") {
        std::istringstream tail(rest);
        std::vector<std::string> words;
        for (std::string w; tail >> w;) words.push_back(w);
        if (words.size() >= 3) {
            dx = std::stof(words[words.size() - 2]);
            dy = std::stof(words.back());
            words.resize(words.size() - 2);
        }
        rest.clear();
        for (const auto& w : words) rest += (rest.empty() ? "" : " ") + w;
    }
    std::string target =
        rest.substr(rest.find_first_not_of(" \t") == std::string::npos ? rest.size() : rest.find_first_not_of(" \t"));
    while (!target.empty() && (target.back() == ' ' || target.back() == '\t' || target.back() == '\r'))
        target.pop_back();
    ImVec2 a, b;
    if (!find_test_target(target, &a, &b)) {
        errors_.push_back("no widget '" + target + "' on screen for '" + line + "'");
        return;
    }
    action_ = cmd;
    from_ = ImVec2((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f);
    to_ = ImVec2(from_.x + dx, from_.y + dy);
    io.MousePos = mouse_ = from_;
    phase_ = 2;
}

// wait_until job | idle | results N [SECONDS]: results counts from this line on.
void ScriptPlayer::start_wait_until(const ScriptView& view, std::istringstream& args, const std::string& line) {
    std::vector<std::string> words;
    for (std::string w; args >> w;) words.push_back(w);
    size_t n = words.empty() ? 0 : words[0] == "results" ? 2 : 1;
    double timeout_s = 30;
    char* end = nullptr;
    if (words.size() == n + 1) timeout_s = std::strtod(words[n].c_str(), &end);
    long results = n == 2 && words.size() >= 2 ? std::strtol(words[1].c_str(), nullptr, 10) : 0;
    bool known = n == 1 ? (words[0] == "job" || words[0] == "idle") : n == 2 && results > 0;
    if (!known || words.size() > n + 1 || (end && (*end || timeout_s <= 0))) {
        errors_.push_back("'" + line + "' is not wait_until job|idle|results N [SECONDS]");
        return;
    }
    until_ = words[0] + (n == 2 ? " " + words[1] : "");
    until_results_ = view.results + int(results);
    until_timeout_s_ = timeout_s;
    until_deadline_ =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
}

bool ScriptPlayer::condition_holds(const ScriptView& view) const {
    if (until_ == "job") return view.job;
    if (until_ == "idle") return !view.busy;
    return view.results >= until_results_;
}

bool ScriptPlayer::take_screenshot(std::string* path) {
    if (shot_.empty()) return false;
    *path = shot_;
    shot_.clear();
    return true;
}

}  // namespace kl::gui
