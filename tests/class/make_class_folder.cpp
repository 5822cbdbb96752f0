// make_class_folder: folders of SYNTHETIC signed submissions for class mode's tests and its example
// (docs/class-mode.md, "A class of 20"). Nothing here was judged by `kladder submit`: every file
// says so in its `workbook` field and its source's first line, and carries the date of the data
// it was made from.
//
//   make_class_folder fixtures SUBMISSIONS KEY
//       the engine tests' 20 made-up learners on three device profiles (class_fixtures.h, dated
//       2000-01-01), and two bad files (tampered, truncated) for the merge to refuse
//   make_class_folder recorded SUBMISSIONS KEY
//       a class of 20 from RECORDED runs (assets/recorded, KLADDER_ROOT or the data root): each
//       vector_add run at n = 2^28 of an H100 (TPB and EPT sweeps) and of an H200 becomes one
//       learner's timed run, with the recording's device, calibration and date; a third device,
//       the A100 profile, of which nothing was ever recorded, gets the H100 learners' shares of
//       their roof on a calibration made up at 90% of the A100 datasheet's bandwidth (said in
//       each file); and two made-up cheats, one refused by a check, one flagged for a source
//       that is not the one hashed.
// Both write the class key (a fixed test secret: the example's signatures are reproducible) to KEY.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "../engine/class_fixtures.h"
#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "base/sha256.h"
#include "course/submission.h"
#include "model/results_json.h"

namespace fs = std::filesystem;

namespace {

kl::ClassKey example_key(const std::string& name) {
    kl::ClassKey k;
    k.name = name;
    k.secret = kl::sha256_hex("kernel-ladder synthetic class example key").substr(0, 32);  // public: a test key
    return k;
}

void write(const std::string& dir, const std::string& name, const std::string& text) {
    kl::write_file_atomically(dir + "/" + name, text);
}

int fixtures(const std::string& dir, const kl::ClassKey& key) {
    const char* profiles[] = {"sm_90_h100.json", "sm_80_a100.json", "sm_89_l4.json"};
    std::string first;
    for (int i = 0; i < 20; ++i) {
        const std::string name = "learner" + std::to_string(100 + i);
        const std::string text =
            kl::sign_submission(class_fixture::submission(profiles[i % 3], name, 0.3 + 0.03 * i), key);
        write(dir, name + ".json", text);
        if (i == 0) first = text;
    }
    std::string tampered = first;
    tampered.replace(tampered.find("learner100"), 10, "learner999");
    write(dir, "tampered.json", tampered);
    write(dir, "truncated.json", first.substr(0, 300));
    return 0;
}

// [SECTION] A class of 20 from recordings

constexpr int64_t kN = int64_t(1) << 28;

struct Recorded {
    kl::ResultsFile file;
    std::string path;  // as the data root names it
    kl::RunRecord run;
};

std::vector<Recorded> vector_add_runs(const std::string& rel) {
    std::vector<Recorded> out;
    const kl::ResultsFile f = kl::load_results(kl::data_root() + "/" + rel);
    for (const kl::RunRecord& r : f.runs)
        if (r.rung == "vector_add" && r.sizes.count("n") && r.sizes.at("n") == kN && r.timing && r.error.empty())
            out.push_back({f, rel, r});
    return out;
}

std::string params_text(const kl::RunRecord& r) {
    std::string s;
    for (const auto& [k, v] : r.params) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return s;
}

kl::Submission from_recording(const Recorded& rec, const std::string& learner, const std::string& starter) {
    kl::Submission s;
    s.learner = learner;
    s.exercise = "01_first_kernel/8";
    s.ladder = "elementwise";
    s.like = "vector_add";
    s.source_name = "mine.cu";
    s.source = "// SYNTHETIC class example (docs/class-mode.md), not a learner's: the shipped vector_add at " +
               params_text(rec.run) + ", its run recorded on " + rec.file.device->name + " in " + rec.path + " (" +
               rec.file.created.substr(0, 10) + ")\n" + starter;
    s.source_sha256 = kl::sha256_hex(s.source);
    s.workbook = "class example generator (synthetic, from recordings; never judged)";
    s.created = s.results.created = rec.file.created;
    s.results.tool = s.workbook;
    s.results.device = rec.file.device;
    s.results.calibration = rec.file.calibration;
    s.results.runs = {rec.run};
    s.mine = 0;
    for (const char* name :
         {kl::judge_check::kCorrect, kl::judge_check::kOddSizes, kl::judge_check::kPlanted, kl::judge_check::kPoisoned,
          kl::judge_check::kInputs, kl::judge_check::kSeeds, kl::judge_check::kColdL2})
        s.checks.push_back({name, true, "synthetic: a recorded run, not judged"});
    s.goal = "correct and gbps >= 0.8 * device.copy_gbps";
    const double gbps = rec.run.values.num(kl::tag::ideal_bytes) / (rec.run.timing->median_ms * 1e-3) / 1e9;
    s.goal_met = rec.file.calibration && gbps >= 0.8 * rec.file.calibration->copy_gbps;
    s.goal_summary = s.goal_met ? "goal met (synthetic)" : "goal not met (synthetic)";
    return s;
}

// The same share of the roof on the A100 profile, whose calibration is made up: nothing of an A100
// was ever recorded.
kl::Submission on_a100(kl::Submission s) {
    const kl::DeviceInfo a100 = class_fixture::device_of("sm_80_a100.json");
    const double h100_copy = s.results.calibration->copy_gbps;
    kl::Calibration cal;
    cal.device_uuid = a100.uuid;
    cal.measured_at = s.created;
    cal.copy_gbps = 0.9 * class_fixture::datasheet("sm_80_a100.json").memory_gbps;
    cal.sgemm_tflops = 0.7 * class_fixture::datasheet("sm_80_a100.json").fp32_tflops;
    cal.bf16_tflops = 0.7 * class_fixture::datasheet("sm_80_a100.json").tensor_tflops;
    kl::RunRecord& r = s.results.runs[0];
    const double scale = h100_copy / cal.copy_gbps;  // the same share of a lower roof: a longer time
    r.timing->median_ms *= scale;
    r.timing->min_ms *= scale;
    r.timing->max_ms *= scale;
    r.timing->mean_ms *= scale;
    r.values.set(kl::tag::gbps, r.values.num(kl::tag::gbps) / scale);
    r.clock.reset();
    s.results.device = a100;
    s.results.calibration = cal;
    s.source.replace(0, s.source.find('\n'),
                     "// SYNTHETIC class example (docs/class-mode.md), MADE UP: an H100 recording's share of its "
                     "copy roof put on the A100 profile, whose calibration is 90% of its datasheet (no A100 was "
                     "measured)");
    s.source_sha256 = kl::sha256_hex(s.source);
    s.workbook = "class example generator (synthetic, made up from an H100 recording; never judged)";
    return s;
}

int recorded(const std::string& dir, const kl::ClassKey& key) {
    const std::string starter = kl::read_file(kl::kernels_dir() + "/elementwise/01_vector_add.cu");
    std::vector<Recorded> h100 = vector_add_runs("assets/recorded/h100_vector_add_sweep_tpb.json");
    for (const Recorded& r : vector_add_runs("assets/recorded/h100_vector_add_sweep_ept.json"))
        if (r.run.params.at("EPT") != 1) h100.push_back(r);  // EPT=1, TPB=32 is in the TPB sweep
    std::vector<Recorded> h200 = vector_add_runs("assets/recorded/h200_elementwise.json");
    for (const char* f :
         {"assets/recorded/h200_2026-11-29_roof/elementwise.json",
          "assets/recorded/h200_2026-11-29_roof/elementwise_tuned.json", "assets/recorded/h200_modes_power.json"})
        for (const Recorded& r : vector_add_runs(f)) h200.push_back(r);
    int n = 0;
    auto name = [&n](const std::string& device, const kl::RunRecord& r) {
        char b[96];
        std::snprintf(b, sizeof b, "s%02d %s %s", ++n, device.c_str(), params_text(r).c_str());
        return std::string(b);
    };
    for (const Recorded& r : h100) {
        const kl::Submission s = from_recording(r, name("H100", r.run), starter);
        write(dir, "s" + std::to_string(100 + n) + ".json", kl::sign_submission(s, key));
    }
    for (const Recorded& r : h200) {
        const kl::Submission s = from_recording(r, name("H200", r.run), starter);
        write(dir, "s" + std::to_string(100 + n) + ".json", kl::sign_submission(s, key));
    }
    for (size_t i = 2; i < h100.size() && n < 18; i += 2) {
        const kl::Submission s = on_a100(from_recording(h100[i], name("A100", h100[i].run), starter));
        write(dir, "s" + std::to_string(100 + n) + ".json", kl::sign_submission(s, key));
    }
    // Two made-up cheats on the H200's best recording: a cached output (a third of the time, the
    // check that caught it failed) and a source edited after it was hashed.
    kl::Submission cached = from_recording(h200.front(), "s19 cheat: cached output (made up)", starter);
    kl::TimingStats& t = *cached.results.runs[0].timing;
    for (double* ms : {&t.median_ms, &t.min_ms, &t.max_ms, &t.mean_ms}) *ms /= 3;
    cached.checks[3] = {kl::judge_check::kPoisoned, false,
                        "synthetic: the last timed run's output, poisoned before it, was wrong (made up)"};
    write(dir, "s119.json", kl::sign_submission(cached, key));
    kl::Submission edited = from_recording(h200.back(), "s20 flag: source edited (made up)", starter);
    edited.source += "// edited after it was judged (made up)\n";
    write(dir, "s120.json", kl::sign_submission(edited, key));
    std::printf(
        "%zu submissions from recorded runs (%zu H100, %zu H200), %d made up on the A100 profile, 2 made-up "
        "cheats\n",
        h100.size() + h200.size(), h100.size(), h200.size(), n - int(h100.size() + h200.size()));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4 || (std::string(argv[1]) != "fixtures" && std::string(argv[1]) != "recorded")) {
        std::fprintf(stderr, "usage: make_class_folder fixtures|recorded SUBMISSIONS KEY\n");
        return 2;
    }
    try {
        const std::string mode = argv[1], dir = argv[2];
        fs::create_directories(dir);
        const kl::ClassKey key = example_key(mode == "fixtures" ? "class test fixtures (synthetic)"
                                                                : "class example (synthetic, from recordings)");
        kl::write_file_atomically(argv[3], kl::class_key_to_text(key));
        return mode == "fixtures" ? fixtures(dir, key) : recorded(dir, key);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_class_folder: %s\n", e.what());
        return 2;
    }
}
