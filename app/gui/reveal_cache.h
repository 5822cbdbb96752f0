// The window's predict-then-reveal gate over the lesson (course/reveal.h, LessonRevealGate), built
// again only when the step or a commit changes, so that the strip's cards, the plots' bars and
// the tooltips ask a ready gate every frame rather than parse the lesson's predictions each time.
#pragma once
#include <cstdint>
#include <vector>

#include "course/reveal.h"

namespace kl::gui {

struct RevealCache {
    // What the gate was built from: the lesson and step, and which predict steps were committed.
    int lesson = -2, step = -2;
    std::vector<bool> committed;
    uint64_t generation = 0;  // changes at every rebuild (the strip and the plots build again)
    LessonRevealGate gate;
    // Test only (--plant-reveal-leak): gate the current step alone, as the window did before the
    // gate spanned the lesson, so that the reveal walk can show it catches the leak.
    bool current_step_only = false;
};

}  // namespace kl::gui
