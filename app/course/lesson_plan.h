// Which of a lesson's live steps a device can run, from the rungs' architecture requirements
// (rung_arch_refusal, device_profile.h) and nothing else: `kladder list lessons --plan-on PROFILE`
// counts them, and a test holds the core track to running on the RTX 3090's sm_86.
#pragma once
#include <string>
#include <vector>

#include "course/lesson.h"

namespace kl {

struct StepPlan {
    int step = 0;      // index into Lesson::steps
    std::string skip;  // why the device cannot run the step's rung ("" when it can)
};

struct LessonPlan {
    const Lesson* lesson = nullptr;
    int live = 0;                 // steps that run a rung
    int runnable = 0;             // of those, the steps the device can run
    std::vector<StepPlan> skips;  // the live steps it cannot run, in step order
};

// Every lesson's live steps on a device of compute capability `device_cc`. A step whose ladder
// or rung is not loaded counts as live and not runnable (load_lesson refuses such a lesson).
std::vector<LessonPlan> plan_lessons_on(const std::vector<Lesson>& lessons, const std::vector<Ladder>& ladders,
                                        int device_cc);

struct TrackShare {
    int live = 0, runnable = 0;
};
// The live and runnable steps of one track ("core" or "appendix") summed over its lessons.
TrackShare track_share(const std::vector<LessonPlan>& plans, const std::string& track);

}  // namespace kl
