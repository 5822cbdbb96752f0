// Fuzz target: the results reader (app/model/results.*, json_input.*): parse with the depth
// limit, read every field typed, and write the result back out (the round trip every export
// and the window's results store do).
#include <string>

#include "base/json_input.h"
#include "fuzz_driver.h"
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
        kl::ResultsFile r = kl::results_from_json(kl::parse_json_limited(text, "results.json"), "results.json");
        kl::to_json(r).dump();
    };
    return kl::fuzz::main_for(t, argc, argv);
}
