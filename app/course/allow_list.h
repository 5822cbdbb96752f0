// The allow-list of numbers a lesson may type (lessons/numbers_allowed.toml, docs/formats.md
// section 3): each with its source and its kind. A number that is true on every GPU (the
// arithmetic of an algorithm or a format, a figure a question poses, a goal's threshold) is of
// kind "algorithm"; a figure of a datasheet, paper, lecture or tuning note is a "citation", and
// the paragraph that types it must name whose figure it is (`names`), so that a learner on
// another GPU never reads it as their own. A figure of the device shown is never listed: it is a
// binding (`{{ device sm_count }}`, `{{ = ... }}`). No CUDA, no UI.
#pragma once
#include <string>
#include <vector>

namespace kl {

struct AllowedNumber {
    std::string lesson;  // lesson folder name ("01_first_kernel"), or "*" for any
    std::string text;    // the number with its unit exactly as written ("3.35 TB/s")
    std::string source;  // where it comes from (datasheet, paper, arithmetic of a worked example)
    std::string kind;    // "algorithm" or "citation"
    std::string names;   // a citation: what its paragraph must name ("H100", "CS336", "FlashAttention-3")
    // A figure typed before check-lessons refused its kind (issue 35), still to be bound: let
    // through and counted, so the list can only shrink (an unused entry is an offence).
    bool pending = false;
    int line = 0;
    mutable bool used = false;
};
// Numbers a lesson may not type unbound: with a unit of time, bandwidth or FLOP rate in `text` ("2,777 GB/s", "0.92
// ms"), or a memory size in binary units ("24 GiB"), with their byte offsets.
struct UnitNumber {
    size_t pos = 0;
    std::string text;
};
std::vector<UnitNumber> find_unit_numbers(const std::string& text);

// Throws InputError "<path>:<line>: <field>: <problem>". A missing file is an empty list.
std::vector<AllowedNumber> load_allowed_numbers(const std::string& path);

// A citation's typing at `pos` of `text` is honest when the paragraph around it (the lines
// between blank lines; a table's with its caption paragraph) names `names` (or one of its
// `|`-separated alternatives): "" when it does, else the offence's reason.
std::string citation_unnamed(const AllowedNumber& a, const std::string& text, size_t pos);

}  // namespace kl
