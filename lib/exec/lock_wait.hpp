#pragma once
// Who waits for and who holds a flock() on a given file, read from /proc/locks. The controller
// pauses a worker's deadline while it waits for the per-GPU lock, so a job is not timed out for
// the time another job held the GPU, and names the holders it waited on (lock_blame.hpp).
#include <filesystem>
#include <vector>

#include <sys/types.h>

namespace kbench {

// A process holding a flock() (/proc/locks names the process that took it).
struct FlockHolder {
  pid_t pid = 0;
  bool exclusive = false;
};

// A file's flock()s: who holds it and who waits for it.
struct FlockState {
  std::vector<FlockHolder> holders;
  std::vector<pid_t> waiters;
  [[nodiscard]] bool waited_by(const std::vector<pid_t>& pids) const;  // one of `pids` waits
};
// The state of each of `files`, from one read of /proc/locks (the watchdog polls it often).
std::vector<FlockState> flock_states(const std::vector<std::filesystem::path>& files);

}  // namespace kbench
