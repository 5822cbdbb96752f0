// SHA-256 (FIPS 180-4), small and dependency-free: the compile cache names its entries by the
// digest of everything a compile read, and checks each entry's bytes against a digest stored in
// it. A 64-bit hash would let two different sources be made to share one key on purpose.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace kl {

class Sha256 {
  public:
    Sha256();
    Sha256& update(std::string_view bytes);
    std::string hex();  // the digest as 64 lowercase hex digits; ends the hashing

  private:
    void block(const unsigned char* p);
    uint32_t h_[8];
    unsigned char buf_[64];
    size_t used_ = 0;
    uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace kl
