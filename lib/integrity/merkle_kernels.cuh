#pragma once
// SHA-256 Merkle hashing with one thread per leaf or node, for outputs that stay on the GPU
// (integrity/tensor_merkle.hpp). The tree is core/merkle_tree.hpp's, byte for byte: leaf =
// SHA-256(0x00 || up to 256 bytes), node = SHA-256(0x01 || left || right), the last node of an
// odd level paired with itself. Plain functions for host and device: the CPU tests run them on
// the host against MerkleTree; merkle_kernels.cu wraps them in kernels.
#include <stdint.h>

#include "core/sha256_block.hpp"

#ifdef __CUDACC__
#define KBENCH_MERKLE_FN __host__ __device__ inline
#else
#define KBENCH_MERKLE_FN inline
#endif

namespace kbench::merkle_kernels {

inline constexpr uint32_t kLeafBytes = 256;  // core/merkle_tree.hpp's kMerkleLeafBytes

// SHA-256 of prefix || second[0, n), where `byte_at(i)` gives byte i of the second part; the
// digest in standard byte order at out[0, 32).
template <class ByteAt>
KBENCH_MERKLE_FN void sha256_prefixed(uint8_t prefix, uint32_t n, ByteAt byte_at, uint8_t* out) {
  uint32_t h[8];
  sha256_block::start(h);
  const uint64_t length = uint64_t(n) + 1;          // bytes of the message
  const uint64_t padded = (length + 8) / 64 * 64 + 64;  // message, 0x80, zeros, 64-bit length
  for (uint64_t block = 0; block < padded; block += 64) {
    uint32_t w[16];
    for (int j = 0; j < 16; ++j) {
      uint32_t word = 0;
      for (int r = 0; r < 4; ++r) {
        const uint64_t at = block + 4 * uint64_t(j) + r;
        uint32_t value = 0;
        if (at == 0)
          value = prefix;
        else if (at < length)
          value = byte_at(uint32_t(at - 1));
        else if (at == length)
          value = 0x80;
        else if (at >= padded - 8)
          value = uint32_t((length * 8) >> (8 * (padded - 1 - at))) & 0xff;
        word = (word << 8) | value;
      }
      w[j] = word;
    }
    sha256_block::compress(h, w);
  }
  sha256_block::finish(h, out);
}

// Leaf `leaf` of `bytes` bytes at `data`: its digest at digests + 32 * leaf.
KBENCH_MERKLE_FN void merkle_leaf(const uint8_t* data, uint64_t bytes, uint64_t leaf, uint8_t* digests) {
  const uint64_t offset = leaf * kLeafBytes;
  const uint64_t left = bytes - offset;
  const uint32_t n = left < kLeafBytes ? uint32_t(left) : kLeafBytes;
  const uint8_t* at = data + offset;
  sha256_prefixed(0, n, [at](uint32_t i) -> uint32_t { return at[i]; }, digests + 32 * leaf);
}

// Node `node` of the level above `below_count` digests: its digest at above + 32 * node.
KBENCH_MERKLE_FN void merkle_node(const uint8_t* below, uint64_t below_count, uint64_t node, uint8_t* above) {
  const uint8_t* left = below + 64 * node;
  const uint64_t right_index = 2 * node + 1 < below_count ? 2 * node + 1 : below_count - 1;
  const uint8_t* right = below + 32 * right_index;
  sha256_prefixed(
      1, 64, [left, right](uint32_t i) -> uint32_t { return i < 32 ? left[i] : right[i - 32]; }, above + 32 * node);
}

}  // namespace kbench::merkle_kernels
