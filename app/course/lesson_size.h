// How long a lesson is, as `kladder check-lessons` holds the core track to it (issue 37): a core
// lesson a learner can finish in a sitting has at most 12 steps and about 4,000 words. The
// appendix (lessons marked as needing sm_90) is listed with its counts but has no word limit.
#pragma once
#include <string>
#include <vector>

#include "course/lesson.h"

namespace kl {

// The limits past which check-lessons refuses a core lesson: 4,000 words is the target, and the
// 10% above it is room for a fix or a new sentence before a trim has to follow.
constexpr int kCoreLessonMaxWords = 4400;
constexpr int kCoreLessonMaxSteps = 12;

struct LessonSize {
    // What the learner reads: every step's Markdown as loaded (the reveal marker removed) and the
    // lesson's exercise text, split at whitespace as `wc -w` does, except that a binding
    // ({{ ... }}, a figure once rendered) is one word with whatever touches it. Both branches of a
    // conditional count.
    int words = 0;
    int steps = 0;
};
LessonSize measure_lesson(const Lesson& lesson);

// One line per lesson for the report: "05_softmax core: 12 steps, 3,981 words".
std::string lesson_size_line(const Lesson& lesson, const LessonSize& size);

// Offences, one line each: a core lesson over kCoreLessonMaxWords words or kCoreLessonMaxSteps
// steps, naming the lesson folder and the count.
std::vector<std::string> check_lesson_sizes(const std::vector<Lesson>& lessons);

}  // namespace kl
