#pragma once
// Who waits for and who holds a flock() on a given file, read from /proc/locks. The controller
// pauses a worker's deadline while it waits for the per-GPU lock, so a job is not timed out for
// the time another job held the GPU, and names the holders it waited on (lock_blame.hpp).
#include <filesystem>
#include <vector>

#include <sys/types.h>

namespace kbench {

// True when one of `pids` is blocked in flock() on `file`.
bool blocked_on_lock(const std::vector<pid_t>& pids, const std::filesystem::path& file);

// The processes holding a flock() on `file` now (/proc/locks names the process that took it).
struct FlockHolder {
  pid_t pid = 0;
  bool exclusive = false;
};
std::vector<FlockHolder> flock_holders(const std::filesystem::path& file);

}  // namespace kbench
