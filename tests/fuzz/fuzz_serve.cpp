// Fuzz target: the `kladder serve` request handler (app/cli/cmd_serve.cpp) without a GPU: each
// input is a session of request lines; every line must get its reply and the loop must end
// normally (replies go to /dev/null).
#include <cstdio>
#include <sstream>
#include <string>

#include "cli/serve.h"
#include "engine/errors.h"
#include "fuzz_driver.h"

namespace {
FILE* g_out = nullptr;
kl::cli::ServeState g_state;
}  // namespace

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "serve";
    t.extensions = {".jsonl"};
    t.dictionary = {"{\"type\":\"run\",",
                    "{\"type\":\"ping\",\"id\":",
                    "\"ladder\":\"elementwise\",",
                    "\"rung\":\"vector_add\",",
                    "\"sizes\":{\"n\":",
                    "\"params\":{\"TPB\":",
                    "\"options\":{",
                    "\"reps\":",
                    "\"seed\":-1",
                    "\"dtype\":",
                    "\"id\":[",
                    "\"type\":7",
                    "9223372036854775807",
                    "18446744073709551616",
                    "}\n",
                    "\n",
                    "[",
                    "{",
                    "\""};
    t.setup = [] {
        g_out = std::fopen("/dev/null", "w");
        g_state.use_gpu = false;  // run requests are answered up to "no GPU": parsing and validation
    };
    t.run = [](const std::string& text) {
        std::istringstream in(text);
        int code = kl::cli::serve_loop(g_state, in, g_out);
        if (code != 0) throw std::runtime_error("serve_loop ended with code " + std::to_string(code));
    };
    return kl::fuzz::main_for(t, argc, argv);
}
