// The class handout as print pages: class.pdf of the class folder (`kladder class merge`,
// docs/class-mode.md). The same content as class.md, from the same merge (course/class_merge.h)
// and the same figures (class_handout.h), laid out on US Letter pages with cairo: per exercise the
// leaderboard by share of each device's roof, one by time per device, the two figures, the
// submissions not ranked with their reasons, the two best kernels side by side; then the files
// not merged. Every page names the class key and its number.
#pragma once
#include <string>

#include "course/class_merge.h"

namespace kl::report {

// The PDF's bytes; throws InputError when cairo fails (nothing is written by the caller).
std::string class_handout_pdf(const ClassMerge& m, const std::string& key_id);

}  // namespace kl::report
