// The datasheet figures of the GPUs the workbook knows, in one place: the `datasheet` entries of
// the device profiles (assets/devices/*.json, docs/formats.md section 4), each with its source.
// Two readers: class mode's plausibility checks (a time faster than the datasheet allows is
// impossible, course/plausibility.h) and the lesson bindings `{{ device datasheet_gbps }}`,
// `datasheet_fp32_tflops`, `datasheet_tf32_tflops`, `datasheet_bf16_tflops`, `datasheet_fp8_tflops`
// (course/bindings.h). No CUDA.
#pragma once
#include <string>
#include <vector>

namespace kl {

// One entry of a profile's `datasheet` list: one product (a profile may hold several, such as
// the A100's 40 GB and 80 GB parts, whose memory differs).
struct Datasheet {
    std::string profile;                      // the profile file's name, "sm_90_h100.json"
    std::string profile_name;                 // the profile's own device name, "NVIDIA H100 80GB HBM3 (profile)"
    std::vector<std::string> reported_names;  // what the runtime calls such a GPU
    int sm_count = 0, cc = 0;                 // the profile's
    double memory_gbps = 0, fp32_tflops = 0;  // memory bandwidth; FP32 peak on the CUDA cores
    double tensor_tflops = 0;                 // the dense 16-bit tensor peak (fp16 or bf16, FP32 accumulate)
    double bf16_tflops = 0;                   // the dense bf16 tensor peak; 0 for a GPU without bf16
    double tf32_tflops = 0;                   // the dense TF32 tensor peak; 0 before Ampere
    double fp8_tflops = 0;                    // the dense fp8 tensor peak; 0 before Ada and Hopper
    double boost_clock_mhz = 0;
    std::string source;  // where the figures come from ("NVIDIA H200 Tensor Core GPU datasheet ...")
};

// Every datasheet entry of the profiles in `devices_dir`, in file order (InputError
// "<file>: datasheet[i].<field>: <problem>" for a malformed one).
std::vector<Datasheet> load_datasheets(const std::string& devices_dir);
// The entry for a device: the one whose reported names hold `device_name` exactly; else, for a
// profile's own name ("NVIDIA H200 (profile)"), that profile's first entry. Null when none.
const Datasheet* find_datasheet(const std::vector<Datasheet>& sheets, const std::string& device_name);

}  // namespace kl
