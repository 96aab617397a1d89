#pragma once
// The jobs of a run as a queue that grows while the run goes: a user pushes jobs (a file suite
// all at once; an agent one per result; a service one per request), the scheduler's slots claim
// them in push order, and close() says no more will come. A job's index is its push position:
// the plan index that results, journal lines and reports use.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "model/job.hpp"

namespace kbench {

enum class JobKind { evaluation, reference_fill };

class JobQueue {
 public:
  // Adds `job` and returns its index. `pending` false: the job is already done (resumed from a
  // journal, or a result without a worker) and is never claimed. Throws std::logic_error after
  // close().
  std::size_t push(Job job, bool pending = true, JobKind kind = JobKind::evaluation);
  // No more jobs: slots stop once the pending ones are taken.
  void close();

  // The next pending job's index, without waiting: the oldest pending evaluation, else (with
  // `fills`) the oldest pending reference fill; nullopt when none is pending now.
  std::optional<std::size_t> try_claim(bool fills = true);
  // Drops the reference fills not claimed yet; their indices (never claimed from now on).
  std::vector<std::size_t> cancel_pending_fills();
  // Waits until a job is pending (true; another slot may claim it first) or the queue is closed
  // with none pending, or `stop` returns true (false). `stop` (may be empty) is called without
  // the queue's lock, every `poll`: interrupts and a failed slot are flags, not notifications.
  bool wait_for_job(const std::function<bool()>& stop,
                    std::chrono::milliseconds poll = std::chrono::milliseconds(100)) const;

  // The job at `index` (references stay valid while jobs are pushed: a deque).
  [[nodiscard]] const Job& job(std::size_t index) const;
  [[nodiscard]] JobKind kind(std::size_t index) const;
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] bool closed() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<Job> jobs_;
  std::deque<JobKind> kinds_;
  std::deque<std::size_t> pending_;        // evaluations, in push order
  std::deque<std::size_t> pending_fills_;  // reference fills, in push order
  bool closed_ = false;
};

// Pushes `jobs` (those with skip[i] true as done) and closes the queue: run_jobs over a fixed plan.
void push_all(JobQueue& queue, const std::vector<Job>& jobs, const std::vector<bool>& skip);

}  // namespace kbench
