#pragma once
// Whether a process is blocked in flock() on a given file, read from /proc/locks. The
// controller pauses a worker's deadline while it waits for the per-GPU lock, so a job is not
// timed out for the time another job held the GPU.
#include <filesystem>
#include <vector>

#include <sys/types.h>

namespace kbench {

// True when one of `pids` is blocked in flock() on `file`.
bool blocked_on_lock(const std::vector<pid_t>& pids, const std::filesystem::path& file);

}  // namespace kbench
