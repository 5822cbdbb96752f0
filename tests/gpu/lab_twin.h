// The GPU tests that set a rung's lab switches (issue 37) run its lab twin: the same file and
// launches with every switch free. Shared by test_gpu_ladders, test_gpu_fp32, test_gpu_streamk and
// test_gpu_mlp.
#pragma once

#include <string>

#include "model/manifest.h"

namespace kl_test {

// The rung's lab twin "<id>_lab" when it has one, else the rung itself (nullptr when neither).
inline const kl::Rung* with_switches(const kl::Ladder& L, const std::string& id) {
    const kl::Rung* twin = L.find_rung(id + "_lab");
    return twin && twin->lab_of == id ? twin : L.find_rung(id);
}

}  // namespace kl_test
