// Where the CUDA libraries that are loaded on demand (cuBLAS, cuBLASLt, CUPTI) are looked for
// besides the loader's own path: the folder libcudart, which every program links, came from.
#pragma once

#include <string>

namespace kl {

// The folder part of a path ("" when it has none).
std::string folder_of(const std::string& path);

// The folder the linked libcudart was loaded from ("" if the loader cannot say).
std::string cuda_runtime_folder();

}  // namespace kl
