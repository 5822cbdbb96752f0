// "The device named is the device shown": lesson text shown under one GPU (a profile of
// assets/devices/, the learner's own, an exported results file's) must not present a figure
// measured on another GPU as that GPU's. The recordings are an H100's and an H200's; shown under
// an RTX 3090 a lesson's run and card figures are still theirs, and a sentence that names the
// RTX 3090 (or says "this GPU", or quotes `{{ device copy_gbps }}`, "this device's copy line")
// beside one must also name the GPU that measured it. No CUDA, no UI.
#pragma once
#include <string>
#include <vector>

#include "course/bindings.h"

namespace kl {

// A GPU's name without a profile's " (profile)": "NVIDIA T4 (profile)" -> "NVIDIA T4".
std::string device_gpu_name(const std::string& device);
// What prose calls the GPU: "H100" of "NVIDIA H100 80GB HBM3", "3090" of "NVIDIA GeForce RTX
// 3090 (profile)", "A100" of "NVIDIA A100-SXM4-40GB"; the whole name when no word has a digit.
std::string device_short_name(const std::string& device);

// A paragraph of a text that presents another GPU's measurement as the shown one's.
struct ForeignFigure {
    size_t offset = 0;     // the paragraph's first byte in the text
    std::string figure;    // "2,989 GB/s", as shown
    std::string measured;  // the GPU that measured it: "NVIDIA H100 80GB HBM3"
};
// Each paragraph of `text` (the whole text when a `{{ if }}` spans paragraphs) rendered with
// `sources`, whose shown GPU is `shown`, that holds a recorded measurement of another GPU without
// naming that GPU, while it presents the shown GPU: names it, says "this GPU", "your GPU", "this
// device" or "measured here", or the figure is a `{{ device ... }}` one. One entry per paragraph
// (its first such figure).
std::vector<ForeignFigure> foreign_figures(const std::string& text, const NumberSources& sources,
                                           const std::string& shown);

// Each sentence of `text` (rendered with `sources`, shown GPU `shown`) that claims the shown GPU
// ("your GPU", "this GPU", "this device", "measured here") while it quotes a `{{ device ... }}`
// card figure the shown GPU borrows from another GPU's card: "measures a copy on your GPU ...:
// here it is 2,989 GB/s on the H100" names the H100 and still says the figure is the learner's.
// Branch on `{{ if device own_rates == 1 }}` instead. One entry per sentence.
std::vector<ForeignFigure> borrowed_as_own(const std::string& text, const NumberSources& sources,
                                           const std::string& shown);

}  // namespace kl
