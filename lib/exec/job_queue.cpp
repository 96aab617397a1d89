#include "exec/job_queue.hpp"

#include <stdexcept>

namespace kbench {

std::size_t JobQueue::push(Job job, bool pending, JobKind kind) {
  std::size_t index = 0;
  {
    std::lock_guard lock(mutex_);
    if (closed_) throw std::logic_error("JobQueue::push after close()");
    index = jobs_.size();
    jobs_.push_back(std::move(job));
    kinds_.push_back(kind);
    if (pending) (kind == JobKind::reference_fill ? pending_fills_ : pending_).push_back(index);
  }
  changed_.notify_all();
  return index;
}

void JobQueue::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

std::optional<std::size_t> JobQueue::try_claim(bool fills) {
  std::lock_guard lock(mutex_);
  auto& from = !pending_.empty() || !fills ? pending_ : pending_fills_;
  if (from.empty()) return std::nullopt;
  const std::size_t index = from.front();
  from.pop_front();
  return index;
}

std::vector<std::size_t> JobQueue::cancel_pending_fills() {
  std::lock_guard lock(mutex_);
  std::vector<std::size_t> dropped(pending_fills_.begin(), pending_fills_.end());
  pending_fills_.clear();
  return dropped;
}

bool JobQueue::wait_for_job(const std::function<bool()>& stop, std::chrono::milliseconds poll) const {
  for (;;) {
    if (stop && stop()) return false;
    std::unique_lock lock(mutex_);
    if (!pending_.empty() || !pending_fills_.empty()) return true;
    if (closed_) return false;
    changed_.wait_for(lock, poll);
  }
}

const Job& JobQueue::job(std::size_t index) const {
  std::lock_guard lock(mutex_);
  return jobs_.at(index);
}

JobKind JobQueue::kind(std::size_t index) const {
  std::lock_guard lock(mutex_);
  return kinds_.at(index);
}

std::size_t JobQueue::size() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

bool JobQueue::closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

void push_all(JobQueue& queue, const std::vector<Job>& jobs, const std::vector<bool>& skip) {
  for (std::size_t i = 0; i < jobs.size(); ++i) queue.push(jobs[i], !(i < skip.size() && skip[i]));
  queue.close();
}

}  // namespace kbench
