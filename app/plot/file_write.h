// The plot module writes its files with the engine's one atomic writer (base/atomic_file.h,
// library kl_atomic_file, no CUDA): this header only gives it the plot module's names.
#pragma once

#include <string>
#include <string_view>

#include "base/atomic_file.h"

namespace kl::plot {

using kl::WriteResult;

// kl::try_write_file_atomically: never throws; the result's `error` names the path.
inline WriteResult write_file_atomically(const std::string& path, std::string_view bytes) {
    return kl::try_write_file_atomically(path, bytes);
}

}  // namespace kl::plot
