// Fuzz target: compute-sanitizer's report parser (app/model/sanitizer_report.*). The report is
// the tool's text about the learner's kernel: it quotes kernel names and paths, and a run that
// broke can leave anything in it. It may not crash, keeps its limits, and every finding survives
// the JSON that `kladder try --sanitize --json` hands the window.
#include <cstdlib>

#include "fuzz_driver.h"
#include "model/sanitizer_report.h"

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "sanitizer_report";
    t.extensions = {".txt"};
    t.dictionary = {"========= ",
                    "=========     ",
                    "Invalid __global__ write of size 4 bytes\n",
                    "Invalid __shared__ read of size ",
                    " at k(float *)+0x1d0 in mine.cu:16\n",
                    "by thread (31,0,0) in block (0,0,0)\n",
                    "Address 0x7f00 is out of bounds\n",
                    "and is 1 bytes after the nearest allocation at 0x7f00 of size 4,096 bytes\n",
                    "Error: Race reported between Write access at",
                    " and Read access at ",
                    " [1024 hazards]",
                    "Program hit cudaErrorLaunchFailure (error 719) due to \"",
                    "\" on CUDA API call to cudaStreamSynchronize.",
                    "ERROR SUMMARY: ",
                    "RACECHECK SUMMARY: 1 hazard displayed (",
                    "99999999999999999999",
                    "\x1b]52;c;",
                    "\xff\xfe"};
    t.run = [](const std::string& text) {
        for (const char* tool : {"memcheck", "racecheck"}) {
            kl::SanitizerReport r = kl::parse_sanitizer_report(text, tool);
            if (r.findings.size() > kl::kMaxSanitizerFindings || r.tool_messages.size() > 20) std::abort();
            for (const auto& f : r.findings) {
                if (f.line < 0 || f.count < 1 || f.hazards < 0) std::abort();
                const nlohmann::json j = kl::to_json(f);
                (void)j.dump();  // throws on bytes that are not UTF-8: a finding
                if (kl::format_finding(kl::finding_from_json(j, "f")) != kl::format_finding(f)) std::abort();
            }
        }
    };
    return kl::fuzz::main_for(t, argc, argv);
}
