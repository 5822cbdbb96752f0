// Bindings to what a run recorded beside its time: launch resources (course/bound_resources.h: the
// registers per thread of the main launch, its allocated registers per block, resident blocks and
// occupancy) and hardware counters (course/bound_counters.h: shared-memory bank conflicts). A
// recording without them leaves the binding unresolved, never 0.
#include <gtest/gtest.h>

#include "course/bindings.h"
#include "course/bound_counters.h"
#include "course/bound_resources.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_bindings_run_facts {

using namespace kl;

namespace {

Binding resources_binding(const std::string& text) {
    std::vector<std::string> errors;
    auto bs = find_bindings(text, &errors);
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
    EXPECT_EQ(bs.size(), 1u);
    return bs.empty() ? Binding{} : bs[0];
}

RunRecord timed_run(int64_t tpb) {
    RunRecord r;
    r.ladder = "tiny";
    r.rung = "one";
    r.params = {{"TPB", tpb}};
    r.sizes = {{"n", 1000}};
    r.timing = TimingStats{};
    r.timing->median_ms = 1.0;
    return r;
}

// One launch of `threads` threads at `regs` registers per thread on an H100-like SM.
LaunchResources launch_of(const std::string& entry, int regs, int threads) {
    LaunchResources l;
    l.entry = entry;
    l.block[0] = threads;
    l.kernel.regs_per_thread = regs;
    DeviceLimits sm90;
    sm90.smem_per_sm = 233472;
    l.occupancy = compute_occupancy(sm90, regs, 0, threads);
    return l;
}

ResultsFile results_with(std::vector<RunRecord> runs) {
    ResultsFile f;
    f.created = "2026-11-30T09:30:00Z";
    f.device = DeviceInfo{};
    f.device->name = "Test GPU";
    f.runs = std::move(runs);
    return f;
}

}  // namespace

// A rung that launches a small preparing kernel first and the kernel doing the work second
// answers with the second (the main launch: the lowest occupancy).
TEST(BindingsRunFacts, RegistersOfTheMainLaunch) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    RunRecord r = timed_run(128);
    r.resources = {launch_of("prepare", 30, 256), launch_of("work", 254, 128)};
    s.add_recorded(results_with({r}), "rec/resources.json");
    auto value = [&](const std::string& text) {
        BoundValue v = s.resolve(resources_binding(text));
        EXPECT_TRUE(v.ok) << text << ": " << v.error;
        return v;
    };
    BoundValue regs = value("{{ tiny/one regs TPB=128 }}");
    EXPECT_DOUBLE_EQ(regs.value, 254);
    EXPECT_EQ(regs.shown, "254");  // a count: no unit, no decimals
    EXPECT_EQ(regs.device, "Test GPU");
    // 254 registers take 256 once a warp's share is rounded to 256: 128 threads x 256.
    EXPECT_EQ(value("{{ tiny/one regs_per_block TPB=128 }}").shown, "32,768");
    EXPECT_DOUBLE_EQ(value("{{ tiny/one resident_blocks TPB=128 }}").value, 2);
    BoundValue occ = value("{{ tiny/one occupancy TPB=128 }}");
    EXPECT_DOUBLE_EQ(occ.value, 12.5);  // 8 warps of 64
    EXPECT_EQ(occ.unit, "%");
    // Arithmetic over it, as a lesson computes the blocks of a device's register file.
    EXPECT_DOUBLE_EQ(value("{{ = floor(65536 / tiny/one regs_per_block TPB=128) }}").value, 2);
    // Registers are not a time: a prediction of the run's time does not withhold them.
    EXPECT_NE(run_metric_family("regs"), "time");
    EXPECT_NE(run_metric_family("occupancy"), "time");
}

// A recording made before runs carried resources (schema v1), or a launch whose registers were
// not read, answers nothing: the binding says so instead of showing 0.
TEST(BindingsRunFacts, ARunWithoutResourcesIsUnresolved) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    RunRecord unread = timed_run(64);
    unread.resources = {LaunchResources{}};  // regs_per_thread 0: not read
    s.add_recorded(results_with({timed_run(32), unread}), "rec/old.json");
    for (const char* text : {"{{ tiny/one regs TPB=32 }}", "{{ tiny/one occupancy TPB=32 }}",
                             "{{ tiny/one regs_per_block TPB=64 }}", "{{ tiny/one resident_blocks TPB=64 }}"}) {
        BoundValue v = s.resolve(resources_binding(text));
        EXPECT_FALSE(v.ok) << text << " gave " << v.shown;
        EXPECT_NE(v.error.find("has no "), std::string::npos) << v.error;
    }
    EXPECT_FALSE(resource_metric(timed_run(32), "regs"));
    EXPECT_FALSE(resource_metric(timed_run(32), "gbps"));  // not a resource metric
}

// Bank conflicts by Nsight Compute's counter names, and a ratio of two runs pinned to the one
// recording that counted both (a newer recording of one of them without counters is passed over).
TEST(BindingsRunFacts, BankConflictsFromCounters) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    RunRecord unpadded = timed_run(32), padded = timed_run(64);
    unpadded.counters = {{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 66002338.0},
                         {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 65953957.0}};
    padded.counters = {{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 292128.0},
                       {"lts__t_bytes.sum", 817131680.0}};
    ResultsFile counted = results_with({unpadded, padded});
    ResultsFile newer = results_with({timed_run(64)});  // no counters
    newer.created = "2026-12-01T09:30:00Z";
    s.add_recorded(counted, "rec/counted.json");
    s.add_recorded(newer, "rec/newer.json");
    auto resolve = [&](const std::string& text) { return s.resolve(resources_binding(text)); };
    BoundValue all = resolve("{{ tiny/one bank_conflicts TPB=32 }}");
    ASSERT_TRUE(all.ok) << all.error;
    EXPECT_EQ(all.shown, "66,002,338");  // a count, in full
    EXPECT_DOUBLE_EQ(resolve("{{ tiny/one bank_conflicts_ld TPB=32 }}").value, 65953957);
    BoundValue st = resolve("{{ tiny/one bank_conflicts_st TPB=32 }}");
    EXPECT_FALSE(st.ok);  // that counter is not in the run
    // The newest run of TPB=64 has no counters: unresolved, not 0 ...
    BoundValue newest = resolve("{{ tiny/one bank_conflicts TPB=64 }}");
    EXPECT_FALSE(newest.ok) << newest.shown;
    EXPECT_NE(newest.error.find("has no bank_conflicts"), std::string::npos) << newest.error;
    // ... and a paired ratio takes both runs from the recording that counted them.
    BoundValue ratio = resolve("{{ = tiny/one bank_conflicts TPB=32 / tiny/one bank_conflicts TPB=64 | paired x .0 }}");
    ASSERT_TRUE(ratio.ok) << ratio.error;
    EXPECT_EQ(ratio.shown, "226x");
    EXPECT_EQ(ratio.origin, "rec/counted.json");
    // Bytes through L2, in GB, from the run that counted them.
    BoundValue l2 = resolve("{{ = tiny/one l2_gb TPB=64 | paired }}");
    ASSERT_TRUE(l2.ok) << l2.error;
    EXPECT_EQ(l2.shown, "0.817 GB");
    EXPECT_FALSE(counter_metric(timed_run(32), "bank_conflicts"));
    EXPECT_TRUE(is_counter_metric("dram_gb"));
    EXPECT_FALSE(is_counter_metric("regs"));
}

// A run's SM count is its own GPU's, not the shown device's: a per-SM rate of a recording viewed
// under another device's profile divides by the SMs that ran it.
TEST(BindingsRunFacts, SmCountOfTheRunsGpu) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    ResultsFile f = results_with({timed_run(32)});
    f.device->sm_count = 132;
    s.add_recorded(f, "rec/big.json");
    DeviceInfo small;
    small.name = "Small GPU (profile)";
    small.sm_count = 40;
    s.set_device(small, "devices/small.json");
    BoundValue sms = s.resolve(resources_binding("{{ tiny/one sm_count TPB=32 }}"));
    ASSERT_TRUE(sms.ok) << sms.error;
    EXPECT_EQ(sms.shown, "132");
    EXPECT_EQ(sms.device, "Test GPU");
    EXPECT_DOUBLE_EQ(s.resolve(resources_binding("{{ device sm_count }}")).value, 40);
    // A recording whose device says nothing of its SMs, and no card: unresolved.
    NumberSources bare(&ladders);
    bare.add_recorded(results_with({timed_run(32)}), "rec/nameless.json");
    EXPECT_FALSE(bare.resolve(resources_binding("{{ tiny/one sm_count TPB=32 }}")).ok);
}

}  // namespace kl_test_bindings_run_facts
