#include "exec/job_queue.hpp"

#include <stdexcept>

namespace kbench {

std::size_t JobQueue::push(Job job, bool pending) {
  std::size_t index = 0;
  {
    std::lock_guard lock(mutex_);
    if (closed_) throw std::logic_error("JobQueue::push after close()");
    index = jobs_.size();
    jobs_.push_back(std::move(job));
    if (pending) pending_.push_back(index);
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

std::optional<std::size_t> JobQueue::try_claim() {
  std::lock_guard lock(mutex_);
  if (pending_.empty()) return std::nullopt;
  const std::size_t index = pending_.front();
  pending_.pop_front();
  return index;
}

bool JobQueue::wait_for_job(const std::function<bool()>& stop, std::chrono::milliseconds poll) const {
  for (;;) {
    if (stop && stop()) return false;
    std::unique_lock lock(mutex_);
    if (!pending_.empty()) return true;
    if (closed_) return false;
    changed_.wait_for(lock, poll);
  }
}

const Job& JobQueue::job(std::size_t index) const {
  std::lock_guard lock(mutex_);
  return jobs_.at(index);
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
