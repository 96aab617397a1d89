#pragma once
// The Merkle root (core/merkle_tree.hpp) of a tensor's bytes, computed where the tensor is: on
// the GPU by kbench's own kernels (integrity/merkle_kernels.cuh), so that committing an output
// inside the timing witness's window costs one pass over device memory rather than a copy to the
// host and a host hash (which dwarfed the calls it was meant to bound); on the host otherwise.
// The same root either way.
#include <ATen/core/Tensor.h>

#include <cstddef>

#include "core/merkle_tree.hpp"

namespace kbench {

// The root of `tensor`'s bytes in row-major order (a non-contiguous tensor is made contiguous).
Sha256Digest tensor_merkle_root(const at::Tensor& tensor);

// Threads for a host tree over `bytes` bytes: one below 4 MiB, else up to 8.
unsigned merkle_hash_threads(std::size_t bytes);

}  // namespace kbench
