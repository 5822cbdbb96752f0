// Where the program finds its data (kernels/, lessons/, assets/) and keeps its caches.
// Data root: $KLADDER_ROOT if set; else the first ancestor of the executable's folder that
// holds both kernels/ and lessons/ (a build tree inside the checkout finds the checkout);
// else the source folder the program was built from.
#pragma once
#include <string>

namespace kl {

std::string data_root();
std::string kernels_dir();
std::string lessons_dir();
std::string assets_dir();
// $XDG_CACHE_HOME/kernel-ladder (or ~/.cache/kernel-ladder), created on demand (new folders
// 0700). Throws InputError when it lies inside the data root or the source tree (outside the
// program's own build folder there): a shared tree must not collect the learner's files.
std::string cache_dir(const std::string& sub = "");
// $XDG_CONFIG_HOME/kernel-ladder (or ~/.config/kernel-ladder), created on demand.
std::string config_dir();
// $XDG_DATA_HOME/kernel-ladder (or ~/.local/share/kernel-ladder): the learner's progress.
std::string data_dir();
// The CUDA include folder NVRTC needs for cuda_fp16.h / cuda_bf16.h.
std::string cuda_include_dir();

}  // namespace kl
