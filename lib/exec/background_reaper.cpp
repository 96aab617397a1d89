#include "exec/background_reaper.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>

namespace kbench {

BackgroundReaper& BackgroundReaper::instance() {
  static BackgroundReaper reaper;
  return reaper;
}

BackgroundReaper::~BackgroundReaper() { wait_all(); }

void BackgroundReaper::reap(pid_t pid, std::unique_ptr<ProcessTree> tree, std::vector<int> fds) {
  std::vector<Reaping> ended;
  {
    std::lock_guard lock(mutex_);
    const auto running = std::partition(threads_.begin(), threads_.end(), [](const Reaping& r) { return !*r.done; });
    ended.assign(std::make_move_iterator(running), std::make_move_iterator(threads_.end()));
    threads_.erase(running, threads_.end());
    auto done = std::make_shared<std::atomic<bool>>(false);
    threads_.push_back({std::thread([pid, tree = std::move(tree), fds = std::move(fds), done] {
                          while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
                          }
                          tree->kill_all();
                          for (int fd : fds) close(fd);
                          *done = true;
                        }),
                        done});
  }
  for (auto& r : ended) r.thread.join();  // at most the instant between `done` and its return
}

std::size_t BackgroundReaper::held() {
  std::lock_guard lock(mutex_);
  return threads_.size();
}

void BackgroundReaper::wait_all() {
  std::vector<Reaping> finishing;
  {
    std::lock_guard lock(mutex_);
    finishing.swap(threads_);
  }
  for (auto& r : finishing) r.thread.join();
}

}  // namespace kbench
