#include "course/lesson_plan.h"

#include "model/device_profile.h"

namespace kl {

std::vector<LessonPlan> plan_lessons_on(const std::vector<Lesson>& lessons, const std::vector<Ladder>& ladders,
                                        int device_cc) {
    std::vector<LessonPlan> plans;
    for (const auto& l : lessons) {
        LessonPlan p;
        p.lesson = &l;
        for (size_t i = 0; i < l.steps.size(); ++i) {
            const LessonStep& s = l.steps[i];
            if (s.rung.empty()) continue;
            ++p.live;
            const Rung* rung = nullptr;
            for (const auto& L : ladders)
                if (L.id == s.ladder) rung = L.find_rung(s.rung);
            std::string skip =
                rung ? rung_arch_refusal(*rung, device_cc) : "rung " + s.ladder + "/" + s.rung + " not loaded";
            if (skip.empty())
                ++p.runnable;
            else
                p.skips.push_back({static_cast<int>(i), skip});
        }
        plans.push_back(std::move(p));
    }
    return plans;
}

TrackShare track_share(const std::vector<LessonPlan>& plans, const std::string& track) {
    TrackShare t;
    for (const auto& p : plans)
        if (p.lesson->track == track) {
            t.live += p.live;
            t.runnable += p.runnable;
        }
    return t;
}

}  // namespace kl
