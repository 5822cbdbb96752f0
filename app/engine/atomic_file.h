// Write a file so that readers see either the old content or the whole new content, never a
// torn one: write a temporary file in the same folder, flush, then rename over the target.
// On failure nothing is left behind and kl::InputError names the path and the reason.
#pragma once
#include <string>

namespace kl {

void write_file_atomically(const std::string& path, const std::string& content);
// Reads a whole regular file (never a FIFO, device or folder: those could block or never end)
// of at most kMaxReadBytes. Throws InputError naming the path.
constexpr long long kMaxReadBytes = 256LL << 20;
std::string read_file(const std::string& path);

}  // namespace kl
