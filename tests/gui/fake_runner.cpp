// A test double of `kladder serve` (protocol in app/cli/cmd_serve.cpp) for the GUI's runner
// tests on machines without a GPU. It says it has a device, answers run requests after a delay
// with records whose numbers are made up from the request (marked "fake runner" in the device
// name and in every record's model note, so they can never pass for measurements), and can
// crash or hang on a chosen request. A request with options.counters gets a counters_note that
// says counters were asked for (and none read).
//
//   fake_runner [--delay-ms N] [--crash-on-size N] [--hang-on-size N] [--no-gpu]
//     --crash-on-size N   abort() while handling a run request whose size n is N
//     --hang-on-size N    never answer a run request whose size n is N
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/results.h"

using nlohmann::json;

int main(int argc, char** argv) {
    int delay_ms = 100;
    long long crash_on = -1, hang_on = -1;
    bool gpu = true;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--delay-ms" && i + 1 < argc)
            delay_ms = std::atoi(argv[++i]);
        else if (a == "--crash-on-size" && i + 1 < argc)
            crash_on = std::atoll(argv[++i]);
        else if (a == "--hang-on-size" && i + 1 < argc)
            hang_on = std::atoll(argv[++i]);
        else if (a == "--no-gpu")
            gpu = false;
    }
    auto out = [](const json& j) {
        std::string s = j.dump();
        std::fwrite(s.data(), 1, s.size(), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
    };
    json hello = {{"type", "hello"}, {"protocol", 1}, {"tool", "fake_runner (test double)"}, {"gpu", gpu}};
    if (gpu) {
        kl::DeviceInfo d;
        d.name = "fake runner (test double, no GPU)";
        d.cc_major = 9;
        d.sm_count = 132;
        hello["device"] = kl::to_json(d);
        hello["calibration"] = nullptr;
    } else {
        hello["reason"] = "fake runner started with --no-gpu";
    }
    out(hello);
    std::string line;
    while (std::getline(std::cin, line)) {
        json req = json::parse(line, nullptr, false);
        if (req.is_discarded()) continue;
        std::string type = req.value("type", "");
        json id = req.contains("id") ? req["id"] : json(nullptr);
        if (type == "quit") break;
        if (type == "ping") {
            out({{"type", "pong"}, {"id", id}});
            continue;
        }
        if (type != "run") continue;
        long long n_size = req.contains("sizes") ? req["sizes"].value("n", -2LL) : -2LL;
        out({{"type", "progress"}, {"id", id}, {"stage", "running"}, {"label", req.value("rung", "")}});
        if (n_size == crash_on) std::abort();
        if (n_size == hang_on) {
            for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        if (!gpu) {
            out({{"type", "error"}, {"id", id}, {"kind", "gpu"}, {"message", "no GPU: fake runner"}});
            continue;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        kl::RunRecord r;
        r.ladder = req.value("ladder", "");
        r.rung = req.value("rung", "");
        r.title = r.rung;
        r.dtype = req.value("dtype", "fp32");
        if (req.contains("sizes")) r.sizes = req["sizes"].get<std::map<std::string, int64_t>>();
        if (req.contains("params")) r.params = req["params"].get<std::map<std::string, int64_t>>();
        double n = 1;
        for (const auto& [k, v] : r.sizes) n *= double(v);
        kl::TimingStats t;
        t.median_ms = 0.001 + n * 4e-9;  // made-up: 4 ns per element
        t.min_ms = t.median_ms * 0.98;
        t.max_ms = t.median_ms * 1.05;
        t.mean_ms = t.median_ms;
        t.reps = 10;
        r.timing = t;
        r.ideal_bytes = 12 * n;
        r.flops = n;
        r.gbps = r.ideal_bytes / (t.median_ms * 1e-3) / 1e9;
        r.tflops = r.flops / (t.median_ms * 1e-3) / 1e12;
        r.model_note = "fake runner: not a measurement";
        // Says whether the request asked for counters, so that tests see the field arrive.
        const json opts = req.contains("options") && req["options"].is_object() ? req["options"] : json::object();
        if (opts.value("counters", false)) r.counters_note = "fake runner: counters asked for, none read (test double)";
        out({{"type", "result"}, {"id", id}, {"record", kl::to_json(r)}});
    }
    return 0;
}
