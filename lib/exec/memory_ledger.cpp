#include "exec/memory_ledger.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <fstream>

namespace kbench {

MemoryLedger::MemoryLedger(std::map<std::string, long long> capacity, std::map<std::string, int> slots)
    : capacity_(std::move(capacity)), slots_(std::move(slots)) {}

bool MemoryLedger::bounded(const std::string& device) const {
  const auto it = capacity_.find(device);
  return it != capacity_.end() && it->second > 0;
}

long long MemoryLedger::capacity(const std::string& device) const {
  return bounded(device) ? capacity_.at(device) : 0;
}

long long MemoryLedger::estimate(const std::string& device, const std::string& problem_id) const {
  if (!bounded(device)) return 0;
  const long long total = capacity_.at(device);
  const auto slots = slots_.find(device);
  const long long fair = total / std::max(1, slots == slots_.end() ? 1 : slots->second);
  std::lock_guard lock(mutex_);
  const auto known = learned_.find(problem_id);
  if (known == learned_.end()) return fair;
  const auto wanted = static_cast<long long>(kLearnedPeakHeadroom * double(known->second)) + kDeviceContextBytes;
  // When no fair share would fit beside it, it runs alone anyway: give it the whole device.
  if (wanted > total - fair) return total;
  return std::max(fair, wanted);
}

std::optional<MemoryGrant> MemoryLedger::acquire(const std::string& device, long long bytes,
                                                 const std::function<bool()>& stop) {
  MemoryGrant grant;
  grant.device = device;
  if (!bounded(device)) return grant;
  const long long total = capacity_.at(device);
  grant.bytes = std::clamp(bytes, 0LL, total);
  grant.alone = grant.bytes >= total;
  std::unique_lock lock(mutex_);
  grant.ticket = next_ticket_++;
  auto& queue = waiting_[device];
  queue.push_back(grant.ticket);
  for (;;) {
    // Only the oldest waiter may take memory: a large job is not overtaken for ever by small ones.
    if (queue.front() == grant.ticket && held_[device] + grant.bytes <= total) break;
    if (stop && stop()) {
      queue.erase(std::find(queue.begin(), queue.end(), grant.ticket));
      changed_.notify_all();
      return std::nullopt;
    }
    changed_.wait_for(lock, std::chrono::milliseconds(100));
  }
  queue.pop_front();
  held_[device] += grant.bytes;
  changed_.notify_all();
  return grant;
}

void MemoryLedger::release(const MemoryGrant& grant) {
  if (!bounded(grant.device)) return;
  std::lock_guard lock(mutex_);
  held_[grant.device] = std::max(0LL, held_[grant.device] - grant.bytes);
  changed_.notify_all();
}

void MemoryLedger::learn(const std::string& problem_id, long long peak_bytes) {
  std::lock_guard lock(mutex_);
  long long& known = learned_[problem_id];
  known = std::max(known, peak_bytes);
}

long long MemoryLedger::held(const std::string& device) const {
  std::lock_guard lock(mutex_);
  const auto it = held_.find(device);
  return it == held_.end() ? 0 : it->second;
}

std::filesystem::path memory_grant_file(const std::filesystem::path& job_dir) {
  return job_dir / "gpu_memory_grant.json";
}

void write_memory_grant(const std::filesystem::path& job_dir, const MemoryGrant& grant) {
  std::filesystem::create_directories(job_dir);
  std::ofstream(memory_grant_file(job_dir))
      << nlohmann::json{{"bytes", grant.bytes}, {"alone", grant.alone}}.dump();
}

}  // namespace kbench
