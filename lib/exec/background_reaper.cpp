#include "exec/background_reaper.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace kbench {

BackgroundReaper& BackgroundReaper::instance() {
  static BackgroundReaper reaper;
  return reaper;
}

BackgroundReaper::~BackgroundReaper() { wait_all(); }

void BackgroundReaper::reap(pid_t pid, std::unique_ptr<ProcessTree> tree, std::vector<int> fds) {
  std::lock_guard lock(mutex_);
  threads_.emplace_back([pid, tree = std::move(tree), fds = std::move(fds)] {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    tree->kill_all();
    for (int fd : fds) close(fd);
  });
}

void BackgroundReaper::wait_all() {
  std::vector<std::thread> finishing;
  {
    std::lock_guard lock(mutex_);
    finishing.swap(threads_);
  }
  for (auto& t : finishing) t.join();
}

}  // namespace kbench
