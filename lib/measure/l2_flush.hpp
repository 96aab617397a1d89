#pragma once
// What the cold protocol's flush adds to a plain read of the flush buffer (docs/timing.md#cold-default):
// lines a kernel marked to outlive it. A normal-priority read evicts normal lines; lines loaded
// with an `L2::evict_last` cache hint (Triton's `eviction_policy="evict_last"`, Inductor's own
// kernels) are evicted after every normal line, and persisting lines (an access-policy window,
// native code only) not by normal accesses at all. So after the read, `evict()`:
//  1. turns persisting lines back to normal (cuCtxResetPersistingL2Cache);
//  2. reads the buffer again at evict_last priority, which evicts older evict_last lines;
//  3. discards the buffer's lines from L2 (`discard.global.L2`, no write-back), so the flush's own
//     evict_last lines do not shrink the L2 the timed call finds.
// PTX for sm_80 (JIT-compiled by the driver); on older GPUs, or where the driver refuses it,
// `available()` is false with a reason and the plain read stays the flush.
#include <cstdint>
#include <memory>
#include <string>

namespace kbench::cuda {
class KernelModule;
}

namespace kbench {

class L2Flush {
 public:
  // `buffer`: device memory of `bytes` bytes the caller owns (the flush buffer), 128-byte aligned.
  L2Flush(int device_index, std::uintptr_t buffer, long long bytes);
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;
  [[nodiscard]] bool available() const { return module_ != nullptr; }
  [[nodiscard]] const std::string& unavailable_reason() const { return reason_; }
  // Queues the passes above on the legacy default stream (after the caller's read of the buffer).
  void evict();

 private:
  std::unique_ptr<cuda::KernelModule> module_;
  std::string reason_;
  std::uintptr_t buffer_ = 0;
  long long bytes_ = 0;
};

}  // namespace kbench
