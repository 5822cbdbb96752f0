// Device-fact bindings, computed bindings (`{{ = ... }}`), ties within the spread, paired
// comparisons and conditional prose (`{{ if ... }}`): the text follows the device shown.
#include <gtest/gtest.h>

#include "course/bindings.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_bindings_expr {

using namespace kl;

namespace {

RunRecord run(int64_t tpb, double gbps, double rel_spread = 0.01) {
    RunRecord r;
    r.ladder = "tiny";
    r.rung = "one";
    r.params = {{"TPB", tpb}};
    r.sizes = {{"n", 1000}};
    r.values.set(tag::gbps, gbps);
    r.timing = TimingStats{};
    r.timing->median_ms = 1;
    r.timing->rel_spread = rel_spread;
    return r;
}

DeviceInfo gpu(const std::string& name, int sms, int64_t l2_mib, int threads_per_sm) {
    DeviceInfo d;
    d.name = name;
    d.sm_count = sms;
    d.l2_bytes = l2_mib << 20;
    d.has_limits = true;
    d.limits.max_threads_per_sm = threads_per_sm;
    return d;
}

ResultsFile file(const std::string& created, std::vector<RunRecord> runs) {
    ResultsFile f;
    f.created = created;
    f.device = gpu("Big GPU", 132, 50, 2048);
    f.runs = std::move(runs);
    return f;
}

Binding one(const std::string& text) {
    std::vector<std::string> errors;
    auto bs = find_bindings(text, &errors);
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
    return bs.empty() ? Binding{} : bs[0];
}

}  // namespace

TEST(BindingsExpr, DeviceFactsComeFromTheRecordedDeviceOrTheOneSet) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(256, 200)}), "rec/big.json");
    EXPECT_EQ(s.resolve(one("{{ device name }}")).shown, "Big GPU");
    EXPECT_EQ(s.resolve(one("{{ device threads_per_sm }}")).shown, "2,048");
    EXPECT_EQ(s.resolve(one("{{ device l2_mib }}")).shown, "50 MiB");
    s.set_device(gpu("Small GPU", 82, 6, 1536), "profile.json");
    EXPECT_EQ(s.resolve(one("{{ device name }}")).shown, "Small GPU");
    EXPECT_EQ(s.resolve(one("{{ device sm_count }}")).value, 82);
    EXPECT_EQ(s.resolve(one("{{ device warps_per_sm }}")).value, 48);
    EXPECT_EQ(s.resolve(one("{{ tiny/one device }}")).shown, "Big GPU");  // whose run is shown
    EXPECT_NE(s.resolve(one("{{ device shoe_size }}")).error.find("shoe_size"), std::string::npos);
}

TEST(BindingsExpr, ComputedBindingsFollowTheirInputs) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(256, 200), run(32, 50)}), "rec/big.json");
    EXPECT_EQ(s.resolve(one("{{ = tiny/one gbps TPB=32 / tiny/one gbps | pct }}")).shown, "25.0%");
    EXPECT_EQ(s.resolve(one("{{ = tiny/one gbps / tiny/one gbps TPB=32 | x }}")).shown, "4.00x");
    EXPECT_EQ(s.resolve(one("{{ = tiny/one gbps / device sm_count | .2 }}")).shown, "1.52 GB/s");
    EXPECT_EQ(s.resolve(one("{{ = ceil(1000 / (device sm_count * 2)) }}")).shown, "4.00");
    EXPECT_EQ(s.resolve(one("{{ = max(tiny/one gbps, 300) - 100 }}")).shown, "200 GB/s");
    BoundValue v = s.resolve(one("{{ = tiny/one gbps / tiny/one gbps TPB=64 }}"));
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.error.find("TPB=64"), std::string::npos);
    EXPECT_NE(s.resolve(one("{{ = device name * 2 }}")).error.find("is a name"), std::string::npos);
    EXPECT_NE(s.resolve(one("{{ = tiny/one gbps + device sm_count * 0 + tiny/one ms }}")).error.find("adds"),
              std::string::npos);
    std::vector<std::string> errors;
    find_bindings("{{ = 1 + }} {{ = 2 < 3 }} {{ if 1 }} {{ = a/b gbps | pct huge }} {{ else }}", &errors);
    ASSERT_EQ(errors.size(), 5u);
    EXPECT_NE(errors[0].find("ends early"), std::string::npos);
    EXPECT_NE(errors[1].find("belongs in {{ if"), std::string::npos);
    EXPECT_NE(errors[2].find("compares two expressions"), std::string::npos);
    EXPECT_NE(errors[3].find("unknown format 'huge'"), std::string::npos);
    EXPECT_NE(errors[4].find("without its `{{ if"), std::string::npos);
}

// A difference inside both runs' own spreads is no difference: `| ratio` says level.
TEST(BindingsExpr, ARatioInsideTheSpreadIsATie) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(256, 200, 0.05), run(32, 195, 0.05), run(64, 150, 0.05)}),
                   "rec/big.json");
    EXPECT_EQ(s.resolve(one("{{ = tiny/one gbps TPB=32 / tiny/one gbps | ratio }}")).shown,
              "level (within the spread)");
    EXPECT_EQ(s.resolve(one("{{ = tiny/one gbps TPB=32 / tiny/one gbps | x }}")).shown, "0.97x");
    EXPECT_EQ(s.resolve(one("{{ = tiny/one gbps TPB=64 / tiny/one gbps | ratio }}")).shown, "0.75x");
}

// `paired` takes every run of a comparison from one recording: the newest file that has both.
TEST(BindingsExpr, APairedComparisonComesFromOneRecording) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(256, 100), run(32, 80)}), "rec/both.json");
    s.add_recorded(file("2026-02-01T00:00:00Z", {run(256, 200)}), "rec/newer.json");
    EXPECT_EQ(s.resolve(one("{{ = tiny/one gbps TPB=32 / tiny/one gbps | x }}")).shown, "0.40x");  // mixed
    BoundValue v = s.resolve(one("{{ = tiny/one gbps TPB=32 / tiny/one gbps | x paired }}"));
    ASSERT_TRUE(v.ok) << v.error;
    EXPECT_EQ(v.shown, "0.80x");
    EXPECT_EQ(v.origin, "rec/both.json");
    EXPECT_FALSE(s.resolve(one("{{ = tiny/one gbps TPB=64 / tiny/one gbps | x paired }}")).ok);
}

TEST(BindingsExpr, ConditionalProseShowsTheBranchTrueOfTheDevice) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(256, 200)}), "rec/big.json");
    const std::string text =
        "L2:\n{{ if device l2_mib >= 40 }}\nThe {{ device l2_mib | .0 }} L2 holds it.\n{{ else }}\n"
        "It spills.\n{{ end }}\nDone {{ if device threads_per_sm < 2048 }}short{{ else }}full{{ end }}.";
    std::vector<BoundValue> values;
    EXPECT_EQ(s.render(text, &values), "L2:\nThe 50 MiB L2 holds it.\nDone full.");
    EXPECT_EQ(values.size(), 1u);  // the hidden branch resolves nothing
    s.set_device(gpu("Small GPU", 82, 6, 1536), "profile.json");
    EXPECT_EQ(s.render(text), "L2:\nIt spills.\nDone short.");
    values.clear();
    EXPECT_EQ(s.render("{{ if device shoe_size > 1 }}a{{ else }}b{{ end }}", &values),
              "[unresolved: if device shoe_size > 1]");
    ASSERT_EQ(values.size(), 1u);
    EXPECT_FALSE(values[0].ok);
    std::vector<std::string> errors;
    find_bindings("{{ if device sm_count > 1 }} open", &errors);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("without its `{{ end }}`"), std::string::npos);
}

// Functions nest without blanks ("min(floor(a / b), c)"), as occupancy arithmetic needs, and a
// profile (its name ends in " (profile)") reads its own GPU's card, not the preferred device's.
TEST(BindingsExpr, NestedFunctionsAndAProfileReadsItsOwnCard) {
    TempTree t;
    auto ladders = tiny_ladder_with_tpb(t);
    NumberSources s(&ladders);
    s.add_recorded(file("2026-01-01T00:00:00Z", {run(256, 200)}), "rec/big.json");
    s.set_device(gpu("Small GPU (profile)", 82, 6, 1536), "profile.json");
    BoundValue v =
        s.resolve(one("{{ = min(floor(device threads_per_sm / 256), floor(65536 / 10240)) * 256 | bare .0 }}"));
    ASSERT_TRUE(v.ok) << v.error;
    EXPECT_EQ(v.value, 1536);
    auto card = [](const std::string& device, double copy) {
        DeviceCard c;
        c.path = "cards/" + device + ".json";
        c.device = device;
        c.doc = {{"values", {{"copy_gbps", {{"value", copy}, {"unit", "GB/s"}}}}}};
        return c;
    };
    s.add_card(card("Big GPU", 3000));
    s.add_card(card("Small GPU", 900));
    s.set_preferred_device("Big GPU");
    EXPECT_EQ(s.resolve(one("{{ device copy_gbps }}")).value, 900);
    s.set_device(gpu("Other GPU (profile)", 40, 4, 1024), "other.json");
    EXPECT_EQ(s.resolve(one("{{ device copy_gbps }}")).value, 3000);  // no card of its own: the preferred one's
}

}  // namespace kl_test_bindings_expr
