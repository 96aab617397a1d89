#include "integrity/tensor_merkle.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>
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

Sha256Digest host_root(const at::Tensor& tensor) {
  const at::Tensor host = tensor.to(at::kCPU).contiguous();
  const MerkleTree tree(static_cast<const std::uint8_t*>(host.data_ptr()), host.nbytes(), kMerkleLeafBytes,
                        merkle_hash_threads(host.nbytes()));
  return tree.root();
}

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

// Every level in one buffer, leaves first: nothing is freed (and so reused by torch's allocator
// on another stream) while the kernels, queued on the default stream, may still read it.
Sha256Digest device_root(const at::Tensor& tensor) {
  const at::Tensor t = tensor.contiguous();
  unsigned long long bytes = t.nbytes();
  unsigned long long leaves = merkle_leaves(bytes);
  if (leaves == 0) return merkle_empty_root();
  std::uint64_t total = 0;
  for (std::uint64_t n = leaves;; n = (n + 1) / 2) {
    total += n;
    if (n == 1) break;
  }
  at::Tensor digests = at::empty({int64_t(total * 32)}, t.options().dtype(at::kByte));
  auto& module = module_for(int(t.get_device()));
  module.synchronize();  // the tensor's producer may have queued it on any stream
  auto* level = static_cast<std::uint8_t*>(digests.data_ptr());
  auto* data = static_cast<const std::uint8_t*>(t.data_ptr());
  void* leaf_params[] = {&data, &bytes, &leaves, &level};
  module.launch("kbench_merkle_leaves", blocks_for(leaves), kThreadsPerBlock, leaf_params);
  std::uint64_t offset = 0;
  for (unsigned long long below = leaves; below > 1;) {
    unsigned long long above = (below + 1) / 2;
    std::uint8_t* from = level;
    std::uint8_t* to = level + below * 32;
    void* node_params[] = {&from, &below, &above, &to};
    module.launch("kbench_merkle_nodes", blocks_for(above), kThreadsPerBlock, node_params);
    offset += below;
    level = to;
    below = above;
  }
  module.synchronize();
  const at::Tensor root = digests.narrow(0, int64_t(offset * 32), 32).to(at::kCPU);
  Sha256Digest out{};
  std::copy_n(root.data_ptr<std::uint8_t>(), 32, out.begin());
  return out;
}
#endif

}  // namespace

unsigned merkle_hash_threads(std::size_t bytes) {
  if (bytes < (4u << 20)) return 1;  // a 64 MiB output is ~0.3 s on one thread
  return std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
}

Sha256Digest tensor_merkle_root(const at::Tensor& tensor) {
  const at::Tensor t = tensor.detach();
#ifdef KBENCH_WITH_MERKLE_KERNELS
  if (t.is_cuda()) return device_root(t);
#endif
  return host_root(t);
}

}  // namespace kbench
