#include "core/hmac_sha256.hpp"

#include <algorithm>
#include <cstring>

#include "core/sha256_block.hpp"
#include "core/sha256_compress.hpp"

namespace kbench {

Sha256::Sha256() { sha256_block::start(state_); }

Sha256& Sha256::update(std::string_view data) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t size = data.size();
  total_bytes_ += size;
  if (pending_bytes_ > 0) {
    const std::size_t take = std::min(size, 64 - pending_bytes_);
    std::memcpy(pending_ + pending_bytes_, bytes, take);
    pending_bytes_ += take;
    bytes += take;
    size -= take;
    if (pending_bytes_ < 64) return *this;
    sha256_compress_blocks(state_, pending_, 1);
    pending_bytes_ = 0;
  }
  sha256_compress_blocks(state_, bytes, size / 64);
  std::memcpy(pending_, bytes + size / 64 * 64, size % 64);
  pending_bytes_ = size % 64;
  return *this;
}

Sha256Digest Sha256::finish() {
  // Padding: 0x80, zeros, then the bit length big-endian in the last 8 bytes.
  std::uint8_t tail[128] = {};
  std::memcpy(tail, pending_, pending_bytes_);
  tail[pending_bytes_] = 0x80;
  const std::size_t tail_size = pending_bytes_ + 9 <= 64 ? 64 : 128;
  const std::uint64_t bits = total_bytes_ * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 1 - i] = std::uint8_t(bits >> (8 * i));
  sha256_compress_blocks(state_, tail, tail_size / 64);
  Sha256Digest digest;
  sha256_block::finish(state_, digest.data());
  return digest;
}

Sha256Digest sha256(std::string_view data) { return Sha256().update(data).finish(); }

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
