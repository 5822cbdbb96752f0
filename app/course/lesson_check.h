// `kladder check-lessons`: the lessons quote only numbers they can stand behind. Every binding
// must resolve against the recordings; every other number with a unit of time, bandwidth or
// FLOP rate must stand on the allow-list (lessons/numbers_allowed.toml) with its source (a
// datasheet, a paper, a worked example's arithmetic); the device cards must equal what
// `kladder make-cards` makes from the recordings today. No CUDA, no UI.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "course/allow_list.h"
#include "course/bindings.h"
#include "course/lesson.h"

namespace kl {

// One place a lesson says something: "lessons/01_first_kernel/02_memory.md" or
// "lessons/01_first_kernel/lesson.toml: step[3].question", and the text found there.
struct LessonText {
    std::string where, text;
};
std::vector<LessonText> lesson_texts(const Lesson& lesson);

// Bare numbers in the columns of Markdown tables whose header cell or caption names such a unit
// ("| naive ms |", "..., in TFLOP/s:"), as "<number> <unit>" at the cell's offset.
std::vector<UnitNumber> find_table_unit_numbers(const std::string& text);

// Every offence, one line each ("<where>: <problem>"); empty when the lessons are clean.
std::vector<std::string> check_lessons(const std::vector<Lesson>& lessons, const NumberSources& sources,
                                       const std::vector<AllowedNumber>& allowed);

// Every lesson read under each device (a profile of assets/devices/, by its path): the device
// facts, conditions and computations over them must resolve, and no percentage of a roof may
// pass 100, and no figure another GPU measured may stand beside the device without naming its GPU
// (course/device_named.h). Sets and then clears `sources`' device.
std::vector<std::string> check_lessons_on_devices(const std::vector<Lesson>& lessons, NumberSources& sources,
                                                  const std::vector<std::pair<std::string, DeviceInfo>>& devices);

// Lines naming each committed card that differs from the one the recordings make today, and
// each card the recordings make that is not committed.
std::vector<std::string> check_device_cards(const NumberSources& sources, const std::string& cards_dir);

}  // namespace kl
