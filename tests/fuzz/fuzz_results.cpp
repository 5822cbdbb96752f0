// Fuzz target: the results reader (app/model/results.*, json_input.*): parse with the depth
// limit, read every field typed, and write the result back out (the round trip every export
// and the window's results store do). The same bytes also go to the class-mode submission reader
// (course/submission.h), which embeds a results file: its checks in order (truncated, schema,
// version, signature, key, MAC) and then every field, as `kladder class merge` reads a file.
#include <string>

#include "base/json_input.h"
#include "fuzz_driver.h"
#include "course/submission.h"
#include "model/results.h"
#include "model/results_json.h"

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "results";
    t.extensions = {".json"};
    t.dictionary = {"\"version\": 1.5",
                    "\"version\": \"1\"",
                    "\"sm_count\": -1",
                    "\"runs\": [",
                    "\"timing\": ",
                    "\"median_ms\": ",
                    "\"params\": {\"TPB\": 18446744073709551615}",
                    "\"error_map\": {",
                    "\"rows\": 100000",
                    "\"fraction_bad\": [",
                    "\"device\": ",
                    "\"name\": \"<script>\"",
                    "\"schema\": \"kernel-ladder/submission\"",
                    "\"signature\": {\"algorithm\": \"HMAC-SHA256\", \"key_id\": \"",
                    "\"mac\": \"",
                    "\"mine\": ",
                    "\"checks\": [{\"name\": ",
                    "\"source\": {\"text\": ",
                    "null",
                    "true",
                    "[",
                    "]",
                    "{",
                    "}",
                    ",",
                    ":",
                    "\"",
                    "1e400",
                    "-1e400"};
    t.run = [](const std::string& text) {
        static const kl::ClassKey key{"fuzz", std::string(32, 'k')};
        try {
            kl::read_submission(text, "submission.json", key);
        } catch (const kl::InputError&) {}
        try {  // the fields without the signature, so that the fuzzer reaches them
            kl::parse_submission_fields(kl::parse_json_limited(text, "submission.json"), "submission.json");
        } catch (const kl::InputError&) {}
        kl::ResultsFile r = kl::results_from_json(kl::parse_json_limited(text, "results.json"), "results.json");
        kl::to_json(r).dump();
    };
    return kl::fuzz::main_for(t, argc, argv);
}
