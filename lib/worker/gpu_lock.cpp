#include "worker/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace kbench {

GpuLock& GpuLock::instance() {
  static GpuLock lock;
  return lock;
}

GpuLock::GpuLock() {
  const char* path = std::getenv("KBENCH_GPU_LOCK");
  if (!path || !*path) return;
  // Read-only is enough for flock, and lets another user's run (umask 022) share the file.
  fd_ = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) std::perror("kbench worker: GPU lock unavailable, timing unserialised");
}

void GpuLock::hold(Mode mode) {
  if (fd_ < 0 || mode == mode_) return;
  const int operation = mode == Mode::none ? LOCK_UN : mode == Mode::shared ? LOCK_SH : LOCK_EX;
  const auto start = std::chrono::steady_clock::now();
  while (flock(fd_, operation) != 0 && errno == EINTR) {
  }
  wait_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  mode_ = mode;
}

}  // namespace kbench
