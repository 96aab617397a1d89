#include "integrity/tensor_merkle.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "measure/cuda_driver.hpp"

#ifdef KBENCH_WITH_MERKLE_KERNELS
#include "merkle_kernels_fatbin.hpp"
#endif

namespace kbench {
namespace {

#ifdef KBENCH_WITH_MERKLE_KERNELS
constexpr unsigned kThreadsPerBlock = 128;

cuda::KernelModule& module_for(int device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<cuda::KernelModule>> modules;
  std::lock_guard<std::mutex> lock(mutex);
  auto& module = modules[device];
  if (!module) module = std::make_unique<cuda::KernelModule>(device, kMerkleKernelsFatbin);
  return *module;
}

unsigned blocks_for(std::uint64_t threads) { return unsigned((threads + kThreadsPerBlock - 1) / kThreadsPerBlock); }

// Every level in one buffer, leaves first (merkle_proof_nodes' layout): nothing is freed (and so
// reused by torch's allocator on another stream) while the kernels, queued on the default
// stream, may still read it. Returns the buffer as [nodes, 32].
at::Tensor device_levels(const at::Tensor& bytes, std::uint64_t leaves) {
  std::uint64_t total = 0;
  for (std::uint64_t n = leaves;; n = (n + 1) / 2) {
    total += n;
    if (n == 1) break;
  }
  at::Tensor digests = at::empty({int64_t(total), 32}, bytes.options());
  auto& module = module_for(int(bytes.get_device()));
  module.synchronize();  // the tensor's producer may have queued it on any stream
  auto* level = static_cast<std::uint8_t*>(digests.data_ptr());
  auto* data = static_cast<const std::uint8_t*>(bytes.data_ptr());
  unsigned long long size = bytes.numel(), count = leaves;
  void* leaf_params[] = {&data, &size, &count, &level};
  module.launch("kbench_merkle_leaves", blocks_for(count), kThreadsPerBlock, leaf_params);
  for (unsigned long long below = count; below > 1;) {
    unsigned long long above = (below + 1) / 2;
    std::uint8_t* from = level;
    std::uint8_t* to = level + below * 32;
    void* node_params[] = {&from, &below, &above, &to};
    module.launch("kbench_merkle_nodes", blocks_for(above), kThreadsPerBlock, node_params);
    level = to;
    below = above;
  }
  module.synchronize();
  return digests;
}
#endif

}  // namespace

TensorMerkleTree::TensorMerkleTree(const at::Tensor& tensor) {
  const at::Tensor t = tensor.detach().contiguous();
  bytes_ = t.numel() == 0 ? at::empty({0}, t.options().dtype(at::kByte)) : t.view({-1}).view(at::kByte);
  leaves_ = merkle_leaves(std::size_t(bytes_.numel()));
#ifdef KBENCH_WITH_MERKLE_KERNELS
  if (bytes_.is_cuda()) {
    if (leaves_ == 0) {
      root_ = merkle_empty_root();
      return;
    }
    levels_ = device_levels(bytes_, leaves_);
    const at::Tensor root = levels_[levels_.size(0) - 1].to(at::kCPU);
    std::copy_n(root.data_ptr<std::uint8_t>(), 32, root_.begin());
    return;
  }
#endif
  if (!bytes_.is_cpu()) bytes_ = bytes_.to(at::kCPU);
  host_ = std::make_shared<MerkleTree>(static_cast<const std::uint8_t*>(bytes_.data_ptr()), std::size_t(bytes_.numel()),
                                       kMerkleLeafBytes, merkle_hash_threads(std::size_t(bytes_.numel())));
  root_ = host_->root();
}

void TensorMerkleTree::open(const std::vector<std::size_t>& positions, at::Tensor& leaf_bytes,
                            at::Tensor& proofs) const {
  const std::size_t bytes = std::size_t(bytes_.numel());
  const std::size_t depth = merkle_depth(leaves_);
  for (const std::size_t p : positions)
    if (p >= leaves_) throw std::out_of_range("no such Merkle leaf");
  // The opened bytes, gathered where they are: whole leaves in one index, the short last leaf
  // (if opened) from its own slice.
  const std::size_t whole = bytes / kMerkleLeafBytes;
  std::vector<int64_t> rows;
  for (const std::size_t p : positions)
    if (p < whole) rows.push_back(int64_t(p));
  at::Tensor gathered;
  if (!rows.empty())
    gathered = bytes_.narrow(0, 0, int64_t(whole * kMerkleLeafBytes))
                   .view({int64_t(whole), int64_t(kMerkleLeafBytes)})
                   .index_select(0, at::tensor(rows, at::kLong).to(bytes_.device()))
                   .to(at::kCPU)
                   .contiguous();
  at::Tensor tail;
  if (whole < leaves_)
    tail = bytes_.narrow(0, int64_t(whole * kMerkleLeafBytes), int64_t(bytes - whole * kMerkleLeafBytes))
               .to(at::kCPU)
               .contiguous();
  std::size_t total = 0;
  for (const std::size_t p : positions) total += p < whole ? kMerkleLeafBytes : std::size_t(tail.numel());
  leaf_bytes = at::empty({int64_t(total)}, at::kByte);
  auto* out = leaf_bytes.data_ptr<std::uint8_t>();
  std::size_t row = 0;
  for (const std::size_t p : positions) {
    if (p < whole) {
      std::memcpy(out, gathered.data_ptr<std::uint8_t>() + row++ * kMerkleLeafBytes, kMerkleLeafBytes);
      out += kMerkleLeafBytes;
    } else {
      std::memcpy(out, tail.data_ptr<std::uint8_t>(), std::size_t(tail.numel()));
      out += tail.numel();
    }
  }
  proofs = at::empty({int64_t(positions.size()), int64_t(depth), 32}, at::kByte);
  if (depth == 0 || positions.empty()) return;
  auto* proof_out = proofs.data_ptr<std::uint8_t>();
  if (host_) {
    for (std::size_t k = 0; k < positions.size(); ++k) {
      const auto path = host_->proof(positions[k]);
      for (std::size_t d = 0; d < depth; ++d) std::memcpy(proof_out + (k * depth + d) * 32, path[d].data(), 32);
    }
    return;
  }
  std::vector<int64_t> nodes;
  nodes.reserve(positions.size() * depth);
  for (const std::size_t p : positions)
    for (const std::size_t node : merkle_proof_nodes(leaves_, p)) nodes.push_back(int64_t(node));
  const at::Tensor path =
      levels_.index_select(0, at::tensor(nodes, at::kLong).to(levels_.device())).to(at::kCPU).contiguous();
  std::memcpy(proof_out, path.data_ptr<std::uint8_t>(), std::size_t(path.numel()));
}

unsigned merkle_hash_threads(std::size_t bytes) {
  if (bytes < (4u << 20)) return 1;  // a 64 MiB output is ~0.3 s on one thread
  return std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
}

Sha256Digest tensor_merkle_root(const at::Tensor& tensor) { return TensorMerkleTree(tensor).root(); }

}  // namespace kbench
