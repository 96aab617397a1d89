#pragma once
// A Merkle tree over a byte string, for commit-then-reveal of outputs a native candidate could
// otherwise fix up once it knows which elements are looked at (docs/threat-model.md,
// "sampled values of timed calls"). The root fixes every byte; a leaf and its path prove that
// leaf against the root without the rest. Leaves are `leaf_bytes` long (the last may be
// shorter); a level of odd length pairs its last node with itself. Leaf and node hashes are
// domain-separated (0x00 / 0x01 prefixes), so a node cannot be passed off as a leaf.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/hmac_sha256.hpp"

namespace kbench {

// 64 float32 elements: small openings; every element size up to complex128 divides it, so no
// element straddles two leaves.
inline constexpr std::size_t kMerkleLeafBytes = 256;

class MerkleTree {
 public:
  // Hashes `bytes` bytes at `data` (leaves on up to `threads` threads; large outputs).
  MerkleTree(const std::uint8_t* data, std::size_t bytes, std::size_t leaf_bytes = kMerkleLeafBytes,
             unsigned threads = 1);

  [[nodiscard]] std::size_t leaves() const { return leaves_; }
  [[nodiscard]] const Sha256Digest& root() const { return levels_.back().front(); }
  // The sibling of `leaf` on every level, bottom up: merkle_depth(leaves()) digests.
  [[nodiscard]] std::vector<Sha256Digest> proof(std::size_t leaf) const;

 private:
  std::size_t leaves_ = 0;
  std::vector<std::vector<Sha256Digest>> levels_;  // leaf hashes first, the root last
};

// Leaves of a string of `bytes` bytes (0 for an empty one: its root is merkle_empty_root()).
std::size_t merkle_leaves(std::size_t bytes, std::size_t leaf_bytes = kMerkleLeafBytes);
// Digests in every proof of a tree of `leaves` leaves.
std::size_t merkle_depth(std::size_t leaves);
// Where `leaf`'s proof lies when every level's digests are laid out one after another, leaves
// first (as the GPU kernels build the tree, integrity/tensor_merkle.hpp): MerkleTree::proof's
// digests, as node numbers in that layout.
std::vector<std::size_t> merkle_proof_nodes(std::size_t leaves, std::size_t leaf);
Sha256Digest merkle_empty_root();
// True when `leaf` (its bytes) at position `index` of a tree of `leaves` leaves, with `proof`,
// hashes up to `root`.
bool merkle_verify(const Sha256Digest& root, std::size_t leaves, std::size_t index, std::string_view leaf,
                   const std::vector<Sha256Digest>& proof);

// `count` leaf positions uniform over [0, leaves) with replacement, from a 64-bit seed: the
// trusted side's seed, revealed after the root (the same positions in every process).
std::vector<std::size_t> merkle_reveal_positions(std::uint64_t seed, std::size_t leaves, std::size_t count);

}  // namespace kbench
