#include "gui/script_player.h"

#include <cctype>
#include <fstream>
#include <sstream>

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
    if (name == "F12") return 301;
    if (name.size() == 1 && std::isalnum(static_cast<unsigned char>(name[0])))
        return std::toupper(static_cast<unsigned char>(name[0]));
    return -1;
}
}  // namespace

bool ScriptPlayer::load(const std::string& path, std::string* error) {
    std::ifstream in(path);
    if (!in) {
        *error = "cannot read " + path;
        return false;
    }
    std::string line;
    while (std::getline(in, line)) {
        size_t hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        lines_.push_back(line);
    }
    return true;
}

void ScriptPlayer::apply(ImGuiIO& io, bool busy) {
    // The scripted pointer stays where the script left it; the display's pointer is ignored.
    io.MousePos = mouse_;
    io.MouseDown[0] = false;
    if (key_ >= 0 && phase_ == 0) {  // release the key pressed last frame; it stays up for a frame
        io.KeysDown[key_] = false;
        io.KeyCtrl = false;
        key_ = -1;
        return;
    }
    if (phase_ > 0) {
        // click: 1 move, 2 press, 3 release; drag: 1 move, 2 press, 3..12 move, 13 release.
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
        return;
    }
    if (wait_ > 0) {
        --wait_;
        return;
    }
    if (waiting_idle_) {
        if (busy && ++idle_frames_ < 3000) return;
        if (busy) errors_.push_back("wait_idle: still busy after 3000 frames");
        waiting_idle_ = false;
    }
    if (next_ >= lines_.size()) return;
    std::string line = lines_[next_++];
    done_lines_.push_back(line);
    std::istringstream ss(line);
    std::string cmd;
    ss >> cmd;
    if (cmd == "wait") {
        ss >> wait_;
    } else if (cmd == "wait_idle") {
        waiting_idle_ = true;
        idle_frames_ = 0;
        wait_ = 2;  // let the job start before testing for idle
    } else if (cmd == "key") {
        std::string name;
        ss >> name;
        bool ctrl = name.rfind("Ctrl+", 0) == 0;
        if (ctrl) name = name.substr(5);
        key_ = name == "=" ? '=' : name == "-" ? '-' : key_code(name);
        if (key_ < 0) {
            errors_.push_back("unknown key in '" + line + "'");
        } else {
            io.KeysDown[key_] = true;
            io.KeyCtrl = ctrl;
        }
    } else if (cmd == "click" || cmd == "drag") {
        // The target is the rest of the line (names may hold spaces); a drag ends with DX DY.
        std::string rest;
        std::getline(ss, rest);
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
        std::string target = rest.substr(
            rest.find_first_not_of(" \t") == std::string::npos ? rest.size() : rest.find_first_not_of(" \t"));
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
    } else {
        errors_.push_back("unknown command '" + line + "'");
    }
}

bool ScriptPlayer::take_screenshot(std::string* path) {
    if (shot_.empty()) return false;
    *path = shot_;
    shot_.clear();
    return true;
}

}  // namespace kl::gui
