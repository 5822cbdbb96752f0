// Write a file so that readers see either the old content or the whole new content, never a
// torn one: write a temporary file in the same folder, flush, then rename over the target.
// On failure nothing is left behind and kl::InputError names the path and the reason.
#pragma once
#include <string>

namespace kl {

void write_file_atomically(const std::string& path, const std::string& content);
std::string read_file(const std::string& path);  // throws InputError naming the path

}  // namespace kl
