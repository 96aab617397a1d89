#pragma once
// Ends workers that have already delivered their result, off the slot's critical path. A
// process with a CUDA context takes up to a second to exit (the driver tears the context down
// in the kernel); the next job need not wait for that. The worker is SIGKILLed at once; its
// reaping and the sweep of its descendants finish here, on a thread of their own.
#include <sys/types.h>

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

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

}  // namespace kbench
