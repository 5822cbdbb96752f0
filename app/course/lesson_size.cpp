#include "course/lesson_size.h"

#include <cctype>
#include <filesystem>

namespace kl {

namespace {
// A binding ({{ ... }}) renders as a figure or a name, so it counts as one word however long its
// source: a limit on its markup would push a lesson to drop measured figures rather than prose.
int count_lesson_words(const std::string& text) {
    int words = 0;
    bool in_word = false;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 2, "{{") == 0) {
            size_t close = text.find("}}", i + 2);
            if (close != std::string::npos) {
                if (!in_word) ++words;
                in_word = true;
                i = close + 1;
                continue;
            }
        }
        const bool space = std::isspace(static_cast<unsigned char>(text[i])) != 0;
        if (!space && !in_word) ++words;
        in_word = !space;
    }
    return words;
}

// 4400 -> "4,400": the counts read as the lessons write numbers.
std::string with_thousands_separator(int n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string lesson_folder_path(const Lesson& lesson) { return lesson.dir.empty() ? lesson.id : lesson.dir; }
}  // namespace

LessonSize measure_lesson(const Lesson& lesson) {
    LessonSize size;
    size.steps = static_cast<int>(lesson.steps.size());
    for (const auto& s : lesson.steps) size.words += count_lesson_words(s.text);
    size.words += count_lesson_words(lesson.exercise_text);
    return size;
}

std::string lesson_size_line(const Lesson& lesson, const LessonSize& size) {
    std::string folder = std::filesystem::path(lesson_folder_path(lesson)).filename().string();
    std::string track = lesson.appendix() ? "appendix, needs " + lesson.needs + ", no word limit" : "core";
    return folder + " (" + track + "): " + std::to_string(size.steps) + " steps, " +
           with_thousands_separator(size.words) + " words";
}

std::vector<std::string> check_lesson_sizes(const std::vector<Lesson>& lessons) {
    std::vector<std::string> offences;
    for (const auto& l : lessons) {
        if (l.appendix()) continue;
        LessonSize size = measure_lesson(l);
        if (size.words > kCoreLessonMaxWords)
            offences.push_back(lesson_folder_path(l) + ": " + with_thousands_separator(size.words) +
                               " words, over the core track's " + with_thousands_separator(kCoreLessonMaxWords) +
                               " (steps' Markdown and the exercise): trim it or move steps to the appendix");
        if (size.steps > kCoreLessonMaxSteps)
            offences.push_back(lesson_folder_path(l) + ": " + std::to_string(size.steps) +
                               " steps, over the core track's " + std::to_string(kCoreLessonMaxSteps));
    }
    return offences;
}

}  // namespace kl
