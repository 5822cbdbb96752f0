// A lesson's handout for class notes: Markdown (and HTML from it) with the step texts, the
// exported figures linked by relative paths, and the key numbers of every ladder it runs.
#pragma once
#include <string>
#include <vector>

#include "course/calculator.h"
#include "course/lesson.h"
#include "report/key_numbers.h"

namespace kl::report {

enum class HandoutEdition {
    Student,     // no answers, no key numbers: each prediction a blank to fill
    Instructor,  // the answers, what this device measured for each prediction, key numbers, the device
};
// "student" / "instructor" (nullopt for anything else).
std::optional<HandoutEdition> handout_edition_from_name(const std::string& name);
const char* handout_edition_name(HandoutEdition edition);

// One figure of a step: file names relative to the handout, or why there is none.
struct HandoutFigure {
    std::string title, caption;
    std::string png, svg, pdf;
    std::string missing;  // non-empty: not exported, and why
    size_t same_as = 0;   // > 0: byte-identical to step same_as's figure (numbered from 1), not repeated
    // A step without predict whose figure draws a run that a later step asks to predict: on paper
    // it follows the predictions, with the predict steps' figures (course/reveal.h).
    bool waits = false;
};

// A row of the instructor edition's device table: "SMs", "132".
struct DeviceFact {
    std::string name, value;
};

struct HandoutInput {
    const Lesson* lesson = nullptr;
    HandoutEdition edition = HandoutEdition::Instructor;
    std::string results_name;              // the results copy beside the handout ("results.json")
    std::string source;                    // "NVIDIA H100 80GB HBM3, measured 2026-11-22 with kladder 0.1.0"
    std::vector<DeviceFact> device_table;  // instructor edition
    // [instructor] per step: what this device measured for the step's prediction ("4,372 GB/s"), or ""
    std::vector<std::string> step_measured;
    std::vector<HandoutFigure> step_figures;  // one per lesson step (empty title: the step has no plot)
    std::vector<KeyTable> tables;
    // Numbers quoted in the text ("[3]" after each): where each came from, in order.
    std::vector<std::string> number_sources;
    // [calculator] the inputs a `tool = "calculator"` step's table is printed with, and where
    // its rates came from
    CalculatorInputs calculator;
    std::string calculator_source = "the datasheet's dense bf16 peak, 989 TFLOP/s";
    // [timeline] per step: the traced run's kernel table (timeline_table.h) and its CSV's name, or ""
    std::vector<std::string> step_timelines, step_timeline_csv;
    // Predict, then reveal: per step, its text past `<!-- reveal -->` with every number bound. A
    // step with predict is printed as the window shows it before the prediction (the figure
    // withheld, course/reveal.h); this part, its figure and its why follow all the steps.
    std::vector<std::string> step_reveals;
    // For print (handout.pdf): no links to the figure and CSV files beside the handout.
    bool print = false;
};

std::string handout_markdown(const HandoutInput& in);

// Markdown to a standalone HTML page (md4c, GitHub dialect). Throws InputError if md4c fails.
std::string markdown_to_html(const std::string& markdown, const std::string& title);

// Headings of embedded text moved `levels` deeper (outside code fences), so a step's own
// "# ..." stays below the step heading.
std::string demote_headings(const std::string& markdown, int levels);

}  // namespace kl::report
