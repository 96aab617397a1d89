#pragma once
// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), small and dependency-free: the result channel
// authenticates the worker's frame with a per-job key (docs/sandbox.md), and the GPU image need
// not carry OpenSSL for that.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace kbench {

using Sha256Digest = std::array<std::uint8_t, 32>;

Sha256Digest sha256(std::string_view data);
Sha256Digest hmac_sha256(std::string_view key, std::string_view message);
std::string to_hex(const Sha256Digest& digest);
// Compares in time independent of where the strings differ.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace kbench
