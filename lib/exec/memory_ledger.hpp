#pragma once
// Admission by device memory (docs/memory.md#admission): workers that share a GPU hold grants
// from one ledger, and a job starts only when its grant fits beside the others'. A job of a
// problem not seen yet asks for the fair share (capacity / slots on the device); once a job
// of the problem has finished, later ones ask for what it peaked at (with headroom), so a
// problem that needs most of the GPU runs alone while small ones run side by side. The worker
// is told its grant (a file in its job dir) and caps its allocator at it, so it cannot push a
// neighbour out; one that needs more than a shared grant says so and runs again alone.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace kbench {

struct MemoryGrant {
  std::string device;
  long long bytes = 0;
  bool alone = false;  // the whole device
  std::uint64_t ticket = 0;
};

class MemoryLedger {
 public:
  // `capacity`: device -> usable bytes; `slots`: device -> worker slots on it. A device with no
  // capacity is not bounded (the CPU): acquire() grants it at once.
  MemoryLedger(std::map<std::string, long long> capacity, std::map<std::string, int> slots);

  [[nodiscard]] bool bounded(const std::string& device) const;
  [[nodiscard]] long long capacity(const std::string& device) const;
  // What a job of `problem_id` asks for on `device`: at least the fair share, more when an
  // earlier job of the problem peaked higher; the whole capacity when no fair share would fit
  // beside that.
  [[nodiscard]] long long estimate(const std::string& device, const std::string& problem_id) const;
  // Blocks until `bytes` fit beside the grants held on `device`, first come first served (an
  // idle device admits any request, capped at its capacity). nullopt when `stop` turns true
  // (polled every 100 ms).
  std::optional<MemoryGrant> acquire(const std::string& device, long long bytes,
                                     const std::function<bool()>& stop);
  void release(const MemoryGrant& grant);
  // A finished job's device peak (allocator reserved + the context), for its problem's estimate.
  void learn(const std::string& problem_id, long long peak_bytes);
  [[nodiscard]] long long held(const std::string& device) const;

 private:
  std::map<std::string, long long> capacity_;
  std::map<std::string, int> slots_;
  std::map<std::string, long long> held_;
  std::map<std::string, std::deque<std::uint64_t>> waiting_;  // tickets, first come first served
  std::uint64_t next_ticket_ = 0;
  std::map<std::string, long long> learned_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
};

// What the device context, cuBLAS/cuDNN workspaces and the like take besides the allocator.
constexpr long long kDeviceContextBytes = 1LL << 30;
// Estimates are the learned peak times this, plus kDeviceContextBytes.
constexpr double kLearnedPeakHeadroom = 1.25;

// The grant as the worker reads it: `<job_dir>/gpu_memory_grant.json`.
std::filesystem::path memory_grant_file(const std::filesystem::path& job_dir);
void write_memory_grant(const std::filesystem::path& job_dir, const MemoryGrant& grant);

}  // namespace kbench
