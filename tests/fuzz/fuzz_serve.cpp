// Fuzz target: both ends of the runner protocol (model/serve_protocol.h) without a GPU. Each
// input is a session of lines: the `kladder serve` loop (app/cli/cmd_serve.cpp) must answer every
// line and end normally (replies go to /dev/null), and the window's decoder of runner lines must
// read or refuse each one without throwing.
#include <cstdio>
#include <sstream>
#include <string>

#include "base/errors.h"
#include "cli/serve.h"
#include "fuzz_driver.h"
#include "model/serve_protocol.h"

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
                    "{\"type\":\"hello\",\"protocol\":2,",
                    "{\"type\":\"result\",\"id\":1,\"record\":{",
                    "\"gpu\":true,\"device\":{\"name\":\"x\",\"sm_count\":1}",
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
        std::istringstream lines(text);
        std::string line;
        while (std::getline(lines, line)) {
            kl::RunnerLine l = kl::decode_runner_line(line);  // throws nothing: a problem is data
            if (l.problem.empty() == !(l.hello || l.event))
                throw std::runtime_error("runner line neither read nor refused: " + line.substr(0, 200));
        }
    };
    return kl::fuzz::main_for(t, argc, argv);
}
