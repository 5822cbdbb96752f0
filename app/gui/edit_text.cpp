#include "gui/edit_text.h"

#include <algorithm>

namespace kl::gui {

void EditHistory::record(const TextState& before, Clock::time_point now) {
    redo_.clear();
    bool joins = grouping_ && !undo_.empty() && now - last_edit_ < group_window_;
    last_edit_ = now;
    grouping_ = true;
    if (joins) return;
    undo_.push_back(before);
    if (undo_.size() > limit_) undo_.erase(undo_.begin());
}

bool EditHistory::undo(TextState& current) {
    if (undo_.empty()) return false;
    redo_.push_back(current);
    current = std::move(undo_.back());
    undo_.pop_back();
    grouping_ = false;
    return true;
}

bool EditHistory::redo(TextState& current) {
    if (redo_.empty()) return false;
    undo_.push_back(current);
    current = std::move(redo_.back());
    redo_.pop_back();
    grouping_ = false;
    return true;
}

std::vector<size_t> find_all(const std::string& text, const std::string& needle) {
    std::vector<size_t> at;
    if (needle.empty()) return at;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size()))
        at.push_back(p);
    return at;
}

long find_next(const std::string& text, const std::string& needle, size_t from, bool backwards) {
    std::vector<size_t> at = find_all(text, needle);
    if (at.empty()) return -1;
    if (backwards) {
        auto it = std::lower_bound(at.begin(), at.end(), from);
        return long(it == at.begin() ? at.back() : *(it - 1));
    }
    auto it = std::upper_bound(at.begin(), at.end(), from);
    return long(it == at.end() ? at.front() : *it);
}

std::vector<size_t> line_starts(const std::string& text) {
    std::vector<size_t> starts{0};
    for (size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') starts.push_back(i + 1);
    return starts;
}

int line_of(const std::vector<size_t>& starts, size_t offset) {
    auto it = std::upper_bound(starts.begin(), starts.end(), offset);
    return int(it - starts.begin()) - 1;
}

size_t offset_of(const std::string& text, const std::vector<size_t>& starts, int line, int column) {
    if (starts.empty()) return 0;
    size_t l = size_t(std::clamp(line, 1, int(starts.size())) - 1);
    size_t begin = starts[l];
    size_t end = l + 1 < starts.size() ? starts[l + 1] - 1 : text.size();
    return std::min(end, begin + size_t(std::max(column, 1) - 1));
}

}  // namespace kl::gui
