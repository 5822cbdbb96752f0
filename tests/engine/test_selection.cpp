// One resolution of a run (issue 33): the window's selection (course/selection.h), `kladder run`
// (resolve_run, then the runner binds it to its GPU) and `kladder serve` (a request line decoded,
// then resolved) give every lesson step the same parameters, problem and launch geometry on a
// device profile, and the same one-line refusal for a value the device or the rung refuses.
#include <gtest/gtest.h>

#include <tuple>

#include "base/paths.h"
#include "course/lesson.h"
#include "course/selection.h"
#include "model/device_profile.h"
#include "model/manifest_load.h"
#include "model/run_plan.h"
#include "model/serve_protocol.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_selection {

namespace {

struct Course {
    std::vector<kl::Ladder> ladders;
    std::vector<kl::Lesson> lessons;
};

const Course& course() {
    static Course c = [] {
        Course out;
        std::vector<std::string> errors;
        out.ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
        out.lessons = kl::load_all_lessons(kl::lessons_dir(), out.ladders, nullptr);
        return out;
    }();
    return c;
}

const kl::Ladder& ladder(const std::string& id) {
    for (const auto& L : course().ladders)
        if (L.id == id) return L;
    throw std::runtime_error("no ladder " + id);
}

kl::SelectionDevice h100() {
    return {kl::load_device_profile(kl::assets_dir() + "/devices/sm_90_h100.json"), "from its profile"};
}

// The window's choice for a step, as Workbook::apply_step makes it.
kl::SelectionChoice window_choice(const kl::Ladder& L, const kl::LessonStep& st) {
    kl::SelectionChoice c;
    c.ladder = &L;
    c.rung = st.rung.empty() ? &L.rungs.front() : L.find_rung(st.rung);
    c.sizes.insert(L.default_sizes.begin(), L.default_sizes.end());
    for (const auto& [k, v] : st.sizes) c.sizes[k] = v;
    c.overrides = st.params;
    c.dtype = kl::parse_dtype(st.dtype).value_or(c.rung->dtypes.front());
    c.step = &st;
    return c;
}

// `kladder run LADDER --rung R --size ... -p ... --dtype D`: resolved before the GPU is opened,
// then bound to it by the runner.
kl::ResolvedRun cli_run(const kl::SelectionChoice& c, const kl::SelectionDevice& d) {
    kl::RunOptions o;
    o.sizes = c.sizes;
    o.params = c.overrides;
    o.dtype = c.dtype;
    kl::ResolvedRun run = kl::resolve_run(*c.ladder, *c.rung, o, 0);
    kl::bind_to_device(run, d.info.sm_count, d.info.limits);
    return run;
}

// The window's request as `kladder serve` reads it off its pipe, resolved on its GPU.
kl::ResolvedRun served_run(const kl::Selection& sel, const kl::SelectionChoice& c, const kl::SelectionDevice& d) {
    kl::RunRequest req;
    req.ladder = c.ladder->id;
    req.rung = c.rung->id;
    req.sizes = c.sizes;
    req.params = sel.params;
    req.dtype = c.dtype;
    kl::DecodedRequest line = kl::decode_request_line(kl::encode_line(req));
    EXPECT_TRUE(line.request) << line.problem;
    kl::ResolvedRun run = kl::resolve_run(*c.ladder, *c.rung, kl::run_options_of(line.request->run), d.info.sm_count);
    kl::bind_to_device(run, d.info.sm_count, d.info.limits);
    return run;
}

void expect_same(const kl::ResolvedRun& a, const kl::ResolvedRun& b, const std::string& where) {
    EXPECT_EQ(a.params, b.params) << where;
    EXPECT_EQ(a.problem.sizes, b.problem.sizes) << where;
    EXPECT_EQ(a.problem.dtype, b.problem.dtype) << where;
    EXPECT_EQ(a.label, b.label) << where;
    ASSERT_EQ(a.geometry.size(), b.geometry.size()) << where;
    for (size_t i = 0; i < a.geometry.size(); ++i) {
        EXPECT_EQ(a.geometry[i].spec, b.geometry[i].spec) << where;
        for (int k = 0; k < 3; ++k) {
            EXPECT_EQ(a.geometry[i].grid[k], b.geometry[i].grid[k]) << where << " grid " << k;
            EXPECT_EQ(a.geometry[i].block[k], b.geometry[i].block[k]) << where << " block " << k;
        }
        EXPECT_EQ(a.geometry[i].dynamic_smem, b.geometry[i].dynamic_smem) << where;
    }
}

TEST(Selection, EveryStepResolvesAlikeInTheWindowTheCliAndServe) {
    const kl::SelectionDevice d = h100();
    int compared = 0, refused = 0;
    for (const auto& lesson : course().lessons)
        for (size_t i = 0; i < lesson.steps.size(); ++i) {
            const kl::LessonStep& st = lesson.steps[i];
            if (st.ladder.empty()) continue;
            const std::string where = lesson.id + " step " + std::to_string(i + 1);
            const kl::SelectionChoice c = window_choice(ladder(st.ladder), st);
            ASSERT_NE(c.rung, nullptr) << where;
            const kl::Selection sel = kl::make_selection(c, d);
            if (!sel.refusal.empty()) {  // the CLI refuses it with the same line
                ++refused;
                try {
                    cli_run(c, d);
                    ADD_FAILURE() << where << ": the window refuses (" << sel.refusal << "), the CLI runs it";
                } catch (const kl::Error& e) { EXPECT_EQ(sel.refusal, e.what()) << where; }
                continue;
            }
            ASSERT_TRUE(sel.run) << where;
            EXPECT_TRUE(sel.run->bound_to(d.info.sm_count)) << where;
            EXPECT_FALSE(sel.run->geometry.empty() && !c.rung->launches.empty() && c.rung->launches[0].builtin.empty())
                << where;
            expect_same(*sel.run, cli_run(c, d), where + " (kladder run)");
            expect_same(*sel.run, served_run(sel, c, d), where + " (kladder serve)");
            ++compared;
        }
    EXPECT_GT(compared, 60) << "lesson steps with a rung, resolved three ways";
    EXPECT_LT(refused, 3) << "steps the H100 profile refuses";
}

// A slider value out of the device's limits and one the rung does not allow: the window's line
// is the line `kladder run` prints.
TEST(Selection, ARefusedSliderValueReadsTheSameEverywhere) {
    const kl::SelectionDevice d = h100();
    const kl::Ladder& L = ladder("elementwise");
    kl::SelectionChoice c;
    c.ladder = &L;
    c.rung = L.find_rung("vector_add");
    ASSERT_NE(c.rung, nullptr);
    c.sizes.insert(L.default_sizes.begin(), L.default_sizes.end());
    // TPB=100 is not a value the rung allows; mma_bf16 with 6 stages of 64-deep tiles asks more
    // shared memory than an RTX 3090 lets a block opt in to.
    c.overrides = {{"TPB", 100}};
    const kl::Selection not_allowed = kl::make_selection(c, d);
    const kl::Ladder& M = ladder("matmul");
    kl::SelectionChoice deep;
    deep.ladder = &M;
    deep.rung = M.find_rung("mma_bf16_lab");  // the lab rung: BK is a lab switch of mma_bf16
    ASSERT_NE(deep.rung, nullptr);
    deep.sizes.insert(M.default_sizes.begin(), M.default_sizes.end());
    deep.overrides = {{"STAGES", 6}, {"BK", 64}};
    deep.dtype = kl::DType::BF16;
    const kl::SelectionDevice rtx3090{kl::load_device_profile(kl::assets_dir() + "/devices/sm_86_rtx3090.json"), ""};
    const kl::Selection too_deep = kl::make_selection(deep, rtx3090);
    for (const auto& [choice, sel, dev] : {std::tuple{c, not_allowed, d}, std::tuple{deep, too_deep, rtx3090}}) {
        ASSERT_FALSE(sel.refusal.empty()) << choice.rung->id;
        EXPECT_FALSE(sel.run);
        for (const auto& [k, v] : choice.overrides)
            EXPECT_EQ(sel.params.at(k), v) << "the slider keeps showing the value it refuses";
        std::string cli;
        try {
            cli_run(choice, dev);
        } catch (const kl::Error& e) { cli = e.what(); }
        EXPECT_EQ(sel.refusal, cli) << choice.rung->id;
        EXPECT_EQ(kl::refusal_at(*choice.ladder, *choice.rung, choice.sizes, sel.params, choice.dtype, dev), cli);
    }
    EXPECT_NE(too_deep.refusal.find("196608 bytes > 101376 bytes"), std::string::npos) << too_deep.refusal;
    const kl::Resolution at = kl::resolve_at(M, *deep.rung, deep.sizes, too_deep.params, deep.dtype, rtx3090);
    EXPECT_TRUE(at.refused_by_device) << at.refusal;
    ASSERT_TRUE(at.run);
    EXPECT_EQ(at.run->geometry.at(0).dynamic_smem, 196608) << "the refused launch stays drawable";
    EXPECT_FALSE(kl::resolve_at(L, *c.rung, c.sizes, {{"TPB", 100}}, kl::DType::F32, d).refused_by_device);
}

TEST(Selection, DefaultSweepPoints) {
    const kl::Ladder& L = ladder("elementwise");
    const kl::Rung& r = *L.find_rung("vector_add");
    // A size: its powers of two up to the current value (at most 17), and the value itself.
    const auto n = kl::default_sweep_points(r, {{"n", 3000000}}, "n");
    ASSERT_EQ(n.size(), 18u);
    EXPECT_EQ(n.front(), int64_t(1) << 5);
    EXPECT_EQ(n[16], int64_t(1) << 21);
    EXPECT_EQ(n.back(), 3000000);
    // A parameter: the values it allows.
    EXPECT_EQ(kl::default_sweep_points(r, {}, "TPB"), r.find_param("TPB")->allowed());
    // A step's own values and ties win along its axis, and only there.
    kl::LessonStep st;
    st.sweep_axis = "n";
    st.sweep_values = {7, 9};
    kl::SelectionChoice c;
    c.ladder = &L;
    c.rung = &r;
    c.sizes = {{"n", 1 << 20}};
    c.step = &st;
    c.sweep_axis = "n";
    EXPECT_EQ(kl::sweep_of(c).values, (std::vector<int64_t>{7, 9}));
    c.sweep_axis = "TPB";
    EXPECT_EQ(kl::sweep_of(c).values, r.find_param("TPB")->allowed());
}

}  // namespace

}  // namespace kl_test_selection
