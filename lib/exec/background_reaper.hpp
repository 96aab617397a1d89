#pragma once
// Ends workers that have already delivered their result, off the slot's critical path. A
// process with a CUDA context takes up to a second to exit (the driver tears the context down
// in the kernel); the next job need not wait for that. The worker is SIGKILLed at once; its
// reaping and the sweep of its descendants finish here, on a thread of their own.
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "exec/process_tree.hpp"

namespace kbench {

class BackgroundReaper {
 public:
  static BackgroundReaper& instance();
  ~BackgroundReaper();

  // Takes over `pid` (the controller's child, already sent SIGKILL), its tree and the read
  // ends of its pipes (closed once it is gone).
  void reap(pid_t pid, std::unique_ptr<ProcessTree> tree, std::vector<int> fds);
  // Blocks until every worker handed over so far is reaped and its descendants are gone.
  void wait_all();
  // Reaping threads not joined yet (running, or ended since the last reap()).
  [[nodiscard]] std::size_t held();

 private:
  struct Reaping {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;  // set as the thread's last act
  };
  std::mutex mutex_;
  // Joined at the next reap() once done: an ended thread left unjoined keeps its stack mapped
  // and resident (~20 KiB per delivered worker, linear growth of a long-lived `kbench serve`).
  std::vector<Reaping> threads_;
};

}  // namespace kbench
