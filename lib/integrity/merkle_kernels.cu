// The Merkle kernels, compiled by nvcc into a fatbin that kbench embeds and loads through the
// driver (measure/cuda_driver.hpp's KernelModule): no CUDA runtime is linked.
#include "integrity/merkle_kernels.cuh"

extern "C" __global__ void kbench_merkle_leaves(const uint8_t* data, unsigned long long bytes,
                                                unsigned long long leaves, uint8_t* digests) {
  const unsigned long long leaf = blockIdx.x * 1ull * blockDim.x + threadIdx.x;
  if (leaf < leaves) kbench::merkle_kernels::merkle_leaf(data, bytes, leaf, digests);
}

extern "C" __global__ void kbench_merkle_nodes(const uint8_t* below, unsigned long long below_count,
                                               unsigned long long above_count, uint8_t* above) {
  const unsigned long long node = blockIdx.x * 1ull * blockDim.x + threadIdx.x;
  if (node < above_count) kbench::merkle_kernels::merkle_node(below, below_count, node, above);
}
