#pragma once
// Which finished evaluations the Evaluator still keeps for lookup by id (issue #14: a server's
// memory must not grow with its age). Only finished results are handed to this class, so
// queued and running requests can never be evicted. Bounds, either or both:
//   - a count: at most `keep` results, the least recently finished or read evicted first (LRU);
//   - an age: a result not finished or read for `keep_s` seconds is evicted at the next touch
//     of the service (a request, a lookup, stats or /metrics); no timer thread.
// An evicted id leaves a small tombstone (its problem, candidate digest, why), so that a lookup
// can say "evicted" rather than "never seen" and a resubmission can still be checked against the
// candidate it named; tombstones are bounded too (evicted_ids_kept(), oldest forgotten first).
#include <chrono>
#include <cstddef>
#include <deque>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kbench {

struct RetentionLimits {
  std::size_t keep = 4096;        // >= 1
  std::optional<double> keep_s;   // > 0; nullopt: no age bound
};

// A tombstone: what is remembered of an evicted result.
struct EvictedResult {
  std::string problem_id;
  std::string digest;          // the candidate's, as the Evaluator computes it
  std::size_t attempts = 1;    // evaluations this id has had so far
  std::string reason;          // "count" (over `keep`) or "age" (older than `keep_s`)
};

class ResultRetention {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ResultRetention(RetentionLimits limits);

  // A finished result is kept (the most recent); returns the ids evicted to make room (and any
  // that aged out). The id's tombstone, if any, is dropped: the id is live again.
  std::vector<std::string> finished(const std::string& id, EvictedResult about, Clock::time_point now);
  // A read of a kept result: it becomes the most recent. Ids not kept are ignored.
  void touched(const std::string& id, Clock::time_point now);
  // Evicts the results not touched within keep_s; their ids.
  std::vector<std::string> expire(Clock::time_point now);
  // The tombstone of an evicted id still remembered; nullopt otherwise (kept, or never seen, or
  // evicted so long ago that its tombstone went too).
  [[nodiscard]] const EvictedResult* evicted(const std::string& id) const;
  // Forgets a tombstone (the id is being evaluated again).
  void revive(const std::string& id);

  [[nodiscard]] std::size_t kept() const { return order_.size(); }
  [[nodiscard]] std::size_t evicted_by_count() const { return evicted_by_count_; }
  [[nodiscard]] std::size_t evicted_by_age() const { return evicted_by_age_; }
  [[nodiscard]] const RetentionLimits& limits() const { return limits_; }
  // Tombstones remembered: 8 per kept result, 1,024 to 65,536 (~100 bytes each).
  [[nodiscard]] std::size_t evicted_ids_kept() const;

 private:
  struct Kept {
    std::string id;
    Clock::time_point touched;
    EvictedResult about;
  };
  void evict_front(bool by_age, std::vector<std::string>& out);

  RetentionLimits limits_;
  std::list<Kept> order_;  // least recently finished or read first
  std::unordered_map<std::string, std::list<Kept>::iterator> kept_;
  struct Tombstone {
    EvictedResult about;
    std::size_t serial = 0;  // its entry in tombstone_order_
  };
  std::unordered_map<std::string, Tombstone> tombstones_;
  // Oldest first. An id revived and evicted again is named twice: only the entry whose serial
  // is its tombstone's forgets it.
  std::deque<std::pair<std::string, std::size_t>> tombstone_order_;
  std::size_t serials_ = 0;
  std::size_t evicted_by_count_ = 0;
  std::size_t evicted_by_age_ = 0;
};

}  // namespace kbench
