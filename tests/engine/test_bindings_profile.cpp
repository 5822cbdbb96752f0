// Profiling bindings (course/bound_kernels.h): a run's traced repetition (launches, span, gaps,
// each kernel's time and name) and a torch.profiler recording of the same forward as a peer
// (`peer/profile_mlp`: kernels, gpu_us, span_us, gap_us, cpu_us, launch_us, kernelN_*); a value
// off the schema is refused with one line naming the file, the field and the value.
#include <gtest/gtest.h>

#include "course/bindings.h"
#include "course/bound_kernels.h"
#include "course/device_named.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_bindings_profile {

using namespace kl;

namespace {

Binding only_binding(const std::string& text) {
    std::vector<std::string> errors;
    auto bs = find_bindings(text, &errors);
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
    EXPECT_EQ(bs.size(), 1u);
    return bs.empty() ? Binding{} : bs[0];
}

RunRecord traced_run(int64_t tpb) {
    RunRecord r;
    r.ladder = "tiny";
    r.rung = "one";
    r.params = {{"TPB", tpb}};
    r.sizes = {{"n", 1000}};
    r.timing = TimingStats{};
    r.timing->median_ms = 3.2;
    // Three kernels: a GEMM, an elementwise kernel 4 µs later, a second GEMM 6 µs after that.
    r.timeline = make_timeline({{"nvjet_tst_256x128_64x4_2x1_v_bz_coopB_NNT", 0, 1500},
                                {"_ZN2at6native29vectorized_elementwise_kernelILi4EEEvi", 1504, 1684},
                                {"void gemm_kernel<float, 128>(float*, int)", 1690, 3190}},
                               3.2);
    return r;
}

ResultsFile results_of(std::vector<RunRecord> runs) {
    ResultsFile f;
    f.created = "2026-11-30T09:30:00Z";
    f.device = DeviceInfo{};
    f.device->name = "Test GPU";
    f.runs = std::move(runs);
    return f;
}

// A profile entry as scripts/peers/torch_profile_mlp.py writes it, with `extra` merged in.
std::string profile_file(const std::string& extra_eager = "") {
    return R"J([{"what": "device", "name": "Test GPU", "torch": "2.11.0+cu130"},
 {"what": "profile_mlp", "mode": "eager", "T": 64, "D": 1024, "F": 4096, "dtype": "bf16",
  "tool": "torch.profiler", "kernels": 3,
  "kernel_list": [{"name": "nvjet_tst_64x8_64x16_4x1_v_bz_TNT", "us": 9.5},
                  {"name": "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(int)", "us": 2.25},
                  {"name": "nvjet_tst_64x8_64x16_4x1_v_bz_TNN", "us": 8.0}],
  "gpu_us": 19.75, "span_us": 41.5, "gap_us": 21.75, "cpu_us": 88.0, "launch_us": 5.5, "ms": 0.031)J" +
           extra_eager + R"J(},
 {"what": "profile_mlp", "mode": "compile", "T": 64, "D": 1024, "F": 4096, "dtype": "bf16",
  "tool": "torch.profiler", "kernels": 2,
  "kernel_list": [{"name": "triton_poi_fused_gelu_0", "us": 2.0}, {"name": "nvjet_tst_64x8_64x16_4x1_v_bz_TNN", "us": 8.0}],
  "gpu_us": 10.0, "span_us": 20.0, "gap_us": 10.0, "cpu_us": 60.0, "launch_us": 4.0, "ms": 0.025}]
)J";
}

}  // namespace

TEST(BoundKernels, ParsesKernelMetricsAndShortensNames) {
    ASSERT_TRUE(parse_kernel_metric("kernel12_us"));
    EXPECT_EQ(parse_kernel_metric("kernel12_us")->index, 12);
    EXPECT_EQ(parse_kernel_metric("kernel2_name")->part, "name");
    EXPECT_FALSE(parse_kernel_metric("kernel0_us"));  // kernels count from 1
    EXPECT_FALSE(parse_kernel_metric("kernel1_gbps"));
    EXPECT_FALSE(parse_kernel_metric("kernel_us"));
    EXPECT_EQ(short_kernel_name("nvjet_tst_64x8_64x16_4x1_v_bz_TNT"), "nvjet_tst_64x8_64x16_4x1_v_bz_TNT");
    EXPECT_EQ(short_kernel_name("_ZN2at6native29vectorized_elementwise_kernelILi4EEEvi"),
              "at::native::vectorized_elementwise_kernel\xE2\x80\xA6");
    EXPECT_EQ(short_kernel_name("void gemm_kernel<float, 128>(float*, int)"), "gemm_kernel\xE2\x80\xA6");
    EXPECT_EQ(short_kernel_name(std::string(100, 'k')), std::string(80, 'k') + "\xE2\x80\xA6");
}

// The H100's card as these tests need it: a copy line of 3,000 GB/s.
DeviceCard h100_card_with_copy_line() {
    DeviceCard card;
    card.path = "rec/cards/nvidia_h100_80gb_hbm3.json";
    card.device = "NVIDIA H100 80GB HBM3";
    card.date = "2026-11-22";
    card.doc = {{"values", {{"copy_gbps", {{"value", 3000}, {"unit", "GB/s"}}}}}};
    return card;
}

// A traced run answers launches, span, gaps, traced time and each kernel's time and name; a
// kernel the repetition does not hold, or a run without a timeline, is said, not guessed.
TEST(BindingsProfile, TimelineMetricsOfARun) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    RunRecord plain = traced_run(32);
    plain.timeline.reset();
    s.add_recorded(results_of({traced_run(256), plain}), "rec/traced.json");
    auto value = [&](const std::string& text) {
        BoundValue v = s.resolve(only_binding(text));
        EXPECT_TRUE(v.ok) << text << ": " << v.error;
        return v;
    };
    EXPECT_EQ(value("{{ tiny/one launches }}").shown, "3");
    EXPECT_DOUBLE_EQ(value("{{ tiny/one span_us }}").value, 3190);
    EXPECT_NEAR(value("{{ tiny/one gap_us }}").value, 10, 1e-9);
    EXPECT_EQ(value("{{ tiny/one span_us }}").shown, "3,190 µs");
    EXPECT_DOUBLE_EQ(value("{{ tiny/one traced_us }}").value, 3180);
    EXPECT_DOUBLE_EQ(value("{{ tiny/one kernel2_us }}").value, 180);
    EXPECT_DOUBLE_EQ(value("{{ tiny/one kernel3_ms }}").value, 1.5);
    EXPECT_DOUBLE_EQ(value("{{ tiny/one kernel1_ms }}").value, 1.5);  // as before the kernelN form
    BoundValue name = value("{{ tiny/one kernel2_name }}");
    EXPECT_TRUE(name.text);
    EXPECT_EQ(name.shown, "at::native::vectorized_elementwise_kernel\xE2\x80\xA6");

    BoundValue past = s.resolve(only_binding("{{ tiny/one kernel4_us }}"));
    EXPECT_FALSE(past.ok);
    EXPECT_NE(past.error.find("holds 3 kernels, not 4"), std::string::npos) << past.error;
    BoundValue untraced = s.resolve(only_binding("{{ tiny/one gap_us TPB=32 }}"));
    EXPECT_FALSE(untraced.ok);
    EXPECT_NE(untraced.error.find("has no timeline"), std::string::npos) << untraced.error;
    // A name is not a number: arithmetic over it is refused.
    BoundValue sum = s.resolve(only_binding("{{ = tiny/one kernel1_name + 1 }}"));
    EXPECT_FALSE(sum.ok);
    // The kernels' times are the run's time measured again: a prediction of `ms` withholds them;
    // the gaps and the launch count are figures of their own.
    EXPECT_EQ(run_metric_family("kernel2_us"), "time");
    EXPECT_EQ(run_metric_family("span_us"), "time");
    EXPECT_NE(run_metric_family("gap_us"), "time");
    EXPECT_NE(run_metric_family("launches"), "time");
}

TEST(BindingsProfile, ProfilerFiguresOfAPeer) {
    TempTree t;
    t.write("rec/peers/test_2026-11-30_profile_mlp.json", profile_file());
    NumberSources s(nullptr);
    std::vector<std::string> errors;
    s.load_recorded(t.path("rec"), &errors);
    ASSERT_TRUE(errors.empty()) << errors[0];
    auto value = [&](const std::string& text) {
        BoundValue v = s.resolve(only_binding(text));
        EXPECT_TRUE(v.ok) << text << ": " << v.error;
        return v;
    };
    EXPECT_EQ(value("{{ peer/profile_mlp kernels mode=eager T=64 }}").shown, "3");
    EXPECT_EQ(value("{{ peer/profile_mlp kernels mode=compile T=64 }}").shown, "2");
    EXPECT_EQ(value("{{ peer/profile_mlp gap_us mode=eager T=64 }}").shown, "21.8 µs");
    EXPECT_DOUBLE_EQ(value("{{ peer/profile_mlp gpu_us mode=eager T=64 }}").value, 19.75);
    EXPECT_DOUBLE_EQ(value("{{ peer/profile_mlp span_us mode=eager T=64 }}").value, 41.5);
    EXPECT_DOUBLE_EQ(value("{{ peer/profile_mlp cpu_us mode=eager T=64 }}").value, 88);
    EXPECT_DOUBLE_EQ(value("{{ peer/profile_mlp launch_us mode=compile T=64 }}").value, 4);
    EXPECT_DOUBLE_EQ(value("{{ peer/profile_mlp us mode=compile T=64 }}").value, 25);  // ms, the peers' protocol
    EXPECT_DOUBLE_EQ(value("{{ peer/profile_mlp kernel2_us mode=eager T=64 }}").value, 2.25);
    EXPECT_EQ(value("{{ peer/profile_mlp kernel2_name mode=eager T=64 }}").shown,
              "at::native::vectorized_elementwise_kernel\xE2\x80\xA6");
    EXPECT_EQ(value("{{ peer/profile_mlp kernel1_name mode=compile }}").shown, "triton_poi_fused_gelu_0");
    BoundValue device = value("{{ peer/profile_mlp device mode=compile }}");
    EXPECT_TRUE(device.text);
    EXPECT_EQ(device.shown, "Test GPU");
    BoundValue past = s.resolve(only_binding("{{ peer/profile_mlp kernel3_us mode=compile }}"));
    EXPECT_FALSE(past.ok);
    EXPECT_NE(past.error.find("kernel_list holds 2 kernels, not 3"), std::string::npos) << past.error;
    BoundValue unknown = s.resolve(only_binding("{{ peer/profile_mlp kernel1_ms mode=compile }}"));
    EXPECT_FALSE(unknown.ok);
    EXPECT_NE(unknown.error.find("is not gbps"), std::string::npos) << unknown.error;
}

// Each kind of value off the schema: refused with the file, the field and the value, not skipped
// for an older session's figure.
TEST(BindingsProfile, AProfileValueOffTheSchemaIsOneLine) {
    struct Case {
        std::string extra, binding, expect;
    };
    const Case cases[] = {
        {R"(, "gap_us": "lots")", "gap_us", "gap_us: \"lots\" is not a time"},
        {R"(, "cpu_us": -3)", "cpu_us", "cpu_us: -3 is not a time"},
        {R"(, "kernels": 2.5)", "kernels", "kernels: 2.5 is not a count"},
        {R"(, "kernel_list": {"a": 1})", "kernel1_us", "kernel_list: {\"a\":1} is not a list"},
        {R"(, "kernel_list": [{"us": 3}])", "kernel1_name", "kernel_list[0]: {\"us\":3} has no name"},
        {R"(, "kernel_list": [{"name": "k", "us": "x"}])", "kernel1_us", "kernel_list[0].us: \"x\" is not a time"},
    };
    for (const Case& c : cases) {
        TempTree t;
        // The same entry twice: duplicate keys in a JSON object keep the last, so `extra` wins.
        const std::string path = t.write("rec/peers/test_2026-11-30_profile_mlp.json", profile_file(c.extra));
        t.write("rec/peers/test_2026-11-29_older.json", profile_file());
        NumberSources s(nullptr);
        std::vector<std::string> errors;
        s.load_recorded(t.path("rec"), &errors);
        BoundValue v = s.resolve(only_binding("{{ peer/profile_mlp " + c.binding + " mode=eager }}"));
        EXPECT_FALSE(v.ok) << c.extra;
        EXPECT_NE(v.error.find(c.expect), std::string::npos) << v.error;
        EXPECT_EQ(v.error.rfind(path, 0), 0u) << v.error;
        EXPECT_EQ(v.error.find('\n'), std::string::npos);
    }
}

// The device named is the device shown: under a profile with no card or recording of its own, a
// `{{ device ... }}` figure another GPU's card answers names that GPU, and a paragraph that shows
// the profile's GPU beside another GPU's run without naming it is found.
TEST(BindingsProfile, AnotherGpusFigureUnderAProfileNamesItsGpu) {
    EXPECT_EQ(device_short_name("NVIDIA H100 80GB HBM3"), "H100");
    EXPECT_EQ(device_short_name("NVIDIA GeForce RTX 3090 (profile)"), "3090");
    EXPECT_EQ(device_short_name("NVIDIA A100-SXM4-40GB (profile)"), "A100");
    EXPECT_EQ(device_gpu_name("NVIDIA T4 (profile)"), "NVIDIA T4");
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    ResultsFile h100 = results_of({traced_run(256)});
    h100.device->name = "NVIDIA H100 80GB HBM3";
    s.add_recorded(h100, "rec/h100_tiny.json");
    s.add_card(h100_card_with_copy_line());
    DeviceInfo rtx;
    rtx.name = "NVIDIA GeForce RTX 3090 (profile)";
    s.set_device(rtx, "sm_86_rtx3090.json");
    EXPECT_EQ(s.render("copy line {{ device copy_gbps }}"), "copy line 3,000 GB/s on the H100");
    EXPECT_EQ(s.render("{{ device copy_gbps | bare }}"), "3,000 (H100)");
    EXPECT_EQ(s.render("{{ = device copy_gbps * 2 }}"), "6,000 GB/s on the H100");
    EXPECT_EQ(s.render("{{ = device copy_gbps / 6000 | pct .0 }} of it"), "50% (H100) of it");
    EXPECT_EQ(s.render("{{ device copy_gbps card=nvidia_h100_80gb_hbm3 }}"), "3,000 GB/s");  // named by card=
    const std::string text =
        "On the {{ device name }} the run took {{ tiny/one ms }}.\n\n"  // the 3090's? no: the H100's
        "The {{ tiny/one device }} measured {{ tiny/one ms }}.\n\n"     // named
        "A run took {{ tiny/one ms }}.\n\n"                             // no device shown
        "This GPU copies at {{ device copy_gbps }}.";                   // named by the label
    std::vector<ForeignFigure> found = foreign_figures(text, s, rtx.name);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].offset, 0u);
    EXPECT_EQ(found[0].figure, "3.20 ms");
    EXPECT_EQ(found[0].measured, "NVIDIA H100 80GB HBM3");
    // Shown as the H100 (its own profile), the same figures are its own: no name added, none found.
    DeviceInfo h100_profile;
    h100_profile.name = "NVIDIA H100 80GB HBM3 (profile)";
    s.set_device(h100_profile, "sm_90_h100.json");
    EXPECT_EQ(s.render("{{ device copy_gbps }}"), "3,000 GB/s");
    EXPECT_TRUE(foreign_figures(text, s, h100_profile.name).empty());
}

// One GPU per computed figure: under a profile whose GPU has no card, "copy line / SM count" is
// not the H100's copy line over the RTX 3090's SMs (a figure of no GPU) but the H100's whole,
// named; so is a figure of a run only another GPU recorded, set against a device fact. Two
// recordings of two GPUs are a comparison the text names: left as written, and its GPUs listed
// for check-lessons (lesson_check.h).
TEST(BindingsProfile, AComputationIsOneGpus) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    ResultsFile h100 = results_of({traced_run(256)});
    h100.device->name = "NVIDIA H100 80GB HBM3";
    h100.device->sm_count = 132;
    s.add_recorded(h100, "rec/h100_tiny.json");
    ResultsFile h200 = results_of({traced_run(256)});
    h200.device->name = "NVIDIA H200";
    h200.device->sm_count = 132;
    h200.runs[0].timing->median_ms = 1.6;
    s.add_recorded(h200, "rec/h200_tiny.json");
    s.add_card(h100_card_with_copy_line());
    DeviceInfo rtx;
    rtx.name = "NVIDIA GeForce RTX 3090 (profile)";
    rtx.sm_count = 82;
    s.set_device(rtx, "sm_86_rtx3090.json");
    EXPECT_EQ(s.render("{{ device sm_count }} SMs"), "82 SMs");  // alone, the profile's own fact
    // 3,000 / 132 on the H100, not 3,000 / 82.
    EXPECT_EQ(s.render("{{ = device copy_gbps / device sm_count | .0 }}"), "23 GB/s on the H100");
    std::vector<std::string> errors;
    auto per_sm = find_bindings("{{ = device copy_gbps / device sm_count | .0 }}", &errors);
    ASSERT_EQ(per_sm.size(), 1u);
    EXPECT_EQ(s.resolve(per_sm[0]).gpus, std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
    EXPECT_FALSE(s.resolve(per_sm[0]).as_shown_device);  // named, no longer stated as the 3090's
    // The H100's run (the preferred recording) times the SM count: the H100's 132, named.
    EXPECT_EQ(s.render("{{ = tiny/one ms * device sm_count | bare .0 }}"), "422 (H100)");
    EXPECT_EQ(s.render("{{ = tiny/one ms from=h200_tiny * device sm_count | bare .0 }}"), "211 (H200)");
    // Two GPUs' runs: a comparison, not moved; check-lessons refuses the 3090's SMs beside them.
    auto two = find_bindings(
        "{{ = tiny/one ms from=h100_tiny / tiny/one ms from=h200_tiny * device sm_count | bare .0 }}", &errors);
    ASSERT_EQ(two.size(), 1u);
    EXPECT_EQ(s.resolve(two[0]).shown, "164");  // 3.2 / 1.6 x 82
    EXPECT_EQ(s.resolve(two[0]).gpus.size(), 3u);
    // The H100's own profile has its card: nothing moves, nothing is named.
    DeviceInfo h100_profile;
    h100_profile.name = "NVIDIA H100 80GB HBM3 (profile)";
    h100_profile.sm_count = 132;
    s.set_device(h100_profile, "sm_90_h100.json");
    EXPECT_EQ(s.render("{{ = device copy_gbps / device sm_count | .0 }}"), "23 GB/s");
    EXPECT_EQ(s.render("{{ = tiny/one ms * device sm_count | bare .0 }}"), "422");
}

// `{{ device own_rates }}`: whether the card figures a text shows are the shown GPU's own, for a
// sentence that must say so when a profile borrows the H100's copy line ("on your GPU ... 2,989
// GB/s on the H100" is two GPUs in one breath).
TEST(BindingsProfile, OwnRatesSaysWhetherTheCardFiguresAreTheShownGpus) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_card(h100_card_with_copy_line());
    const std::string text = "{{ if device own_rates == 1 }}its own{{ else }}borrowed{{ end }}";
    EXPECT_EQ(s.render(text), "its own");  // no device set: the preferred recorded device, its card
    DeviceInfo rtx;
    rtx.name = "NVIDIA GeForce RTX 3090 (profile)";
    s.set_device(rtx, "sm_86_rtx3090.json");
    EXPECT_EQ(s.render("{{ device own_rates }}"), "0");
    EXPECT_EQ(s.render(text), "borrowed");
    DeviceInfo h100_profile;
    h100_profile.name = "NVIDIA H100 80GB HBM3 (profile)";
    s.set_device(h100_profile, "sm_90_h100.json");
    EXPECT_EQ(s.render(text), "its own");
    // The learner's RTX 3090 with a calibration of its own: its copy line is its own.
    DeviceInfo live;
    live.name = "NVIDIA GeForce RTX 3090";
    s.set_device(live, "this device");
    EXPECT_EQ(s.render(text), "borrowed");
    Calibration c;
    c.copy_gbps = 850;
    c.measured_at = "2026-12-01T02:00:00Z";
    s.set_live_calibration(c, live.name, "calibration.json");
    EXPECT_EQ(s.render(text), "its own");
    std::vector<std::string> errors;
    auto pinned = find_bindings("{{ device own_rates card=nvidia_h100_80gb_hbm3 }}", &errors);
    ASSERT_EQ(pinned.size(), 1u);
    EXPECT_FALSE(s.resolve(pinned[0]).ok);
}

// A sentence that says a figure is the learner's ("on your GPU ... here it is") while the figure
// is another GPU's card, borrowed by a profile, is found even though the figure names its GPU.
TEST(BindingsProfile, ABorrowedCardFigureInASentenceAboutYourGpuIsFound) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_card(h100_card_with_copy_line());
    DeviceInfo rtx;
    rtx.name = "NVIDIA GeForce RTX 3090 (profile)";
    s.set_device(rtx, "sm_86_rtx3090.json");
    const std::string text =
        "Kernel Ladder measures a copy on your GPU at first start: here it is {{ device copy_gbps }}.\n\n"
        "No copy has been measured on the {{ device name }} yet. Another GPU's line: {{ device copy_gbps }}.\n\n"
        "The line is drawn on the plots. This GPU has {{ device sm_count }} SMs; the borrowed line is "
        "{{ device copy_gbps card=nvidia_h100_80gb_hbm3 }}.";
    std::vector<ForeignFigure> found = borrowed_as_own(text, s, rtx.name);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].offset, 0u);
    EXPECT_EQ(found[0].figure, "3,000 GB/s on the H100");
    EXPECT_EQ(found[0].measured, "NVIDIA H100 80GB HBM3");
    DeviceInfo h100_profile;
    h100_profile.name = "NVIDIA H100 80GB HBM3 (profile)";
    s.set_device(h100_profile, "sm_90_h100.json");
    EXPECT_TRUE(borrowed_as_own(text, s, h100_profile.name).empty());  // its own card
}

}  // namespace kl_test_bindings_profile
