// SHA-256 on the host (core/sha256_compress.hpp, core/hmac_sha256.hpp): the SHA-NI path gives the
// portable path's states on every block, and the piecewise hasher the one-shot digest for every
// split of a message. The FIPS 180-4 vectors are in test_result_channel.cpp.
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/hmac_sha256.hpp"
#include "core/sha256_block.hpp"
#include "core/sha256_compress.hpp"

using namespace kbench;

namespace {

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = char(rng());
  return s;
}

}  // namespace

TEST_CASE("the SHA-NI compression gives the portable path's state, block after block") {
  const std::string data = random_bytes(64 * 257, 1);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  std::uint32_t start[8];
  sha256_block::start(start);
  for (std::size_t blocks : {1u, 2u, 3u, 16u, 257u}) {
    std::uint32_t portable[8], accelerated[8];
    std::copy(start, start + 8, portable);
    std::copy(start, start + 8, accelerated);
    sha256_compress_portable(portable, bytes, blocks);
    if (!sha256_compress_sha_ni(accelerated, bytes, blocks)) {
      // No SHA extensions on this CPU: the portable path is the only one (and the one used).
      CHECK(std::string(sha256_engine()) == "portable");
      return;
    }
    INFO("blocks " << blocks);
    CHECK(std::vector<std::uint32_t>(portable, portable + 8) == std::vector<std::uint32_t>(accelerated, accelerated + 8));
  }
  CHECK(std::string(sha256_engine()) == "sha-ni");  // CI's and the H200's CPUs have it
}

TEST_CASE("the piecewise hasher gives the one-shot digest for every split of a message") {
  for (std::size_t n : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 127u, 128u, 129u, 1000u}) {
    const std::string message = random_bytes(n, unsigned(n) + 7);
    const auto whole = sha256(message);
    for (std::size_t cut = 0; cut <= n; cut += (n > 200 ? 37 : 1)) {
      Sha256 pieces;
      pieces.update(std::string_view(message).substr(0, cut));
      pieces.update(std::string_view(message).substr(cut));
      INFO("length " << n << ", cut at " << cut);
      CHECK(pieces.finish() == whole);
    }
  }
  // Many small pieces across block boundaries.
  const std::string message = random_bytes(777, 3);
  Sha256 bytewise;
  for (char c : message) bytewise.update(&c, 1);
  CHECK(bytewise.finish() == sha256(message));
}
