#pragma once
// The Merkle tree (core/merkle_tree.hpp) of a tensor's bytes, built where the tensor is: on the
// GPU by kbench's own kernels (integrity/merkle_kernels.cuh), so that committing an output
// inside the timing witness's window costs one pass over device memory rather than a copy to the
// host and a host hash (which dwarfed the calls it was meant to bound); on the host otherwise.
// The same root either way. Openings gather only the opened leaves and their proofs to the host.
#include <ATen/core/Tensor.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "core/merkle_tree.hpp"

namespace kbench {

class TensorMerkleTree {
 public:
  // Hashes `tensor`'s bytes in row-major order (a non-contiguous tensor is made contiguous) and
  // keeps them with every level of the tree, for open(): the caller must not write the tensor
  // while the tree is in use (a committed output is its own copy).
  explicit TensorMerkleTree(const at::Tensor& tensor);

  [[nodiscard]] const Sha256Digest& root() const { return root_; }
  [[nodiscard]] std::size_t leaves() const { return leaves_; }
  // The leaves at `positions` (their bytes one after another) and their proofs
  // [positions, depth, 32], both uint8 on the host.
  void open(const std::vector<std::size_t>& positions, at::Tensor& leaf_bytes, at::Tensor& proofs) const;

 private:
  at::Tensor bytes_;                        // the tensor's bytes: flat, contiguous uint8, where it is
  at::Tensor levels_;                       // on a GPU: every level's digests, leaves first, [nodes, 32]
  std::shared_ptr<const MerkleTree> host_;  // on the host
  std::size_t leaves_ = 0;
  Sha256Digest root_{};
};

// The root alone (the tree is dropped).
Sha256Digest tensor_merkle_root(const at::Tensor& tensor);

// Threads for a host tree over `bytes` bytes: one below 4 MiB, else up to 8.
unsigned merkle_hash_threads(std::size_t bytes);

}  // namespace kbench
