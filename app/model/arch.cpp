#include "model/arch.h"

#include <cctype>

namespace kl {

ArchName parse_arch(const std::string& text) {
    ArchName a;
    if (text.size() < 5 || text.compare(0, 3, "sm_") != 0) return a;
    std::string digits = text.substr(3);
    if (!digits.empty() && digits.back() == 'a') {
        a.specific = true;
        digits.pop_back();
    }
    if (digits.size() < 2 || digits.size() > 3) return a;
    for (char c : digits)
        if (!std::isdigit(static_cast<unsigned char>(c))) return a;
    a.cc = std::stoi(digits);
    return a;
}

std::string arch_name(int cc) { return "sm_" + std::to_string(cc); }

std::string arch_family(int cc) {
    if (cc >= 120) return "Blackwell";
    if (cc >= 100) return "Blackwell";
    if (cc >= 90) return "Hopper";
    if (cc == 89) return "Ada";
    if (cc >= 80) return "Ampere";
    if (cc == 75) return "Turing";
    if (cc >= 70) return "Volta";
    return "pre-Volta";
}

std::string arch_need_label(int cc) { return "needs " + arch_name(cc) + " (" + arch_family(cc) + ")"; }

void fill_arch_constants(DeviceLimits& l, int cc) {
    const int major = cc / 10;
    // cuda_occupancy.h: shared memory is allocated in 256-byte units up to Volta/Turing, 128
    // from Ampere; registers in 256-register units per warp, over 4 sub-partitions.
    l.smem_alloc_unit = major >= 8 ? 128 : 256;
    l.reg_alloc_unit = 256;
    l.reg_sub_partitions = 4;
    // Programming guide, "Shared Memory" of compute capability 8.x/9.x: 1 KB of every block's
    // shared memory is reserved for system use (cudaDeviceProp::reservedSharedMemPerBlock).
    l.reserved_smem_per_block = major >= 8 ? 1024 : 0;
}

}  // namespace kl
