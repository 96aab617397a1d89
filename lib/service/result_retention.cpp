#include "service/result_retention.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace kbench {

ResultRetention::ResultRetention(RetentionLimits limits) : limits_(limits) {
  if (limits_.keep < 1) throw InputError("keep_finished (--keep-results) must be >= 1");
  if (limits_.keep_s && !(*limits_.keep_s > 0))
    throw InputError(fmt::format("keep_finished_s (--keep-results-s) = {}: must be > 0", *limits_.keep_s));
}

std::size_t ResultRetention::evicted_ids_kept() const {
  return std::clamp<std::size_t>(limits_.keep * 8, 1024, 65536);
}

void ResultRetention::evict_front(bool by_age, std::vector<std::string>& out) {
  Kept& oldest = order_.front();
  oldest.about.reason = by_age ? "age" : "count";
  ++(by_age ? evicted_by_age_ : evicted_by_count_);
  const std::size_t serial = ++serials_;
  tombstone_order_.emplace_back(oldest.id, serial);
  tombstones_[oldest.id] = Tombstone{std::move(oldest.about), serial};
  kept_.erase(oldest.id);
  out.push_back(std::move(oldest.id));
  order_.pop_front();
  while (tombstone_order_.size() > evicted_ids_kept()) {
    const auto& [id, serial_of] = tombstone_order_.front();
    if (const auto it = tombstones_.find(id); it != tombstones_.end() && it->second.serial == serial_of)
      tombstones_.erase(it);
    tombstone_order_.pop_front();
  }
}

std::vector<std::string> ResultRetention::finished(const std::string& id, EvictedResult about, Clock::time_point now) {
  revive(id);
  if (const auto it = kept_.find(id); it != kept_.end()) {  // finished twice: cannot happen; keep one
    order_.erase(it->second);
    kept_.erase(it);
  }
  order_.push_back(Kept{id, now, std::move(about)});
  kept_[id] = std::prev(order_.end());
  std::vector<std::string> out = expire(now);
  while (order_.size() > limits_.keep) evict_front(false, out);
  return out;
}

void ResultRetention::touched(const std::string& id, Clock::time_point now) {
  const auto it = kept_.find(id);
  if (it == kept_.end()) return;
  it->second->touched = now;
  order_.splice(order_.end(), order_, it->second);
}

std::vector<std::string> ResultRetention::expire(Clock::time_point now) {
  std::vector<std::string> out;
  if (!limits_.keep_s) return out;
  const auto age = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*limits_.keep_s));
  // Touches move a result to the back, so the front is always the least recently touched.
  while (!order_.empty() && now - order_.front().touched >= age) evict_front(true, out);
  return out;
}

const EvictedResult* ResultRetention::evicted(const std::string& id) const {
  const auto it = tombstones_.find(id);
  return it == tombstones_.end() ? nullptr : &it->second.about;
}

void ResultRetention::revive(const std::string& id) { tombstones_.erase(id); }

}  // namespace kbench
