// Fuzz target: the results reader (app/engine/results.*, json_input.*): parse with the depth
// limit, read every field typed, and write the result back out (the round trip every export
// and the window's results store do).
#include <string>

#include "engine/json_input.h"
#include "engine/results.h"
#include "fuzz_driver.h"

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
