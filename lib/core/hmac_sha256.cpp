#include "core/hmac_sha256.hpp"

#include <cstring>

#include "core/sha256_block.hpp"

namespace kbench {
namespace {

void compress(std::uint32_t state[8], const std::uint8_t block[64]) {
  std::uint32_t w[16];
  for (int i = 0; i < 16; ++i)
    w[i] = std::uint32_t(block[4 * i]) << 24 | std::uint32_t(block[4 * i + 1]) << 16 |
           std::uint32_t(block[4 * i + 2]) << 8 | std::uint32_t(block[4 * i + 3]);
  sha256_block::compress(state, w);
}

}  // namespace

Sha256Digest sha256(std::string_view data) {
  std::uint32_t state[8];
  sha256_block::start(state);
  std::size_t offset = 0;
  for (; offset + 64 <= data.size(); offset += 64)
    compress(state, reinterpret_cast<const std::uint8_t*>(data.data()) + offset);
  // Padding: 0x80, zeros, then the bit length big-endian in the last 8 bytes.
  std::uint8_t tail[128] = {};
  const std::size_t rest = data.size() - offset;
  std::memcpy(tail, data.data() + offset, rest);
  tail[rest] = 0x80;
  const std::size_t tail_size = rest + 9 <= 64 ? 64 : 128;
  const std::uint64_t bits = std::uint64_t(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 1 - i] = std::uint8_t(bits >> (8 * i));
  for (std::size_t block = 0; block < tail_size; block += 64) compress(state, tail + block);
  Sha256Digest digest;
  sha256_block::finish(state, digest.data());
  return digest;
}

Sha256Digest hmac_sha256(std::string_view key, std::string_view message) {
  std::string block(64, '\0');
  if (key.size() > 64) {
    const auto hashed = sha256(key);
    std::memcpy(block.data(), hashed.data(), hashed.size());
  } else {
    std::memcpy(block.data(), key.data(), key.size());
  }
  std::string inner(block), outer(block);
  for (auto& c : inner) c = char(c ^ 0x36);
  for (auto& c : outer) c = char(c ^ 0x5c);
  const auto inner_digest = sha256(inner + std::string(message));
  return sha256(outer + std::string(inner_digest.begin(), inner_digest.end()));
}

std::string to_hex(const Sha256Digest& digest) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const auto byte : digest) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 15];
  }
  return out;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= (unsigned char)(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace kbench
