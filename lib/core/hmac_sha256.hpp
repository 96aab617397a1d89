#pragma once
// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), small and dependency-free: the result channel
// authenticates the worker's frame with a per-job key (docs/sandbox.md), and the GPU image need
// not carry OpenSSL for that.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kbench {

using Sha256Digest = std::array<std::uint8_t, 32>;

// A digest over data given in pieces (a Merkle leaf's prefix byte, then its bytes in place),
// without copying them into one string first.
class Sha256 {
 public:
  Sha256();
  Sha256& update(std::string_view data);
  Sha256& update(const void* data, std::size_t bytes) {
    return update(std::string_view(static_cast<const char*>(data), bytes));
  }
  // The digest of everything given; the hasher is spent after it.
  Sha256Digest finish();

 private:
  std::uint32_t state_[8];
  std::uint8_t pending_[64];
  std::size_t pending_bytes_ = 0;
  std::uint64_t total_bytes_ = 0;
};

Sha256Digest sha256(std::string_view data);
Sha256Digest hmac_sha256(std::string_view key, std::string_view message);
std::string to_hex(const Sha256Digest& digest);
// Compares in time independent of where the strings differ.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace kbench
