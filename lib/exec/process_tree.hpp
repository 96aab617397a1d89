#pragma once
// Every process a worker started, found through /proc parent links and remembered across scans
// (a candidate's child can setsid() out of the process group, or lose its parent and be
// reparented to the controller, which is a child subreaper). Used for the host-memory limit and
// to kill whatever is left when a job ends.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kbench {

class ProcessTree {
 public:
  // Hold this from before a worker's fork until its ProcessTree exists: scans wait meanwhile, so
  // no other slot takes the new child (the controller's child, not yet a root) for an orphan.
  static std::unique_lock<std::mutex> registry_lock();
  // `registry` (from registry_lock) is released once `root` is registered.
  ProcessTree(pid_t root, std::unique_lock<std::mutex> registry);
  explicit ProcessTree(pid_t root);
  ~ProcessTree();
  ProcessTree(const ProcessTree&) = delete;
  ProcessTree& operator=(const ProcessTree&) = delete;

  // Rescans /proc, adds new descendants; returns the resident memory of the live tree in bytes
  // (anonymous resident pages; shared pages counted once per process, see precise_memory).
  std::uint64_t scan();
  // Proportional set size of the tree (shared pages split between sharers): slower, exact
  // enough to confirm a limit breach that scan() suggests (forked children share pages).
  std::uint64_t precise_memory() const;
  // SIGKILLs every remaining process of the tree, until none is left, and reaps those that are
  // the controller's children (orphans it adopted). Call after the root has been waited for.
  void kill_all();
  std::size_t size() const { return tracked_.size(); }
  // The processes found so far (the root included), dead ones possibly among them.
  std::vector<pid_t> pids() const;

 private:
  pid_t root_;
  std::map<pid_t, unsigned long long> tracked_;  // pid -> start time (guards against pid reuse)
};

// `root` and every live process below it by the parent links of /proc now (no memory read: cheap
// enough for the timing witness's window).
std::vector<pid_t> live_descendants(pid_t root);

// Every process below `root` (not `root` itself) that runs now, zombies (exited, not yet reaped)
// left out, with its name (`comm`): what the child_process check compares before and after a
// candidate's code ran (a DataLoader's workers are forks of the worker).
std::map<pid_t, std::string> running_descendants(pid_t root);

// Makes the calling process a child subreaper and non-dumpable (its /proc/<pid>/environ and
// memory unreadable to same-uid processes); idempotent. The controller calls it before the first
// worker starts.
void protect_controller();

}  // namespace kbench
